# common/metrics/: the daemons' metrics in the Prometheus text format,
# written as files for node_exporter's textfile collector (no HTTP server
# in the daemons). Builds on common/base only.
noinst_LTLIBRARIES += common/metrics/libssametrics.la
common_metrics_libssametrics_la_SOURCES = \
	common/metrics/prom_text.h common/metrics/prom_text.cc \
	common/metrics/metrics_file.h common/metrics/metrics_file.cc
