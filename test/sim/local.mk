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
	test/sim/sim_fabric.h test/sim/sim_fabric.cc \
	test/sim/netgen.h test/sim/netgen.cc
# Third-party defects ASan reports in node processes (see the file).
test_sim_libsimfab_la_CPPFLAGS = $(AM_CPPFLAGS) \
	-DSIM_ASAN_SUPPRESSIONS='"$(abs_top_srcdir)/test/sim/third_party.asan.supp"' \
	-DSIM_LSAN_SUPPRESSIONS='"$(abs_top_srcdir)/test/sim/third_party.lsan.supp"'
EXTRA_DIST += test/sim/third_party.asan.supp test/sim/third_party.lsan.supp

noinst_PROGRAMS += test/sim/simfab
test_sim_simfab_SOURCES = test/sim/simfab_main.cc
test_sim_simfab_LDADD = test/sim/libsimfab.la $(SSA_ALL_LIBS)

check_PROGRAMS += test/sim/sim_tests
TESTS += test/sim/sim_tests
test_sim_sim_tests_SOURCES = \
	test/test_main.cc \
	test/sim/sim_test_util.h test/sim/sim_test_util.cc \
	test/sim/netgen_test.cc \
	test/sim/sim_parts_test.cc \
	test/sim/harness_test.cc \
	test/sim/harness_failure_test.cc
test_sim_sim_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS) \
	-DSIMFAB_BIN='"$(abs_top_builddir)/test/sim/simfab"' \
	-DSIM_NETS_DIR='"$(abs_top_srcdir)/test/sim/nets"'
test_sim_sim_tests_LDADD = test/sim/libsimfab.la $(SSA_ALL_LIBS) $(CPPUTEST_LIBS)

dist_noinst_DATA += test/sim/nets/4hca.net
