# test/sim/sa.mk: integration tests of the sa provider on simulated fabrics
# (4 HCAs, a 36-HCA fat tree), comparing its answers with OpenSM's
# (saquery) and driving it with the stock ib_acme.
check_PROGRAMS += test/sim/sa_tests
TESTS += test/sim/sa_tests
test_sim_sa_tests_SOURCES = \
	test/sim/sa_provider_sim_test.cc
test_sim_sa_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_sa_tests_LDADD = $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)
# The daemon under test loads the provider from providers/sa/.libs.
EXTRA_test_sim_sa_tests_DEPENDENCIES = providers/sa/sa.la core/ibacm
