# test/sim/integration.mk: integration tests of the daemons on the simulated
# fabric (the harness itself is tested by test/sim/sim_tests).
noinst_PROGRAMS += test/sim/port_probe
test_sim_port_probe_SOURCES = test/sim/port_probe_main.cc
test_sim_port_probe_LDADD = $(SSA_ALL_LIBS)

check_PROGRAMS += test/sim/ibacm_tests
TESTS += test/sim/ibacm_tests
test_sim_ibacm_tests_SOURCES = \
	test/sim/ibacm_sim_test.cc \
	test/sim/socket_activation_sim_test.cc \
	test/sim/startup_sim_test.cc
test_sim_ibacm_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS)
test_sim_ibacm_tests_LDADD = $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)
