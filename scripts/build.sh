#!/bin/bash
# build.sh [--sanitizers|--tsan]: configure and build ibacm-ssa out of tree in
# build/ (or build-asan/ with ASan+UBSan, build-tsan/ with ThreadSanitizer). Re-running only rebuilds what
# changed. Prints the build directory on its last line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$top/build
configure_args=()
if [ "${1:-}" = --sanitizers ]; then
	builddir=$top/build-asan
	configure_args+=(--enable-sanitizers)
elif [ "${1:-}" = --tsan ]; then
	builddir=$top/build-tsan
	configure_args+=(--enable-tsan)
fi
cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ -n "$(find . -name local.mk -newer configure -print -quit)" ] || [ Makefile.am -nt configure ]; then
	echo "build: autoreconf" >&2
	autoreconf -fi >&2 2>&1 | grep -v "cannot remove 'core'" >&2 || true
fi
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ]; then
	echo "build: configure ${configure_args[*]:-}" >&2
	"$top/configure" -q "${configure_args[@]}" 2>&1 | grep -v "cannot remove 'core'" >&2 || true
	[ -f Makefile ] || { echo "build: configure failed; see $builddir/config.log" >&2; exit 1; }
fi
# The directories compiled in (AM_CPPFLAGS' -D flags: providers, /etc/rdma)
# are no dependency of the objects: when configure changed them (a new
# --prefix, or its default), rebuild from clean.
if [ -x core/ibacm ]; then
	confdir=$(printf 'print-confdir:\n\t@echo $(ssaconfdir)\n' | make -s -f Makefile -f - print-confdir)
	# grep reads all (no -q): under pipefail an early exit fails the pipe.
	if ! strings core/ibacm | grep -xF "$confdir" >/dev/null; then
		echo "build: the configured directories changed ($confdir): make clean" >&2
		make clean >/dev/null
	fi
fi
echo "build: make -j2" >&2
make -j2 >&2
echo "$builddir"
