# providers/shared/: the code the sa and acmp providers both use, built once
# as a convenience library and linked into each provider (and the unit
# tests): the acm_hosts address map, the opensm_full_v1 route preload, the
# path-record cache, the SA PathRecord queries, the ABI glue and exception
# guard, the port view and the core's loop as a Reactor (namespace
# ssa::provider_shared).
#
# libtool builds a convenience library's objects PIC, so it links into the
# loadable modules; each provider's version script still exports only
# ssa_provider_entry, so every provider keeps its own hidden copy. It uses
# common/ but does not link common/ libraries into itself (a convenience
# library inside another would put those objects in a provider twice):
# each user links both. Nothing here uses verbs.
noinst_LTLIBRARIES += providers/shared/libprovshared.la
providers_shared_libprovshared_la_SOURCES = \
	providers/shared/address_map.h providers/shared/address_map.cc \
	providers/shared/route_preload.h providers/shared/route_preload.cc \
	providers/shared/route_key.h providers/shared/route_key.cc \
	providers/shared/route_cache.h providers/shared/route_cache.cc \
	providers/shared/path_query.h providers/shared/path_query.cc \
	providers/shared/abi_guard.h providers/shared/abi_glue.h providers/shared/core_log.h \
	providers/shared/owned_list.h \
	providers/shared/port_view.h providers/shared/port_view.cc \
	providers/shared/core_reactor.h providers/shared/core_reactor.cc \
	providers/shared/provider_options.h providers/shared/provider_options.cc
