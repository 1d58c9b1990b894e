# test/sim/tree.mk: the SSA tree end to end (core in OpenSM, ibssa
# distribution and access daemons, ssa-consumer, ssa-tree) on simulated
# fabrics, and ibacm with the ssa provider at its end.
if WITH_OPENSM
# The tree harness and its test fixture (header only), shared by the
# tree's test programs.
check_LTLIBRARIES += test/sim/libsimtree.la
test_sim_libsimtree_la_SOURCES = test/sim/tree_harness.h test/sim/tree_harness.cc \
	test/sim/tree_fixture.h
test_sim_libsimtree_la_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'

check_PROGRAMS += test/sim/tree_tests
TESTS += test/sim/tree_tests
test_sim_tree_tests_SOURCES = \
	test/sim/tree_sim_test.cc test/sim/ssa_provider_sim_test.cc test/sim/tree_fault_sim_test.cc \
	test/sim/tree_ops_sim_test.cc test/sim/tree_auth_sim_test.cc
test_sim_tree_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_tree_tests_LDADD = test/sim/libsimtree.la $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)
EXTRA_test_sim_tree_tests_DEPENDENCIES = opensm_plugin/libibssa_osm.la distrib/ibssa \
	util/ssa_tree/ssa-consumer util/ssa_tree/ssa-tree util/smdb_tool/ssa-smdb \
	providers/ssa/ssa.la core/ibacm util/ib_acme/ib_acme
endif

# The metrics end to end (issue 47): the tree's metrics files through
# Debian's prometheus-node-exporter and prometheus, every query of the
# Grafana dashboard returning series (skipped without those two).
if WITH_OPENSM
check_PROGRAMS += test/sim/dashboard_tests
TESTS += test/sim/dashboard_tests
test_sim_dashboard_tests_SOURCES = test/sim/dashboard_sim_test.cc
test_sim_dashboard_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS) \
	-DDASHBOARD_JSON='"$(abs_top_srcdir)/examples/grafana/ibacm-ssa.json"' \
	-DDASHBOARD_QUERIES='"$(abs_top_srcdir)/test/sim/dashboard_queries.py"'
test_sim_dashboard_tests_LDADD = $(test_sim_tree_tests_LDADD)
EXTRA_test_sim_dashboard_tests_DEPENDENCIES = $(EXTRA_test_sim_tree_tests_DEPENDENCIES) \
	providers/sa/sa.la
endif
EXTRA_DIST += test/sim/dashboard_queries.py

# The replica's fidelity to the SA on fabrics it cannot (yet) compute
# exactly: SL-choosing routing engines, QoS policies (issue 25).
if WITH_OPENSM
check_PROGRAMS += test/sim/fidelity_tests
TESTS += test/sim/fidelity_tests
test_sim_fidelity_tests_SOURCES = test/sim/fidelity_fixture.h test/sim/fidelity_sim_test.cc \
	test/sim/sa_options_sim_test.cc \
	test/sim/routing_engine_sim_test.cc test/sim/route_sl_slice_sim_test.cc \
	test/sim/router_fixture.h test/sim/router_fidelity_sim_test.cc \
	test/sim/router_kernel_sim_test.cc test/sim/federation_sim_test.cc
test_sim_fidelity_tests_CPPFLAGS = $(test_sim_tree_tests_CPPFLAGS)
test_sim_fidelity_tests_LDADD = util/ib_acme/libacme.la $(test_sim_tree_tests_LDADD)
EXTRA_test_sim_fidelity_tests_DEPENDENCIES = $(EXTRA_test_sim_tree_tests_DEPENDENCIES) \
	test/sim/ibacm_kernel
# ibacm with a unix socket standing in for the kernel's RDMA_NL_LS one
# (the simulator has no kernel SA client), for router_kernel_sim_test.cc.
check_PROGRAMS += test/sim/ibacm_kernel
test_sim_ibacm_kernel_SOURCES = test/sim/ibacm_kernel_main.cc
test_sim_ibacm_kernel_LDADD = $(core_ibacm_LDADD)
endif

# libibssa_path against the ssa provider's daemon (issue 27).
if WITH_OPENSM
check_PROGRAMS += test/sim/shm_path_tests
TESTS += test/sim/shm_path_tests
test_sim_shm_path_tests_SOURCES = test/sim/shm_path_sim_test.cc
test_sim_shm_path_tests_CPPFLAGS = $(test_sim_tree_tests_CPPFLAGS)
test_sim_shm_path_tests_LDADD = test/sim/libsimtree.la $(IBSSA_PATH_LIBS) $(SIM_TEST_LIBS) \
	$(SIM_TEST_LAST_LIBS)
EXTRA_test_sim_shm_path_tests_DEPENDENCIES = $(EXTRA_test_sim_tree_tests_DEPENDENCIES)
endif
