# distrib/: the ibssa daemon (distribution and access roles of the SSA
# tree). Its objects live in a convenience library so tests link the same
# code; main.cc alone makes the program.
noinst_LTLIBRARIES += distrib/libibssa.la
distrib_libibssa_la_SOURCES = \
	distrib/ibssa_options.h distrib/ibssa_options.cc \
	distrib/prdb_service.h distrib/prdb_service.cc \
	distrib/route_sl_client.h distrib/route_sl_client.cc \
	distrib/ibssa_member.h distrib/ibssa_member.cc distrib/ibssa_metrics.cc \
	distrib/ibssa_daemon.h distrib/ibssa_daemon.cc \
	distrib/plugin_check.h distrib/plugin_check.cc

sbin_PROGRAMS += distrib/ibssa
distrib_ibssa_SOURCES = distrib/main.cc
distrib_ibssa_LDADD = distrib/libibssa.la opensm_plugin/libosmoptions.la \
	common/metrics/libssametrics.la $(SSA_TREE_LIBS)

dist_man_MANS += man/ibssa.8 man/ibssa_opts.cfg.5
dist_sample_DATA += etc/ibssa_opts.cfg
