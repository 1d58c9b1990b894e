# test/sim/osm_plugin.mk: the OpenSM plugin (opensm_plugin/) loaded into a
# real OpenSM on simulated fabrics; its C++ part (options, worker:
# opensm_plugin/libosmplugin.la) is also linked in and driven directly with
# a fake extraction.
if WITH_OPENSM
check_PROGRAMS += test/sim/osm_plugin_tests
TESTS += test/sim/osm_plugin_tests
test_sim_osm_plugin_tests_SOURCES = \
	test/sim/osm_plugin_sim_test.cc \
	test/sim/osm_plugin_worker_test.cc \
	test/sim/address_book_test.cc
test_sim_osm_plugin_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_osm_plugin_tests_LDADD = $(SIM_TEST_LIBS) opensm_plugin/libosmplugin.la \
	opensm_plugin/libosmoptions.la \
	$(SIM_TEST_LAST_LIBS)
# OpenSM loads the plugin from opensm_plugin/.libs.
EXTRA_test_sim_osm_plugin_tests_DEPENDENCIES = opensm_plugin/libibssa_osm.la
endif
