# test/sim/: the simulated-fabric harness (ibsim + OpenSM), its CLI (simfab)
# and the integration tests that run on it.
noinst_LTLIBRARIES += test/sim/libsimfab.la
test_sim_libsimfab_la_SOURCES = \
	test/sim/sim_util.h test/sim/sim_util.cc \
	test/sim/sim_registry.h test/sim/sim_registry.cc \
	test/sim/sim_child.h test/sim/sim_child.cc \
	test/sim/sim_run_dir.h test/sim/sim_run_dir.cc \
	test/sim/sim_console.h test/sim/sim_console.cc \
	test/sim/sim_slots.h test/sim/sim_slots.cc \
	test/sim/sim_process.h test/sim/sim_process.cc \
	test/sim/sim_stacks.h test/sim/sim_stacks.cc \
	test/sim/sim_fabric.h test/sim/sim_fabric.cc \
	test/sim/netgen.h test/sim/netgen.cc
# Third-party defects ASan and TSan report in node processes (see the files).
test_sim_libsimfab_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSIM_ASAN_SUPPRESSIONS='"$(abs_top_srcdir)/test/sim/third_party.asan.supp"' \
	-DSIM_LSAN_SUPPRESSIONS='"$(abs_top_srcdir)/test/sim/third_party.lsan.supp"' \
	-DSIM_TSAN_SUPPRESSIONS='"$(abs_top_srcdir)/test/sim/third_party.tsan.supp"'
EXTRA_DIST += test/sim/third_party.asan.supp test/sim/third_party.lsan.supp \
	test/sim/third_party.tsan.supp

# The test programs' helpers: running ibacm daemons as nodes, OpenSM with
# the plugin. `make all` builds this library because the benchmarks
# (test/bench/, EXTRA_PROGRAMS built by `make bench`) need it too.
noinst_LTLIBRARIES += test/sim/libsimnode.la
test_sim_libsimnode_la_SOURCES = \
	test/sim/ibacm_node.h test/sim/ibacm_node.cc \
	test/sim/acm_load.h test/sim/acm_load.cc \
	test/sim/osm_plugin_util.h test/sim/osm_plugin_util.cc
test_sim_libsimnode_la_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'

# The sim tests' helpers: running local programs, finding a fabric's
# processes, the fabric fixtures (header only).
check_LTLIBRARIES += test/sim/libsimcheck.la
test_sim_libsimcheck_la_SOURCES = test/sim/sim_test_util.h test/sim/sim_test_util.cc \
	test/sim/fabric_fixture.h
test_sim_libsimcheck_la_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS)

# The harness as its users link it (the sim tests, the benchmarks): nodes,
# then the fabric, then what both use.
SIM_HARNESS_LIBS = test/sim/libsimnode.la test/sim/libsimfab.la $(TEST_SUPPORT_LIBS)

# A sim test program's stanza (test/sim/*.mk), from these:
#   test_sim_X_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS) [its own -D...]
#   test_sim_X_tests_LDADD = $(SIM_TEST_LIBS) [the code under test] $(SIM_TEST_LAST_LIBS)
# CppUTest, and where the build tree is (the programs the tests run).
SIM_TEST_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
# What every sim test binary links first, and last; a program takes from
# each archive only the objects it uses.
SIM_TEST_LIBS = test/libtestmain.la test/sim/libsimcheck.la $(SIM_HARNESS_LIBS)
SIM_TEST_LAST_LIBS = $(SSA_ALL_LIBS) $(CPPUTEST_LIBS)

noinst_PROGRAMS += test/sim/simfab
test_sim_simfab_SOURCES = test/sim/simfab_main.cc
test_sim_simfab_LDADD = test/sim/libsimfab.la $(TEST_SUPPORT_LIBS) $(SSA_ALL_LIBS)

check_PROGRAMS += test/sim/sim_tests
TESTS += test/sim/sim_tests
test_sim_sim_tests_SOURCES = \
	test/sim/netgen_test.cc \
	test/sim/sim_parts_test.cc \
	test/sim/harness_test.cc \
	test/sim/harness_failure_test.cc
test_sim_sim_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS) \
	-DSIMFAB_BIN='"$(abs_top_builddir)/test/sim/simfab"' \
	-DSIM_NETS_DIR='"$(abs_top_srcdir)/test/sim/nets"'
test_sim_sim_tests_LDADD = $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)

dist_noinst_DATA += test/sim/nets/4hca.net
