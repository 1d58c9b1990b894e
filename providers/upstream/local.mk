# providers/upstream/: the "upstream" provider, a bridge that loads a
# provider library written for upstream ibacm's acm_prov.h (rdma-core's
# libibacmp.so, third-party ones) unchanged (man/ibacm_upstream.7).
#
# The bridge's code is the convenience library libupstreamprovider.la; the
# module upstream.la adds the entry (upstream_entry.cc) and the functions
# upstream libraries call in the daemon (core_exports.cc). Its version
# script (upstream.map) exports those next to ssa_provider_entry, and the
# bridge makes them global before it dlopens the library.
noinst_LTLIBRARIES += providers/upstream/libupstreamprovider.la
providers_upstream_libupstreamprovider_la_SOURCES = \
	providers/upstream/acm_prov_abi.h \
	providers/upstream/bridge_options.h providers/upstream/bridge_options.cc \
	providers/upstream/core_exports.h \
	providers/upstream/upstream_bridge.h providers/upstream/upstream_bridge.cc \
	providers/upstream/upstream_resolve.cc
providers_upstream_libupstreamprovider_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DUPSTREAM_PROVIDER_DIR='"$(upstream_provider_dir)"'
UPSTREAM_PROVIDER_LIBS = providers/upstream/libupstreamprovider.la providers/shared/libprovshared.la \
	common/smdb/libssasmdb.la $(SSA_MAD_LIBS)

provider_LTLIBRARIES += providers/upstream/upstream.la
providers_upstream_upstream_la_SOURCES = providers/upstream/upstream_entry.cc \
	providers/upstream/core_exports.cc
providers_upstream_upstream_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DUPSTREAM_PROVIDER_DIR='"$(upstream_provider_dir)"'
providers_upstream_upstream_la_LDFLAGS = $(PROVIDER_MODULE_LDFLAGS) \
	-Wl,--version-script=$(top_srcdir)/providers/upstream/upstream.map
providers_upstream_upstream_la_LIBADD = $(UPSTREAM_PROVIDER_LIBS) $(VERBS_LIBS)
EXTRA_providers_upstream_upstream_la_DEPENDENCIES = $(top_srcdir)/providers/upstream/upstream.map
EXTRA_DIST += providers/upstream/upstream.map

dist_man_MANS += man/ibacm_upstream.7
