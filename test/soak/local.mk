# test/soak/: the chaos soak with the SA as the oracle (issue 30,
# doc/soak.md): random faults on a whole SSA tree on the simulated fabric
# while clients resolve through every ibacm and each answer is checked
# against the SA's. `soak` is the program scripts/soak.sh runs; soak_tests
# (in the suite) checks the schedule and the oracle and runs a 60 s soak;
# soak-sa-snapshot is the oracle's SA client, run as a fabric node.
if WITH_OPENSM
check_LTLIBRARIES += test/soak/libsoak.la
test_soak_libsoak_la_SOURCES = \
	test/soak/soak_schedule.h test/soak/soak_schedule.cc \
	test/soak/soak_oracle.h test/soak/soak_oracle.cc \
	test/soak/soak_clients.h test/soak/soak_clients.cc \
	test/soak/soak_run.h test/soak/soak_run.cc \
	test/soak/soak_runner.h test/soak/soak_runner.cc test/soak/soak_watch.cc \
	test/soak/soak_events.cc test/soak/soak_finish.cc \
	test/soak/fed_schedule.h test/soak/fed_schedule.cc \
	test/soak/fed_relay.h test/soak/fed_relay.cc \
	test/soak/fed_soak.h test/soak/fed_soak.cc
test_soak_libsoak_la_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
# What the soak's programs link, users first.
SOAK_LIBS = test/soak/libsoak.la test/sim/libsimtree.la test/sim/libsimnode.la \
	test/sim/libsimfab.la $(TEST_SUPPORT_LIBS) $(ACME_LIBS) $(SSA_ALL_LIBS)
SOAK_DEPS = $(EXTRA_test_sim_tree_tests_DEPENDENCIES) test/soak/soak-sa-snapshot

check_PROGRAMS += test/soak/soak-sa-snapshot
test_soak_soak_sa_snapshot_SOURCES = test/soak/sa_snapshot_main.cc
test_soak_soak_sa_snapshot_LDADD = $(ACME_LIBS)

check_PROGRAMS += test/soak/soak
test_soak_soak_SOURCES = test/soak/soak_main.cc
test_soak_soak_LDADD = $(SOAK_LIBS)
EXTRA_test_soak_soak_DEPENDENCIES = $(SOAK_DEPS)

check_PROGRAMS += test/soak/soak_tests
TESTS += test/soak/soak_tests
test_soak_soak_tests_SOURCES = test/soak/soak_test.cc test/soak/soak_findings_test.cc \
	test/soak/fed_soak_test.cc
test_soak_soak_tests_CPPFLAGS = $(AM_CPPFLAGS) $(CPPUTEST_CFLAGS)
test_soak_soak_tests_LDADD = test/libtestmain.la $(SOAK_LIBS) $(CPPUTEST_LIBS)
EXTRA_test_soak_soak_tests_DEPENDENCIES = $(SOAK_DEPS)
endif
EXTRA_DIST += doc/soak.md
