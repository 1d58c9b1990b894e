# test/sim/ib_acme.mk: util/ib_acme on the simulated fabric: our ib_acme
# against Debian's stock one, provider testing and -v, -A, -O.
check_PROGRAMS += test/sim/ib_acme_tests
TESTS += test/sim/ib_acme_tests
test_sim_ib_acme_tests_SOURCES = \
	test/sim/ib_acme_sim_test.cc
test_sim_ib_acme_tests_CPPFLAGS = $(SIM_TEST_CPPFLAGS) \
	-DABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
test_sim_ib_acme_tests_LDADD = $(SIM_TEST_LIBS) $(SIM_TEST_LAST_LIBS)
# The programs under test and the provider the daemon loads (the sa
# provider is used when it has been built).
EXTRA_test_sim_ib_acme_tests_DEPENDENCIES = util/ib_acme/ib_acme core/ibacm \
	test/providers/good/testprov.la
