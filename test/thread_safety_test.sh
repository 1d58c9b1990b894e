#!/bin/sh
# thread_safety_test.sh: clang's thread-safety analysis accepts the
# product's locking (scripts/thread-safety.sh: GUARDED_BY / REQUIRES with
# common/base/mutex.h, no std lock without attributes). Run by `make
# check` in the build directory (config.h); skipped (exit 77) where clang
# is not installed. Ends with a CppUTest-style summary line, which
# scripts/count-tests.sh counts.
set -u
srcdir=${srcdir:-.}
out=$("$srcdir/scripts/thread-safety.sh" "$(pwd)" 2>&1)
rc=$?
printf '%s\n' "$out"
case $rc in
0) echo "OK (1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)" ;;
77) echo "SKIP: clang++ is not installed (Debian package clang)"; exit 77 ;;
*)
	echo "FAIL: the thread-safety analysis failed above"
	echo "Errors (1 failures, 1 tests, 1 ran, 1 checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 1
	;;
esac
