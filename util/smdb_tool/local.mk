# util/smdb_tool/: ssa-smdb, a saved SMDB as text, the path-record engine's
# answers from it, and those answers checked against the live SA.
# Everything but main() is the convenience library libsmdbtool.la, which
# the unit tests link too.
noinst_LTLIBRARIES += util/smdb_tool/libsmdbtool.la
util_smdb_tool_libsmdbtool_la_SOURCES = \
	util/smdb_tool/path_text.h util/smdb_tool/path_text.cc \
	util/smdb_tool/sa_compare.h util/smdb_tool/sa_compare.cc

bin_PROGRAMS += util/smdb_tool/ssa-smdb
util_smdb_tool_ssa_smdb_SOURCES = util/smdb_tool/main.cc
util_smdb_tool_ssa_smdb_LDADD = util/smdb_tool/libsmdbtool.la common/smdb/libssasmdb.la \
	$(SSA_MAD_LIBS)

dist_man_MANS += man/ssa-smdb.1
