# providers/acmp/: the "acmp" provider (upstream ibacm's ACM protocol:
# multicast address resolution, routes from the group or the SA), installed
# into the daemon's default provider directory ($(providerdir)).
#
# Everything but the C ABI entry is the convenience library
# libacmpprovider.la, which the unit tests link too; acmp.la is that plus
# acmp_entry.cc, a loadable module exporting only ssa_provider_entry (the
# version script). The datagram transports (verbs and simulated) live here:
# only this provider uses verbs, so only it links libibverbs. The
# hosts-file, route-preload, route-cache and path-query code it shares with
# the sa provider comes from providers/shared/ (libprovshared.la).
# ACMP_WIRE_SOURCES: the ACM datagram codec, also compiled by
# test/fuzz/local.mk (acmp_msg_fuzzer).
ACMP_WIRE_SOURCES = providers/acmp/acmp_wire.h providers/acmp/acmp_wire.cc
noinst_LTLIBRARIES += providers/acmp/libacmpprovider.la
providers_acmp_libacmpprovider_la_SOURCES = \
	providers/acmp/datagram_transport.h providers/acmp/datagram_transport.cc \
	providers/acmp/sim_datagram.h providers/acmp/sim_datagram.cc \
	providers/acmp/verbs_datagram.h providers/acmp/verbs_datagram.cc \
	providers/acmp/mcmember_wire.h providers/acmp/mcmember_wire.cc \
	$(ACMP_WIRE_SOURCES) \
	providers/acmp/acmp_options.h providers/acmp/acmp_options.cc \
	providers/acmp/acmp_port_info.h providers/acmp/acmp_port_info.cc \
	providers/acmp/acmp_dest.h providers/acmp/acmp_dest.cc \
	providers/acmp/acmp_groups.h providers/acmp/acmp_groups.cc \
	providers/acmp/acmp_requests.h providers/acmp/acmp_requests.cc \
	providers/acmp/acmp_send_queue.h providers/acmp/acmp_send_queue.cc \
	providers/acmp/acmp_loop.h \
	providers/acmp/acmp_membership.h providers/acmp/acmp_membership.cc \
	providers/acmp/acmp_datagram_io.h providers/acmp/acmp_datagram_io.cc \
	providers/acmp/acmp_provider.h providers/acmp/acmp_provider.cc \
	providers/acmp/acmp_services.cc \
	providers/acmp/acmp_join.cc \
	providers/acmp/acmp_resolve.cc \
	providers/acmp/acmp_protocol.cc
# Users link these, in this order, with $(VERBS_LIBS).
ACMP_PROVIDER_LIBS = providers/acmp/libacmpprovider.la providers/shared/libprovshared.la common/smdb/libssasmdb.la \
	$(SSA_MAD_LIBS)

provider_LTLIBRARIES += providers/acmp/acmp.la
providers_acmp_acmp_la_SOURCES = providers/acmp/acmp_entry.cc
providers_acmp_acmp_la_LDFLAGS = $(PROVIDER_LDFLAGS)
providers_acmp_acmp_la_LIBADD = $(ACMP_PROVIDER_LIBS) $(VERBS_LIBS)
EXTRA_providers_acmp_acmp_la_DEPENDENCIES = $(PROVIDER_MAP)

dist_man_MANS += man/ibacm_acmp.7
