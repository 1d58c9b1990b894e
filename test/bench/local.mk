# test/bench/: benchmark programs. They print figures (side by side, as
# ratios); they are not tests and make check does not run them.
#   make bench && test/bench/bench_resolve
EXTRA_PROGRAMS += test/bench/bench_resolve
test_bench_bench_resolve_SOURCES = \
	test/bench/bench_resolve.cc \
	test/bench/null_acm_server.h test/bench/null_acm_server.cc \
	test/sim/ibacm_node.h test/sim/ibacm_node.cc
test_bench_bench_resolve_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
test_bench_bench_resolve_LDADD = core/libibacmcore.la test/sim/libsimfab.la common/libssacommon.la

bench_programs = test/bench/bench_resolve
bench: $(bench_programs) all
.PHONY: bench
CLEANFILES += $(bench_programs)
