#!/bin/bash
# test.sh: install what is needed, build, and run the whole test suite (unit
# and integration tests on the simulated fabric). Ends with one line
# "N passed, N failed" and exits non-zero on any failure.
#   --sanitizers   build and test with ASan+UBSan (in build-asan/)
#   --tsan         build and test with ThreadSanitizer (in build-tsan/)
#   --no-setup     skip the Debian package check
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
setup=1
build_args=()
for arg in "$@"; do
	case "$arg" in
	--sanitizers) build_args+=(--sanitizers) ;;
	--tsan) build_args+=(--tsan) ;;
	--no-setup) setup=0 ;;
	*) echo "usage: $0 [--sanitizers|--tsan] [--no-setup]" >&2; exit 2 ;;
	esac
done
if [ "$setup" = 1 ]; then
	"$top/scripts/setup-debian.sh" || { echo "0 passed, 1 failed"; exit 1; }
fi
builddir=$("$top/scripts/build.sh" "${build_args[@]}" | tail -n1) || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
cd "$builddir"
# Old results must not be counted again.
find . -name '*.trs' -delete
make -j2 check >make-check.out 2>&1
check_rc=$?
grep -E '^(PASS|FAIL|ERROR|SKIP|XFAIL|XPASS):' make-check.out
if [ "$check_rc" -ne 0 ]; then
	echo "make check failed (exit $check_rc); logs: $builddir/**/*.log" >&2
	grep -E 'error:|Error [0-9]' make-check.out | head -20 >&2
	# The failing cases and their assertions go to stdout too: a CI record
	# that keeps only the output's end must still name what failed.
	for log in $(grep -lE '^(FAIL|ERROR)' $(find . -name '*.trs') 2>/dev/null); do
		echo "---- ${log%.trs}.log (failures) ----"
		grep -A4 -E '^[^ ]*:[0-9]+: error: Failure in TEST|^(Errors|OK) \(' "${log%.trs}.log" | tail -n 30
		echo "---- ${log%.trs}.log (tail) ----" >&2
		tail -n 40 "${log%.trs}.log" >&2
	done
fi
"$top/scripts/count-tests.sh" "$builddir" "$check_rc"
count_rc=$?
[ "$check_rc" -eq 0 ] && [ "$count_rc" -eq 0 ]
