#!/bin/sh
# run-fuzzers.sh: the `make check` face of the libFuzzer targets in
# test/fuzz/. Runs each fuzzer for a bounded time on a scratch copy of its
# seed corpus (test/fuzz/corpus/<name>/) and prints one CppUTest-style
# summary line, so scripts/count-tests.sh counts each fuzzer as one test:
#   OK (1 tests, 1 ran, ...)   or   Errors (1 failures, 1 tests, 1 ran, ...)
# Exit: 0 all clean, 1 a fuzzer crashed or found a bug (its reproducer is
# kept under test/fuzz/artifacts/), 77 (automake SKIP) when the fuzzers were
# not built because configure found no clang++.
#
# Runs from the top build directory; automake exports $srcdir (the top
# source directory). FUZZ_RUNS and FUZZ_MAX_TIME override the bounds.
set -u

srcdir=${srcdir:-$(dirname "$0")/../..}
runs=${FUZZ_RUNS:-200000}
max_time=${FUZZ_MAX_TIME:-60}
fuzzers="acm_msg smdb acmp_msg ssa_mad tree_frame config netlink shm_prdb ibssa_path"

missing=""
for name in $fuzzers; do
	[ -x "test/fuzz/${name}_fuzzer" ] || missing="$missing $name"
done
if [ -n "$missing" ]; then
	echo "SKIP: fuzzers not built:$missing (configure found no clang++; install Debian packages clang libclang-rt-14-dev)"
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ibacm-ssa-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

total=0
failed=0
start=$(date +%s)
for name in $fuzzers; do
	total=$((total + 1))
	seeds="$srcdir/test/fuzz/corpus/$name"
	corpus="$work/$name"
	mkdir -p "$corpus" "$work/artifacts"
	# A copy: libFuzzer adds what it finds to the first corpus directory,
	# and the source tree may be read-only (make distcheck).
	cp "$seeds"/* "$corpus"/ 2>/dev/null || echo "warning: no seeds in $seeds"
	echo "== $name: -runs=$runs -max_total_time=$max_time"
	# libFuzzer exits 77 on a crash by default, which automake would read as
	# SKIP: make every failure exit 1 instead.
	"./test/fuzz/${name}_fuzzer" -runs="$runs" -max_total_time="$max_time" \
		-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$work/artifacts/${name}-" -print_final_stats=1 \
		"$corpus" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		mkdir -p test/fuzz/artifacts
		cp "$work/artifacts/${name}-"* test/fuzz/artifacts/ 2>/dev/null
		echo "FAILED: $name fuzzer exited $rc; reproduce with: ./test/fuzz/${name}_fuzzer test/fuzz/artifacts/${name}-*"
	else
		echo "passed: $name"
	fi
done
ms=$(( ($(date +%s) - start) * 1000 ))

if [ "$failed" -eq 0 ]; then
	echo "OK ($total tests, $total ran, $total checks, 0 ignored, 0 filtered out, $ms ms)"
	exit 0
fi
echo "Errors ($failed failures, $total tests, $total ran, $total checks, 0 ignored, 0 filtered out, $ms ms)"
exit 1
