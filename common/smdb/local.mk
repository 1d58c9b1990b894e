# common/smdb/: the subnet and path record databases (SMDB, PRDB): the
# container format, records, stream readers, deltas, text dumps, the LID
# index and the path-record engine. Pure computation: no I/O but files.
# SSA_SMDB_SOURCES: also compiled by test/fuzz/local.mk (smdb_fuzzer);
# SSA_SMDB_FORMAT_SOURCES, CRC32 and the container headers, by the tree
# fuzzers (the data channel's frame CRC).
SSA_SMDB_FORMAT_SOURCES = common/smdb/smdb_format.h common/smdb/smdb_format.cc \
	common/smdb/crc32_clmul.h common/smdb/crc32_clmul.cc
noinst_LTLIBRARIES += common/smdb/libssasmdb.la
SSA_SMDB_SOURCES = $(SSA_SMDB_FORMAT_SOURCES) \
	common/smdb/smdb_fields.h common/smdb/smdb_records.h common/smdb/smdb_qos_records.h common/smdb/qos_level_flags.h \
	common/smdb/smdb_codec.h common/smdb/smdb_codec.cc \
	common/smdb/smdb.h common/smdb/smdb.cc \
	common/smdb/smdb_prdb.h common/smdb/smdb_prdb.cc \
	common/smdb/addr_db.h common/smdb/addr_db.cc \
	common/smdb/smdb_stream.h common/smdb/smdb_stream.cc \
	common/smdb/smdb_delta.h common/smdb/smdb_delta.cc common/smdb/smdb_delta_known.cc \
	common/smdb/smdb_delta_catch_up.cc \
	common/smdb/smdb_delta_keys.cc \
	common/smdb/smdb_delta_read.h common/smdb/smdb_delta_read.cc \
	common/smdb/smdb_dump.h common/smdb/smdb_dump.cc \
	common/smdb/qos_policy.h common/smdb/qos_policy.cc \
	common/smdb/route_sl_table.h common/smdb/route_sl_table.cc \
	common/smdb/smdb_index.h common/smdb/smdb_index.cc \
	common/smdb/lft_lineage.h common/smdb/lft_lineage.cc \
	common/smdb/path_engine.h common/smdb/path_engine.cc \
	common/smdb/off_subnet.h common/smdb/off_subnet.cc \
	common/smdb/prefix_rows.h common/smdb/prefix_rows.cc \
	common/smdb/route_suffixes.h common/smdb/route_suffixes.cc \
	common/smdb/whole_prdb.h common/smdb/whole_prdb.cc \
	common/smdb/route_diff.h common/smdb/route_diff.cc \
	common/smdb/prdb_image.h common/smdb/prdb_image.cc \
	common/smdb/prdb_patch.h common/smdb/prdb_patch.cc
common_smdb_libssasmdb_la_SOURCES = $(SSA_SMDB_SOURCES)
