# opensm_plugin/: the OpenSM event plugin that extracts the subnet database
# (SMDB). OpenSM loads it with `event_plugin_name ibssa_osm`, which dlopen()s
# libibssa_osm.so through the normal library search path, so it goes to
# $(libdir), not to the providers' directory.
#
# The files that include OpenSM's (C only) headers are C; the rest is C++
# and sees OpenSM only through osm_bridge.h.
#
# OSM_PLUGIN_OPTIONS_SOURCES: the plugin's option parser, needing no OpenSM
# (the config fuzzer compiles it in every configuration), in its own
# library built in every configuration: ibssa --check-plugin-config checks
# the plugin's options where OpenSM is not installed.
OSM_PLUGIN_OPTIONS_SOURCES = opensm_plugin/plugin_options.h opensm_plugin/plugin_options.cc
noinst_LTLIBRARIES += opensm_plugin/libosmoptions.la
opensm_plugin_libosmoptions_la_SOURCES = $(OSM_PLUGIN_OPTIONS_SOURCES)
if WITH_OPENSM
# The C++ part, which the sim tests (test/sim/osm_plugin.mk) link too.
noinst_LTLIBRARIES += opensm_plugin/libosmplugin.la
opensm_plugin_libosmplugin_la_SOURCES = \
	opensm_plugin/plugin_log.h opensm_plugin/plugin_log.cc \
	opensm_plugin/raw_snapshot.h opensm_plugin/raw_snapshot.cc \
	opensm_plugin/version_store.h opensm_plugin/version_store.cc \
	opensm_plugin/smdb_producer.h opensm_plugin/smdb_producer.cc \
	opensm_plugin/extract_worker.h opensm_plugin/extract_worker.cc \
	opensm_plugin/address_book.h opensm_plugin/address_book.cc \
	opensm_plugin/tree_core.h opensm_plugin/tree_core.cc \
	opensm_plugin/core_metrics.h opensm_plugin/core_metrics.cc

lib_LTLIBRARIES += opensm_plugin/libibssa_osm.la
opensm_plugin_libibssa_osm_la_SOURCES = \
	opensm_plugin/osm_bridge.h \
	opensm_plugin/osm_handle.h \
	opensm_plugin/osm_entry.c \
	opensm_plugin/osm_extract.c \
	opensm_plugin/osm_route_sl.c \
	opensm_plugin/osm_dfsssp_layers.c \
	opensm_plugin/plugin_entry.cc
opensm_plugin_libibssa_osm_la_CPPFLAGS = $(AM_CPPFLAGS) $(OPENSM_CFLAGS)
# -z nodelete: OpenSM dlclose()s a plugin whose create() fails; keeping the
# code mapped protects anything libstdc++ registered that points into it.
opensm_plugin_libibssa_osm_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/opensm_plugin/ibssa_osm.map -Wl,-z,nodelete
opensm_plugin_libibssa_osm_la_LIBADD = opensm_plugin/libosmplugin.la opensm_plugin/libosmoptions.la \
	common/metrics/libssametrics.la $(SSA_TREE_LIBS) \
	$(OPENSM_LIBS)
EXTRA_opensm_plugin_libibssa_osm_la_DEPENDENCIES = $(top_srcdir)/opensm_plugin/ibssa_osm.map

dist_man_MANS += man/ibssa_osm.7
endif
EXTRA_DIST += opensm_plugin/ibssa_osm.map etc/opensm-ibssa.conf
