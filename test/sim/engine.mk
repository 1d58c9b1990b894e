# test/sim/engine.mk: the path-record engine (common/smdb/path_engine.h) against
# OpenSM's SA on simulated fabrics, through `ssa-smdb compare` run as
# nodes, with the OpenSM plugin providing the SMDB.
if WITH_OPENSM
check_PROGRAMS += test/sim/engine_tests
TESTS += test/sim/engine_tests
test_sim_engine_tests_SOURCES = \
	test/sim/path_engine_sim_test.cc test/sim/router_sim_test.cc
test_sim_engine_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_engine_tests_LDADD = $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)
# OpenSM loads the plugin from opensm_plugin/.libs; the nodes run ssa-smdb.
EXTRA_test_sim_engine_tests_DEPENDENCIES = opensm_plugin/libibssa_osm.la util/smdb_tool/ssa-smdb
endif
