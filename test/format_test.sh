#!/bin/sh
# format_test.sh: every C and C++ file of the source tree is formatted in
# the house style (scripts/format.sh --check: clang-format 14 with the
# project's .clang-format files). Run by `make check`; skipped (exit 77)
# where clang-format 14 is not installed. Ends with a CppUTest-style
# summary line, which scripts/count-tests.sh counts.
set -u
srcdir=${srcdir:-.}
out=$("$srcdir/scripts/format.sh" --check)
rc=$?
printf '%s\n' "$out"
case $rc in
0) echo "OK (1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)" ;;
77) echo "SKIP: clang-format 14 is not installed (Debian package clang-format)"; exit 77 ;;
*)
	echo "FAIL: unformatted files above; scripts/format.sh formats them"
	echo "Errors (1 failures, 1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 1
	;;
esac
