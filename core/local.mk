# core/: the ibacm daemon. Its objects live in a convenience library so the
# daemon and the tests link the same code; the program is its main() alone.
# CORE_ADDR_CONFIG_SOURCES: the ibacm_addr.cfg reader (fuzzed too).
CORE_ADDR_CONFIG_SOURCES = core/addr_config.h core/addr_config.cc
noinst_LTLIBRARIES += core/libibacmcore.la
core_libibacmcore_la_SOURCES = $(CORE_ADDR_CONFIG_SOURCES) \
	core/provider_loader.h core/provider_loader.cc \
	core/provider_selector.h core/provider_selector.cc \
	core/core_options.h core/core_options.cc \
	core/core_model.h \
	core/provider_host.h core/provider_host.cc \
	core/port_manager.h core/port_manager.cc core/port_ipoib.cc \
	core/port_events.h core/port_events.cc \
	core/client_server.h core/client_server.cc \
	core/request_dispatcher.h core/request_dispatcher.cc \
	core/provider_metrics.h core/provider_metrics.cc \
	core/daemon.h core/daemon.cc core/daemon_metrics.cc
core_libibacmcore_la_LIBADD = $(LTDL_LIBS) $(VERBS_LIBS)

sbin_PROGRAMS += core/ibacm
core_ibacm_SOURCES = core/main.cc
core_ibacm_LDADD = core/libibacmcore.la common/acm/libssaacm.la common/metrics/libssametrics.la \
	$(SSA_MAD_LIBS)

# The provider ABI, for third-party provider authors.
provincludedir = $(includedir)/ibacm_ssa
provinclude_HEADERS = include/ibacm_ssa/provider.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = ibacm-ssa-prov.pc
dist_man_MANS += man/ibacm.8 man/ibacm_prov.7 man/acm_opts.cfg.5 man/ibacm_addr.cfg.5
sampledir = $(docdir)/examples
dist_sample_DATA = etc/acm_opts.cfg
EXTRA_DIST += providers/provider.map
