# examples/grafana/: a Grafana dashboard on the daemons' metrics files
# (ibacm_*, ibssa_*, ibssa_core_*), installed with the examples and shipped
# in the ibssa package. Its test checks the JSON and that every metric a
# query names is one the code writes.
grafanadir = $(docdir)/examples/grafana
dist_grafana_DATA = examples/grafana/ibacm-ssa.json
TESTS += test/grafana_dashboard_test.sh
EXTRA_DIST += test/grafana_dashboard_test.sh
