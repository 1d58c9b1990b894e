# providers/sa/: the "sa" provider (path records from the SA, cached),
# installed into the daemon's default provider directory ($(providerdir)).
#
# A loadable module exporting only ssa_provider_entry (the version script);
# the code shared with acmp (providers/shared/) and the protocol library are
# linked in, their symbols stay hidden behind it.
provider_LTLIBRARIES += providers/sa/sa.la
providers_sa_sa_la_SOURCES = \
	providers/sa/sa_entry.cc \
	providers/sa/sa_provider.h providers/sa/sa_provider.cc \
	providers/sa/sa_resolve.cc \
	providers/sa/sa_options.h providers/sa/sa_options.cc
providers_sa_sa_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/providers/provider.map
providers_sa_sa_la_LIBADD = providers/shared/libprovshared.la $(SSA_MAD_LIBS)
EXTRA_providers_sa_sa_la_DEPENDENCIES = $(top_srcdir)/providers/provider.map

dist_man_MANS += man/ibacm_sa.7

# The unit tests load the built provider (sa_provider_abi_test.cc), and the
# sim tests point a daemon at its .libs directory.
EXTRA_test_unit_unit_tests_DEPENDENCIES = providers/sa/sa.la
