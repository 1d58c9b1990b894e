# libibssa_path/: the installed C library that answers path records from
# the tables the ssa provider publishes in shared memory, and from the
# daemon's socket for the rest (include/ibacm_ssa/path.h, man
# libibssa_path(3)). Exports only ibssa_path_* (libibssa_path.map), so
# the table code it shares with the daemon stays private.
#
# The code is the convenience library libibssapath.la, which ib_acme, the
# benchmark and the tests link statically (no libtool wrapper, no runtime
# dependency on an installed copy); libibssa_path.la is it as a shared
# library for applications.
# IBSSA_PATH_C_SOURCES: also what test/fuzz/ibssa_path_fuzzer compiles.
IBSSA_PATH_C_SOURCES = \
	libibssa_path/path.c libibssa_path/path_private.h \
	libibssa_path/path_tables.h libibssa_path/path_tables.c \
	libibssa_path/path_socket.h libibssa_path/path_socket.c \
	$(SHM_PRDB_C_SOURCES) $(ANSWER_C_SOURCES)
noinst_LTLIBRARIES += libibssa_path/libibssapath.la
libibssa_path_libibssapath_la_SOURCES = $(IBSSA_PATH_C_SOURCES)
libibssa_path_libibssapath_la_CFLAGS = $(AM_CFLAGS) -std=gnu11 -pthread
IBSSA_PATH_LIBS = libibssa_path/libibssapath.la

lib_LTLIBRARIES += libibssa_path/libibssa_path.la
libibssa_path_libibssa_path_la_SOURCES =
libibssa_path_libibssa_path_la_LIBADD = libibssa_path/libibssapath.la
libibssa_path_libibssa_path_la_LDFLAGS = -version-info 0:0:0 -pthread \
	-Wl,--version-script=$(srcdir)/libibssa_path/libibssa_path.map
EXTRA_libibssa_path_libibssa_path_la_DEPENDENCIES = libibssa_path/libibssa_path.map
EXTRA_DIST += libibssa_path/libibssa_path.map

provinclude_HEADERS += include/ibacm_ssa/path.h
pkgconfig_DATA += ibssa-path.pc
dist_man_MANS += man/libibssa_path.3 man/ibssa_path_tables.7
