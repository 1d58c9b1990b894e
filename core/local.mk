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
	core/daemon.h core/daemon.cc core/daemon_metrics.cc \
	core/ibacm_cli.h core/ibacm_cli.cc
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
# The examples, installed under $(docdir)/examples (the packages move each
# to its own package's doc directory): the configuration files, which
# scripts/config-examples.py makes from the option tables (`make
# update-config-examples`; test/config_examples_test.sh), the example
# provider's and libibssa_path's sources.
sampledir = $(docdir)/examples
dist_sample_DATA = etc/acm_opts.cfg etc/opensm-ibssa.conf
exampleproviderdir = $(docdir)/examples/provider
dist_exampleprovider_DATA = examples/provider/README examples/provider/Makefile \
	examples/provider/pathfile.c examples/provider/provider.map \
	examples/provider/paths.txt examples/provider/pathfile.cfg
exampleshmpathdir = $(docdir)/examples/shm_path
dist_exampleshmpath_DATA = examples/shm_path/README examples/shm_path/Makefile \
	examples/shm_path/pathlookup.c

# Rewrites etc/*.cfg and etc/opensm-ibssa.conf in the source tree from the
# built programs' option tables, with the man pages' directories for the
# configured ones.
# check-config-examples says what it would change and fails when anything
# would (test/config_examples_test.sh runs it).
CONFIG_EXAMPLES = $(PYTHON3) $(top_srcdir)/scripts/config-examples.py --build $(abs_top_builddir) \
	--srcdir $(top_srcdir) --map '$(ssaconfdir)=/etc/rdma' \
	--map '$(providerdir)=/usr/lib/<multiarch>/ibacm-ssa' \
	--map '$(upstream_provider_dir)=/usr/lib/<multiarch>/ibacm'
update-config-examples: core/ibacm distrib/ibssa $(provider_LTLIBRARIES)
	$(CONFIG_EXAMPLES) --write
check-config-examples: core/ibacm distrib/ibssa $(provider_LTLIBRARIES)
	$(CONFIG_EXAMPLES) --check
.PHONY: update-config-examples check-config-examples
TESTS += test/config_examples_test.sh
EXTRA_DIST += test/config_examples_test.sh scripts/config-examples.py
EXTRA_DIST += providers/provider.map
