# test/sim/acmp.mk: integration tests of the acmp provider: four ibacm
# daemons on the 4-HCA simulated fabric resolving each other over the ACM
# protocol, checked against OpenSM (saquery) and driven by our AcmClient,
# Debian's stock ib_acme and ours. The test process also sends datagrams
# of its own, so it links the provider's library (the simulated datagram
# backend and the ACM codec).
check_PROGRAMS += test/sim/acmp_tests
TESTS += test/sim/acmp_tests
test_sim_acmp_tests_SOURCES = \
	test/sim/acmp_sim_test.cc
test_sim_acmp_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_acmp_tests_LDADD = $(SIM_TEST_LIBS) $(ACMP_PROVIDER_LIBS) $(SIM_TEST_LAST_LIBS)
# The daemons load the provider from providers/acmp/.libs.
EXTRA_test_sim_acmp_tests_DEPENDENCIES = providers/acmp/acmp.la core/ibacm util/ib_acme/ib_acme
