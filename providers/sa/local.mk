# providers/sa/: the "sa" provider (path records from the SA, cached),
# installed into the daemon's default provider directory ($(providerdir)).
#
# Everything but the C ABI entry is the convenience library
# libsaprovider.la, which the unit tests link too; sa.la is that plus
# sa_entry.cc, a loadable module exporting only ssa_provider_entry (the
# version script). The code shared with acmp (providers/shared/) and the
# protocol library are linked in, their symbols stay hidden behind it.
noinst_LTLIBRARIES += providers/sa/libsaprovider.la
providers_sa_libsaprovider_la_SOURCES = \
	providers/sa/sa_provider.h providers/sa/sa_provider.cc \
	providers/sa/sa_resolve.cc \
	providers/sa/sa_options.h providers/sa/sa_options.cc \
	providers/sa/query_budget.h providers/sa/query_budget.cc
# Users link these, in this order.
SA_PROVIDER_LIBS = providers/sa/libsaprovider.la providers/shared/libprovshared.la common/smdb/libssasmdb.la \
	$(SSA_MAD_LIBS)

provider_LTLIBRARIES += providers/sa/sa.la
providers_sa_sa_la_SOURCES = providers/sa/sa_entry.cc
providers_sa_sa_la_LDFLAGS = $(PROVIDER_LDFLAGS)
providers_sa_sa_la_LIBADD = $(SA_PROVIDER_LIBS)
EXTRA_providers_sa_sa_la_DEPENDENCIES = $(PROVIDER_MAP)

dist_man_MANS += man/ibacm_sa.7
