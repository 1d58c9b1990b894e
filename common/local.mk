# common/: the protocol library shared by the daemons, providers and tools.
noinst_LTLIBRARIES += common/libssacommon.la
common_libssacommon_la_SOURCES = \
	common/status.h common/status.cc \
	common/log.h common/log.cc \
	common/event_loop.h common/event_loop.cc \
	common/worker_pool.h common/worker_pool.cc \
	common/config_file.h common/config_file.cc \
	common/option_set.h common/option_set.cc \
	common/umad_ports.h common/umad_ports.cc \
	common/mad_wire.h common/mad_wire.cc \
	common/mad_transport.h \
	common/umad_transport.h common/umad_transport.cc \
	common/sa_client.h common/sa_client.cc \
	common/acm_wire.h common/acm_wire_internal.h common/acm_wire.cc \
	common/acm_wire_server.cc common/acm_wire_client.cc \
	common/acm_client.h common/acm_client.cc \
	common/raw_close.h common/text_util.h common/big_endian.h \
	common/smdb_format.h common/smdb_format.cc \
	common/smdb_fields.h common/smdb_records.h \
	common/smdb_codec.h common/smdb_codec.cc \
	common/smdb.h common/smdb.cc \
	common/smdb_prdb.h common/smdb_prdb.cc \
	common/smdb_stream.h common/smdb_stream.cc \
	common/smdb_delta.h common/smdb_delta.cc \
	common/smdb_dump.h common/smdb_dump.cc \
	common/smdb_index.h common/smdb_index.cc common/path_engine.h common/path_engine.cc \
	common/progress_meter.h common/progress_meter.cc
common_libssacommon_la_CPPFLAGS = $(AM_CPPFLAGS) $(INIH_CFLAGS)
common_libssacommon_la_LIBADD = $(INIH_LIBS) $(UMAD_LIBS) -lpthread
