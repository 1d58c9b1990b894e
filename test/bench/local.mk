# test/bench/: benchmark programs. They print figures (side by side, as
# ratios); they are not tests and make check does not run them.
#   make bench && test/bench/bench_resolve
# What several of them share: the source tree's build directory (caches,
# programs to run) and the stand-in acm.h server.
BENCH_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
BENCH_ACM_SERVER_SOURCES = test/bench/null_acm_server.h test/bench/null_acm_server.cc
EXTRA_PROGRAMS += test/bench/bench_resolve
test_bench_bench_resolve_SOURCES = \
	test/bench/bench_resolve.cc \
	$(BENCH_ACM_SERVER_SOURCES) \
	test/bench/shm_contender.h test/bench/shm_contender.cc \
	test/bench/resolve_flood.h test/bench/resolve_flood.cc
test_bench_bench_resolve_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_resolve_LDADD = core/libibacmcore.la $(SIM_HARNESS_LIBS) $(IBSSA_PATH_LIBS) \
	$(SSA_ALL_LIBS)

bench_programs = test/bench/bench_resolve
if WITH_OPENSM
# Its ssa provider contender runs a tree: the plugin as core, an ibssa.
EXTRA_test_bench_bench_resolve_DEPENDENCIES = opensm_plugin/libibssa_osm.la distrib/ibssa \
	providers/ssa/ssa.la
endif
# `all` first, then the programs in a second make: listed side by side,
# make -j2 built the libraries' objects from both at once (a race that
# truncated an archive).
bench: all
	$(MAKE) $(AM_MAKEFLAGS) $(bench_programs)
.PHONY: bench
CLEANFILES += $(bench_programs)

# bench_fallback: SA queries a second from N consumers (the ssa provider in
# this process on fake cores and a virtual clock) in the first minute after
# the tree goes away, with and without the fallback's bound.
EXTRA_PROGRAMS += test/bench/bench_fallback
test_bench_bench_fallback_SOURCES = test/bench/bench_fallback.cc
test_bench_bench_fallback_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_fallback_LDADD = $(TEST_SUPPORT_LIBS) $(SSA_PROVIDER_LIBS) $(SSA_ALL_LIBS)
bench_programs += test/bench/bench_fallback

# bench_extract: the OpenSM plugin's time under OpenSM's lock vs OpenSM's
# heavy sweep, on 2,000 and 10,000-HCA fat trees.
if WITH_OPENSM
EXTRA_PROGRAMS += test/bench/bench_extract
test_bench_bench_extract_SOURCES = \
	test/bench/bench_extract.cc
test_bench_bench_extract_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_extract_LDADD = $(SIM_HARNESS_LIBS) $(SSA_ALL_LIBS)
EXTRA_test_bench_bench_extract_DEPENDENCIES = opensm_plugin/libibssa_osm.la
bench_programs += test/bench/bench_extract
endif

# bench_engine: the path-record engine vs the SA on a 2,000-HCA fat tree
# whose OpenSM loads the plugin; the SA side runs util/smdb_tool/ssa-smdb.
if WITH_OPENSM
EXTRA_PROGRAMS += test/bench/bench_engine
test_bench_bench_engine_SOURCES = \
	test/bench/bench_engine.cc
test_bench_bench_engine_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_engine_LDADD = $(SIM_HARNESS_LIBS) $(SSA_ALL_LIBS)
EXTRA_test_bench_bench_engine_DEPENDENCIES = opensm_plugin/libibssa_osm.la util/smdb_tool/ssa-smdb
bench_programs += test/bench/bench_engine
endif

# bench_tree: the whole SSA tree on this machine (core, distribution and
# access nodes in one process, N consumers in child processes; MADs through
# bridged in-process fabrics, data over loopback TCP) on the
# SMDBs of an N-HCA fat tree before and after a link goes down, made with
# OpenSM and the plugin and cached under test/bench/bench_tree.cache/.
# The tree itself (tree_bench.h), which bench_federation runs too.
TREE_BENCH_SOURCES = \
	test/bench/tree_bench.h test/bench/tree_bench.cc test/bench/tree_bench_child.cc \
	test/bench/tree_bench_util.h test/bench/tree_bench_util.cc \
	test/bench/mad_bridge.cc \
	test/bench/mad_bridge.h \
	test/bench/smdb_pair_cache.h test/bench/smdb_pair_cache.cc \
	test/bench/thread_cpu.h test/bench/thread_cpu.cc
if WITH_OPENSM
EXTRA_PROGRAMS += test/bench/bench_tree
test_bench_bench_tree_SOURCES = \
	test/bench/bench_tree.cc \
	$(TREE_BENCH_SOURCES) \
	test/bench/access_update.h test/bench/access_update.cc \
	test/bench/tree_pieces.h test/bench/tree_pieces.cc \
	test/bench/first_touch.h test/bench/first_touch.cc
test_bench_bench_tree_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_tree_LDADD = distrib/libibssa.la providers/ssa/libssaprovider.la common/shm_prdb/libshmprdb.la common/answer/libanswer.la \
	$(SIM_HARNESS_LIBS) $(SSA_ALL_LIBS)
EXTRA_test_bench_bench_tree_DEPENDENCIES = opensm_plugin/libibssa_osm.la
bench_programs += test/bench/bench_tree
endif

# bench_jobstart: --procs processes each resolving every LID of the cached
# 10,000-HCA SMDB (smdb_pair_cache.h, shared with bench_tree) through the
# acm.h socket and through libibssa_path, interleaved: the processes' CPU
# and wall time side by side. The daemon is a stand-in fed the PRDB
# directly (NullAcmServer with a path source, the ssa provider's
# ShmExport).
if WITH_OPENSM
EXTRA_PROGRAMS += test/bench/bench_jobstart
test_bench_bench_jobstart_SOURCES = \
	test/bench/bench_jobstart.cc \
	$(BENCH_ACM_SERVER_SOURCES) \
	test/bench/smdb_pair_cache.h test/bench/smdb_pair_cache.cc \
	test/bench/thread_cpu.h test/bench/thread_cpu.cc \
	test/bench/first_touch.h test/bench/first_touch.cc
test_bench_bench_jobstart_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_jobstart_LDADD = core/libibacmcore.la $(SSA_PROVIDER_LIBS) $(SIM_HARNESS_LIBS) \
	$(IBSSA_PATH_LIBS) $(SSA_ALL_LIBS)
EXTRA_test_bench_bench_jobstart_DEPENDENCIES = opensm_plugin/libibssa_osm.la
bench_programs += test/bench/bench_jobstart
endif

# callgrind.sh: instruction counts of the CPU-bound pieces (bench_tree
# --pieces under valgrind's callgrind); `make bench-callgrind` runs it.
EXTRA_DIST += test/bench/callgrind.sh
bench-callgrind: bench
	$(SHELL) $(srcdir)/test/bench/callgrind.sh $(abs_top_builddir)
.PHONY: bench-callgrind

# bench_federation: three federated subnets (issue 48 step 3): the
# federation link's bytes for a node leaving B, the time from that change
# to every consumer of A holding it (A's tree as bench_tree runs it), and a
# consumer's PRDB with the remote prefixes' rows against one subnet's.
if WITH_OPENSM
EXTRA_PROGRAMS += test/bench/bench_federation
test_bench_bench_federation_SOURCES = test/bench/bench_federation.cc $(TREE_BENCH_SOURCES)
test_bench_bench_federation_CPPFLAGS = $(BENCH_CPPFLAGS)
test_bench_bench_federation_LDADD = opensm_plugin/libosmplugin.la opensm_plugin/libosmoptions.la \
	distrib/libibssa.la providers/ssa/libssaprovider.la common/shm_prdb/libshmprdb.la \
	common/answer/libanswer.la $(SIM_HARNESS_LIBS) $(SSA_ALL_LIBS)
EXTRA_test_bench_bench_federation_DEPENDENCIES = opensm_plugin/libibssa_osm.la
bench_programs += test/bench/bench_federation
endif
