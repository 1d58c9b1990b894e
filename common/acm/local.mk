# common/acm/: the ibacm client protocol (<infiniband/acm.h> version 1):
# message codecs for the server and client sides, and a blocking client.
# SSA_ACM_SOURCES: also compiled by test/fuzz/local.mk (acm_msg_fuzzer).
noinst_LTLIBRARIES += common/acm/libssaacm.la
SSA_ACM_SOURCES = \
	common/acm/acm_wire.h common/acm/acm_wire_internal.h common/acm/acm_wire.cc \
	common/acm/acm_wire_server.cc common/acm/acm_wire_client.cc \
	common/acm/acm_client.h common/acm/acm_client.cc
common_acm_libssaacm_la_SOURCES = $(SSA_ACM_SOURCES)
