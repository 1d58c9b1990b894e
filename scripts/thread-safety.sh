#!/bin/bash
# thread-safety.sh [BUILDDIR]: clang's thread-safety analysis over the
# product's C++ (-fsyntax-only -Wthread-safety, as errors), so the
# GUARDED_BY / REQUIRES rules written with common/base/mutex.h hold at
# compile time. Checks every .cc that includes mutex.h directly or through
# its headers, and that no production C++ uses std::mutex,
# std::lock_guard, std::unique_lock or std::condition_variable directly
# (they carry no attributes: use Mutex, MutexLock, CondVar). The C code's
# pthread mutexes (libibssa_path, the plugin's osm_handle.h) are outside
# the analysis. BUILDDIR (default build/) gives config.h. Prints the
# failures, then `thread-safety: N files, N failed`; exits 1 on any, 77
# when clang++ is not installed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${1:-$top/build}
clangxx=$(command -v clang++ || command -v clang++-14) || {
	echo "thread-safety: clang++ is not installed (Debian package clang)" >&2
	exit 77
}
[ -f "$builddir/config.h" ] || { echo "thread-safety: no $builddir/config.h: configure first" >&2; exit 1; }
cd "$top"
dirs=(common core distrib providers opensm_plugin util)
sources=$(find "${dirs[@]}" -name '*.cc' -o -name '*.h' | sort)
failed=0

raw=$(grep -nE 'std::(mutex|lock_guard|unique_lock|scoped_lock|condition_variable)\b' $sources |
	grep -vE '^common/base/(mutex|thread_annotations)\.h:')
if [ -n "$raw" ]; then
	printf '%s\n' "$raw" | sed 's/^/thread-safety: a std lock without attributes (use common\/base\/mutex.h): /' >&2
	failed=$((failed + $(printf '%s\n' "$raw" | wc -l)))
fi

# The files that see mutex.h: grow the set by the files including one in it.
seen="common/base/mutex.h"
frontier=$seen
while [ -n "$frontier" ]; do
	pattern=$(printf '#include "%s"\n' $frontier)
	next=$(grep -lF "$pattern" $sources | grep -vxF "$seen" || true)
	seen=$(printf '%s\n%s\n' "$seen" "$next" | sort -u)
	frontier=$next
done
files=$(printf '%s\n' $seen | grep '\.cc$')

flags=(-std=c++17 -fsyntax-only -Wthread-safety -Wthread-safety-beta -Werror=thread-safety
	-Wno-unknown-warning-option -DHAVE_CONFIG_H -I"$top" -I"$builddir" -I"$top/include"
	-I/usr/include/infiniband -DPROVIDER_DIR='""' -DSYSCONF_DIR='""' -DLOCALSTATE_DIR='""'
	-DRUNSTATE_DIR='""' -DUPSTREAM_PROVIDER_DIR='""')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The analysis must be on with these flags: an unguarded write must fail.
printf '%s\n' '#include "common/base/mutex.h"' \
	'struct S { ssa::Mutex mu; int n GUARDED_BY(mu) = 0; void Bad() { n = 1; } };' >"$out/self.cc"
if "$clangxx" "${flags[@]}" "$out/self.cc" >/dev/null 2>&1; then
	echo "thread-safety: clang accepted an unguarded write: the analysis is not active" >&2
	echo "thread-safety: 0 files, 1 failed"
	exit 1
fi

export clangxx out
printf '%s\n' $files | xargs -P "$(nproc)" -I{} sh -c \
	'"$clangxx" "$@" {} >"$out/$(echo {} | tr / _).log" 2>&1 || echo {} >>"$out/failed"' sh "${flags[@]}"
total=$(printf '%s\n' $files | wc -l)
if [ -f "$out/failed" ]; then
	while read -r f; do
		echo "thread-safety: $f" >&2
		grep -E 'error|warning' "$out/$(echo "$f" | tr / _).log" | head -20 >&2
		failed=$((failed + 1))
	done <"$out/failed"
fi
echo "thread-safety: $total files, $failed failed"
[ "$failed" -eq 0 ]
