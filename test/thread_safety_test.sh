#!/bin/sh
# thread_safety_test.sh: clang's thread-safety analysis accepts the
# product's locking (scripts/thread-safety.sh: GUARDED_BY / REQUIRES with
# common/base/mutex.h, no std lock without attributes). Run by `make
# check` in the build directory (config.h); skipped where clang is not
# installed.
set -u
srcdir=${srcdir:-.}
. "$srcdir/test/script_check.sh"
script_check "the thread-safety analysis failed above" \
	"clang++ is not installed (Debian package clang)" \
	"$srcdir/scripts/thread-safety.sh" "$(pwd)"
