# common/shm_prdb/: the path tables the ssa provider publishes in shared
# memory (shm_prdb_format.h, man ibssa_path_tables(7)). The C part (name,
# checksum, validation, searches) is shared with libibssa_path, which
# compiles it itself (SHM_PRDB_C_SOURCES); so does the fuzzer. The C++
# part builds and publishes objects, for the provider.
SHM_PRDB_C_SOURCES = common/shm_prdb/shm_prdb_format.h \
	common/shm_prdb/shm_prdb_check.c common/shm_prdb/shm_prdb_place.c \
	common/shm_prdb/shm_prdb_search.c
noinst_LTLIBRARIES += common/shm_prdb/libshmprdb.la
common_shm_prdb_libshmprdb_la_SOURCES = $(SHM_PRDB_C_SOURCES) \
	common/shm_prdb/shm_prdb_builder.h common/shm_prdb/shm_prdb_builder.cc \
	common/shm_prdb/shm_prdb_publisher.h common/shm_prdb/shm_prdb_publisher.cc
common_shm_prdb_libshmprdb_la_CFLAGS = $(AM_CFLAGS) -std=gnu11
SSA_SHM_PRDB_LIBS = common/shm_prdb/libshmprdb.la $(SSA_BASE_LIBS)
