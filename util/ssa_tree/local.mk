# util/ssa_tree/: ssa-tree (the tree as the core sees it) and ssa-consumer
# (a consumer that dumps the PRDB it holds); thin programs over common/tree.
noinst_LTLIBRARIES += util/ssa_tree/libtreeview.la
util_ssa_tree_libtreeview_la_SOURCES = util/ssa_tree/tree_view.h util/ssa_tree/tree_view.cc \
	util/ssa_tree/tree_check.h util/ssa_tree/tree_check.cc

bin_PROGRAMS += util/ssa_tree/ssa-tree util/ssa_tree/ssa-consumer
util_ssa_tree_ssa_tree_SOURCES = util/ssa_tree/tree_main.cc
util_ssa_tree_ssa_tree_LDADD = util/ssa_tree/libtreeview.la common/metrics/libssametrics.la \
	$(SSA_TREE_LIBS)
util_ssa_tree_ssa_consumer_SOURCES = util/ssa_tree/consumer_main.cc
util_ssa_tree_ssa_consumer_LDADD = $(SSA_TREE_LIBS)

dist_man_MANS += man/ssa-tree.1 man/ssa-consumer.1
