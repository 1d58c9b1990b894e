# test/sim/tree.mk: the SSA tree end to end (core in OpenSM, ibssa
# distribution and access daemons, ssa-consumer, ssa-tree) on simulated
# fabrics, and ibacm with the ssa provider at its end.
if WITH_OPENSM
check_PROGRAMS += test/sim/tree_tests
TESTS += test/sim/tree_tests
test_sim_tree_tests_SOURCES = \
	test/sim/tree_harness.h test/sim/tree_harness.cc \
	test/sim/tree_sim_test.cc test/sim/ssa_provider_sim_test.cc test/sim/tree_fault_sim_test.cc
test_sim_tree_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS) \
	-DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
test_sim_tree_tests_LDADD = $(SIM_TEST_LIBS) $(SSA_ALL_LIBS) $(CPPUTEST_LIBS)
EXTRA_test_sim_tree_tests_DEPENDENCIES = opensm_plugin/libibssa_osm.la distrib/ibssa \
	util/ssa_tree/ssa-consumer util/ssa_tree/ssa-tree util/smdb_tool/ssa-smdb \
	providers/ssa/ssa.la core/ibacm util/ib_acme/ib_acme
endif
