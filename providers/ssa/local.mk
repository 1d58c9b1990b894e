# providers/ssa/: the "ssa" provider (path records from the PRDB the SSA
# tree delivers, the sa provider's code for the rest), installed into the
# daemon's default provider directory ($(providerdir)).
#
# As for sa: the convenience library libssaprovider.la (tests link it) and
# ssa.la, that plus the C ABI entry, exporting only ssa_provider_entry.
noinst_LTLIBRARIES += providers/ssa/libssaprovider.la
providers_ssa_libssaprovider_la_SOURCES = \
	providers/ssa/ssa_provider.h providers/ssa/ssa_provider.cc providers/ssa/ssa_metrics.cc \
	providers/ssa/ssa_options.h providers/ssa/ssa_options.cc \
	providers/ssa/fallback_jitter.h providers/ssa/fallback_jitter.cc \
	providers/ssa/prdb_view.h providers/ssa/prdb_view.cc \
	providers/ssa/view_answer.h providers/ssa/view_answer.cc providers/ssa/port_state.h \
	providers/ssa/confirmation.h providers/ssa/confirmation.cc \
	providers/ssa/tables_export.h providers/ssa/tables_export.cc providers/ssa/ssa_metrics.h \
	providers/ssa/view_builder.h providers/ssa/view_builder.cc \
	providers/ssa/shm_export.h providers/ssa/shm_export.cc
# Users link these, in this order.
SSA_PROVIDER_LIBS = providers/ssa/libssaprovider.la providers/sa/libsaprovider.la \
	providers/shared/libprovshared.la common/shm_prdb/libshmprdb.la common/answer/libanswer.la \
	$(SSA_TREE_LIBS)

provider_LTLIBRARIES += providers/ssa/ssa.la
providers_ssa_ssa_la_SOURCES = providers/ssa/ssa_entry.cc
providers_ssa_ssa_la_LDFLAGS = $(PROVIDER_LDFLAGS)
providers_ssa_ssa_la_LIBADD = $(SSA_PROVIDER_LIBS)
EXTRA_providers_ssa_ssa_la_DEPENDENCIES = $(PROVIDER_MAP)

dist_man_MANS += man/ibacm_ssa.7
