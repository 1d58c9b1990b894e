#!/bin/bash
# count-tests.sh BUILD_DIR [MAKE_CHECK_EXIT]: adds up the test cases of the last `make check`
# into the one line "N passed, N failed" (", N skipped" when some were).
#
# Every test program prints a CppUTest summary:
#   OK (12 tests, 12 ran, 40 checks, 0 ignored, 0 filtered out, 5 ms)
#   Errors (2 failures, 12 tests, 12 ran, 40 checks, ...)
# A program that failed without printing one (a crash, a timeout) counts as
# one failed test case, so a broken binary can never pass unnoticed.
# Exits 0 only when nothing failed and at least one test ran.
set -u
build=${1:-.}
make_rc=${2:-0}   # exit status of make check: a build error counts as a failure
passed=0 failed=0 skipped=0
shopt -s nullglob globstar
for trs in "$build"/**/*.trs; do
	log=${trs%.trs}.log
	result=$(sed -n 's/^:test-result: //p' "$trs" | head -n1)
	summary=$(grep -E '^(OK|Errors) \([0-9]+ (tests|failures)' "$log" 2>/dev/null | tail -n1)
	if [ "$result" = SKIP ]; then
		skipped=$((skipped + 1))
		continue
	fi
	if [[ $summary =~ ^OK\ \(([0-9]+)\ tests,\ ([0-9]+)\ ran ]]; then
		passed=$((passed + BASH_REMATCH[2]))
		[ "$result" = PASS ] || { failed=$((failed + 1)); echo "count-tests: $log: summary OK but result $result" >&2; }
	elif [[ $summary =~ ^Errors\ \(([0-9]+)\ failures,\ ([0-9]+)\ tests,\ ([0-9]+)\ ran ]]; then
		failed=$((failed + BASH_REMATCH[1]))
		passed=$((passed + BASH_REMATCH[3] - BASH_REMATCH[1]))
	else
		failed=$((failed + 1))
		echo "count-tests: $log: no test summary (result: ${result:-none}); counted as one failure" >&2
	fi
done
if [ "$make_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "count-tests: make check failed (exit $make_rc) without a failing test: a build error?" >&2
	failed=1
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
