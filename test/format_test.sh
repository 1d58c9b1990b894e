#!/bin/sh
# format_test.sh: every C and C++ file of the source tree is formatted in
# the house style (scripts/format.sh --check: clang-format 14 with the
# project's .clang-format files). Run by `make check`; skipped where
# clang-format 14 is not installed.
set -u
srcdir=${srcdir:-.}
. "$srcdir/test/script_check.sh"
script_check "unformatted files above; scripts/format.sh formats them" \
	"clang-format 14 is not installed (Debian package clang-format)" \
	"$srcdir/scripts/format.sh" --check
