# test/sim/osm_plugin.mk: the OpenSM plugin (opensm_plugin/) loaded into a
# real OpenSM on simulated fabrics; its C++ part (options, worker) is also
# compiled in and driven directly with a fake extraction.
if WITH_OPENSM
check_PROGRAMS += test/sim/osm_plugin_tests
TESTS += test/sim/osm_plugin_tests
test_sim_osm_plugin_tests_SOURCES = \
	test/test_main.cc \
	test/sim/sim_test_util.h test/sim/sim_test_util.cc \
	test/sim/osm_plugin_util.h test/sim/osm_plugin_util.cc \
	test/sim/osm_plugin_sim_test.cc \
	test/sim/osm_plugin_worker_test.cc \
	opensm_plugin/osm_bridge.h \
	opensm_plugin/plugin_options.h opensm_plugin/plugin_options.cc \
	opensm_plugin/plugin_log.h opensm_plugin/plugin_log.cc \
	opensm_plugin/raw_snapshot.h opensm_plugin/raw_snapshot.cc \
	opensm_plugin/version_store.h opensm_plugin/version_store.cc \
	opensm_plugin/smdb_producer.h opensm_plugin/smdb_producer.cc \
	opensm_plugin/extract_worker.h opensm_plugin/extract_worker.cc
test_sim_osm_plugin_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS) \
	-DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
test_sim_osm_plugin_tests_LDADD = test/sim/libsimfab.la $(SSA_ALL_LIBS) $(CPPUTEST_LIBS)
# OpenSM loads the plugin from opensm_plugin/.libs.
EXTRA_test_sim_osm_plugin_tests_DEPENDENCIES = opensm_plugin/libibssa_osm.la
endif
