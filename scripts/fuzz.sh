#!/bin/bash
# fuzz.sh --long MINUTES [TARGET...]: long runs of the libFuzzer targets in
# test/fuzz/, beyond the bounded ones `make check` does (run-fuzzers.sh).
# fuzz.sh --runs N [TARGET...]: the same, N executions per target instead of
# a time (e.g. --runs 10000000 for the recorded runs in doc/performance.md).
#
# Builds the targets with the build directory's make rules (build/, running
# scripts/build.sh first if it is not configured; configure must have found
# clang++), then runs each TARGET for MINUTES minutes (decimals allowed), one
# after the other: every target of run-fuzzers.sh when none is named
# (acm_msg smdb acmp_msg ssa_mad tree_frame netlink shm_prdb; "ssa_mad" and "ssa_mad_fuzzer"
# both work). Each run starts from the committed seeds
# (test/fuzz/corpus/<name>/, read only) and from what earlier long runs
# found, kept in build/test/fuzz/long-corpus/<name>/; its full libFuzzer
# output (-print_final_stats=1) goes to build/test/fuzz/long-<name>.log.
#
# Prints one line per target: executions, crashes (0 expected: libFuzzer
# stops at the first crash, timeout, leak or out-of-memory), coverage (the
# last cov/ft libFuzzer printed: covered edges and features) and corpus
# size. A crash's reproducer is kept in build/test/fuzz/artifacts/long-*/;
# rerun it with ./build/test/fuzz/<name>_fuzzer <file>.
#
# Exit: 0 no crash, 1 a target crashed (or could not be built or run),
# 2 usage. FUZZ_BUILDDIR overrides the build directory.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${FUZZ_BUILDDIR:-$top/build}

usage() {
	echo "usage: $0 --long MINUTES | --runs N [TARGET...]" >&2
	echo "  targets: $all" >&2
	exit 2
}

all=$(sed -n 's/^fuzzers="\(.*\)"$/\1/p' "$top/test/fuzz/run-fuzzers.sh")
[ -n "$all" ] || { echo "fuzz.sh: no fuzzer list in test/fuzz/run-fuzzers.sh" >&2; exit 1; }
if [ $# -lt 2 ] || { [ "$1" != --long ] && [ "$1" != --runs ]; }; then usage; fi
if [ "$1" = --runs ]; then
	runs=$2
	[[ $runs =~ ^[1-9][0-9]*$ ]] || usage
	bound="-runs=$runs"
	what="$runs executions"
else
	minutes=$2
	[[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage
	bound="-max_total_time=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 + 0.5); print s < 1 ? 1 : s }')"
	what="$minutes min"
fi
shift 2

targets=""
for arg in "${@:-$all}"; do
	for name in $arg; do
		name=${name%_fuzzer}
		case " $all " in
		*" $name "*) targets="$targets $name" ;;
		*) echo "fuzz.sh: unknown target '$name'" >&2; usage ;;
		esac
	done
done

if [ ! -f "$builddir/Makefile" ]; then
	"$top/scripts/build.sh" >/dev/null || { echo "fuzz.sh: build failed" >&2; exit 1; }
fi
if ! grep -q '^CLANGXX = ..*' "$builddir/Makefile"; then
	echo "fuzz.sh: configure found no clang++ (install Debian packages clang libclang-rt-14-dev and rerun scripts/build.sh)" >&2
	exit 1
fi
make_targets=""
for name in $targets; do make_targets="$make_targets test/fuzz/${name}_fuzzer"; done
echo "fuzz.sh: building$make_targets" >&2
# shellcheck disable=SC2086
make -C "$builddir" -j2 $make_targets >&2 || { echo "fuzz.sh: building the fuzzers failed" >&2; exit 1; }

artifacts=$builddir/test/fuzz/artifacts/long-$(date +%Y%m%d-%H%M%S)
mkdir -p "$artifacts"
failed=0
summary=""
for name in $targets; do
	corpus=$builddir/test/fuzz/long-corpus/$name
	log=$builddir/test/fuzz/long-$name.log
	mkdir -p "$corpus"
	echo "== ${name}_fuzzer: $what; log $log" >&2
	# The first corpus directory is where libFuzzer adds what it finds; the
	# seeds are only read.
	"$builddir/test/fuzz/${name}_fuzzer" "$bound" -print_final_stats=1 \
		-error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$artifacts/${name}-" "$corpus" "$top/test/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n1)
	cov=$(sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/\1 \2 \3/p' "$log" | tail -n1)
	read -r cov_edges cov_ft corp <<<"${cov:-? ? ?}"
	crashes=$(find "$artifacts" -name "${name}-*" -type f | wc -l)
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes=1; fi  # died without a reproducer
	line=$(printf '%-20s executions %-10s crashes %s  cov %s ft %s  corpus %s' \
		"${name}_fuzzer" "${execs:-?}" "$crashes" "$cov_edges" "$cov_ft" "$corp")
	echo "$line"
	summary="$summary$line"$'\n'
	if [ "$rc" -ne 0 ]; then
		failed=$((failed + 1))
		grep -m3 -E 'FUZZ_CHECK failed|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|runtime error' "$log" | sed 's/^/    /'
		find "$artifacts" -name "${name}-*" -type f | while read -r f; do
			echo "    reproduce: $builddir/test/fuzz/${name}_fuzzer $f"
		done
		echo "    log: $log"
	fi
done
rmdir "$artifacts" 2>/dev/null

echo "---- $what per target"
printf '%s' "$summary"
ntargets=$(echo "$targets" | wc -w)
if [ "$failed" -ne 0 ]; then
	echo "FAILED: $failed of $ntargets targets crashed"
	exit 1
fi
echo "OK: $ntargets targets, no crash"
exit 0
