# common/tree/: the SSA distribution tree's protocol (doc/ssa-tree.md): the
# control MADs and the core's membership book, the members' control client,
# the data channel (frames, streams, parent and child sides) and the
# consumer library.
#
# SSA_TREE_WIRE_SOURCES: the control MAD and data-channel frame codecs,
# pure (no umad, no sockets); also compiled by test/fuzz/local.mk
# (ssa_mad_fuzzer, tree_frame_fuzzer) with what they use,
# SSA_MAD_WIRE_SOURCES and SSA_SMDB_FORMAT_SOURCES.
SSA_TREE_WIRE_SOURCES = \
	common/tree/ssa_mad.h common/tree/ssa_mad.cc \
	common/tree/frame.h common/tree/frame.cc
noinst_LTLIBRARIES += common/tree/libssatree.la
common_tree_libssatree_la_SOURCES = $(SSA_TREE_WIRE_SOURCES) \
	common/tree/membership.h common/tree/membership.cc \
	common/tree/core_control.h common/tree/core_control.cc \
	common/tree/member_control.h common/tree/member_control.cc \
	common/tree/stream.h common/tree/tcp_stream.cc common/tree/rsocket_stream.cc \
	common/tree/stream_sockaddr.h common/tree/stream_sockaddr.cc \
	common/tree/rsocket_poller.h common/tree/rsocket_poller.cc \
	common/tree/stream_faults.h common/tree/stream_faults.cc \
	common/tree/stream_relay.h common/tree/stream_relay.cc \
	common/tree/db_version.h common/tree/db_version.cc \
	common/tree/data_server.h common/tree/data_server.cc \
	common/tree/data_client.h common/tree/data_client.cc \
	common/tree/consumer.h common/tree/consumer.cc \
	common/tree/core_confirmation.h common/tree/core_confirmation.cc \
	common/tree/announce.h common/tree/announce.cc \
	common/tree/inproc_mad.h common/tree/inproc_mad.cc \
	common/tree/route_sl_slices.h common/tree/route_sl_slices.cc \
	common/tree/core_server.h common/tree/core_server.cc \
	common/tree/epoch_watch.h common/tree/epoch_watch.cc \
	common/tree/link_auth.h common/tree/link_auth.cc \
	common/tree/federation_config.h common/tree/federation_config.cc \
	common/tree/federation.h common/tree/federation.cc
common_tree_libssatree_la_CPPFLAGS = $(AM_CPPFLAGS) $(CRYPTO_CFLAGS)
common_tree_libssatree_la_LIBADD = $(RDMACM_LIBS) $(CRYPTO_LIBS)
