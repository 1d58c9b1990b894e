# util/ib_acme/: our ib_acme, upstream's options and output plus provider
# testing; a thin program over common/. Everything but main() is the
# convenience library libacme.la, which the unit tests link too.
noinst_LTLIBRARIES += util/ib_acme/libacme.la
util_ib_acme_libacme_la_SOURCES = \
	util/ib_acme/acme_options.h util/ib_acme/acme_options.cc \
	util/ib_acme/acme_usage.h util/ib_acme/acme_usage.cc \
	util/ib_acme/acme_output.h util/ib_acme/acme_output.cc \
	util/ib_acme/acme_address.h util/ib_acme/acme_address.cc \
	util/ib_acme/range_list.h util/ib_acme/range_list.cc \
	util/ib_acme/service_query.h util/ib_acme/service_query.cc \
	util/ib_acme/config_files.h util/ib_acme/config_files.cc \
	util/ib_acme/address_file.h util/ib_acme/address_file.cc \
	util/ib_acme/options_template.cc \
	util/ib_acme/latency_stats.h util/ib_acme/latency_stats.cc \
	util/ib_acme/path_compare.h util/ib_acme/path_compare.cc \
	util/ib_acme/check_targets.h util/ib_acme/check_targets.cc \
	util/ib_acme/path_verifier.h util/ib_acme/path_verifier.cc \
	util/ib_acme/check_report.h util/ib_acme/check_report.cc \
	util/ib_acme/provider_check.h util/ib_acme/provider_check.cc \
	util/ib_acme/shm_resolver.h util/ib_acme/shm_resolver.cc
# Users link these, in this order.
ACME_LIBS = util/ib_acme/libacme.la common/acm/libssaacm.la $(IBSSA_PATH_LIBS) $(SSA_MAD_LIBS)

bin_PROGRAMS += util/ib_acme/ib_acme
util_ib_acme_ib_acme_SOURCES = util/ib_acme/main.cc
util_ib_acme_ib_acme_LDADD = $(ACME_LIBS)

# -O writes etc/acm_opts.cfg. The file is turned into a C byte list in the
# build directory, so the template has one source of truth and a changed
# file rebuilds ib_acme.
util/ib_acme/acm_opts_template.h: $(top_srcdir)/etc/acm_opts.cfg
	$(AM_V_GEN)$(MKDIR_P) util/ib_acme && \
	od -An -v -tx1 $(top_srcdir)/etc/acm_opts.cfg | \
	  sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g' > $@.tmp && mv $@.tmp $@
util/ib_acme/options_template.lo: util/ib_acme/acm_opts_template.h
CLEANFILES += util/ib_acme/acm_opts_template.h

dist_man_MANS += man/ib_acme.1
