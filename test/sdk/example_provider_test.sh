#!/bin/bash
# example_provider_test.sh: the provider SDK as an author uses it. Installs
# the project with `make install DESTDIR=<scratch root>`, builds
# examples/provider/ with its own Makefile against that root only (pkg-config
# with PKG_CONFIG_PATH and PKG_CONFIG_SYSROOT_DIR pointing into it),
# installs the provider into the root's provider directory, then runs the
# installed ibacm on a simulated fabric (test/sim, simfab) with
# "provider = pathfile default" and asks the installed ib_acme for paths:
# LID and GID destinations, a path query (-v), provider testing (-T), an
# unknown destination, and a bad line of the path file. The libibssa_path
# example (examples/shm_path/) is built the same way; against the example
# provider, which publishes no tables, it gets its answers from the socket.
#
# Runs from the top build directory under `make check` (automake exports
# srcdir); by hand: cd build && srcdir=.. ../test/sdk/example_provider_test.sh
set -uo pipefail
# shellcheck source=test/sdk/lib.sh
source "${srcdir:-$(dirname "$0")/../..}/test/sdk/lib.sh"

if [ "${1:-}" != --on-fabric ]; then
	sdk_scratch sdk
	root=$work/root

	# A nested make must not join the jobserver of the `make check` around us.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$builddir" install DESTDIR="$root" \
		>"$work/install.log" 2>&1 || { tail -20 "$work/install.log"; fatal "make install DESTDIR"; }
	pc=$(find "$root" -name ibacm-ssa-prov.pc -print -quit)
	[ -n "$pc" ] || fatal "make install put no ibacm-ssa-prov.pc under $root"

	# The example is built in a copy: the source tree may be read-only.
	cp -r "$srcdir/examples/provider" "$work/example"
	chmod -R u+w "$work/example"
	export PKG_CONFIG_PATH=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$root
	unset PKG_CONFIG_LIBDIR
	provdir=$(pkg-config --variable=providerdir ibacm-ssa-prov)
	check "pkg-config finds the SDK in the staging root" \
		test -f "$(pkg-config --cflags ibacm-ssa-prov | sed 's/^-I//; s/ *$//')/ibacm_ssa/provider.h"
	check "the provider directory from pkg-config lies in the staging root" \
		test -f "$provdir/sa.so"
	(cd "$work/example" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make >"$work/example.log" 2>&1 &&
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make install >>"$work/example.log" 2>&1)
	check "the example builds and installs with its own Makefile" test $? -eq 0 ||
		cat "$work/example.log"
	check "the example exports only ssa_provider_entry" \
		test "$(nm -D --defined-only "$provdir/pathfile.so" 2>/dev/null | awk '{ print $3 }')" = ssa_provider_entry

	cp -r "$srcdir/examples/shm_path" "$work/shm_path"
	chmod -R u+w "$work/shm_path"
	# A sanitizer build's libibssa_path needs its runtime in the program
	# that loads it: the example is built with the same flags then.
	san=$(sed -n 's/^SANITIZER_FLAGS = //p' "$builddir/Makefile")
	(cd "$work/shm_path" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make ${san:+CFLAGS="-O2 -g $san" LDFLAGS="$san"} >"$work/shm_path.log" 2>&1)
	check "the libibssa_path example builds with its own Makefile (pkg-config ibssa-path)" \
		test $? -eq 0 || cat "$work/shm_path.log"

	export SDK_ROOT=$root SDK_PROVDIR=$provdir SDK_SHM_EXAMPLE=$work/shm_path/pathlookup
	run_on_fabric "$0"
fi

# --- on the simulated fabric (SIMFAB_DIR, SIMFAB_BIN set by simfab run) ---
root=$SDK_ROOT
provdir=$SDK_PROVDIR
ibacm=$(find "$root" -path '*/sbin/ibacm' -print -quit)
acme=$(find "$root" -path '*/bin/ib_acme' -print -quit)
[ -x "$ibacm" ] && [ -x "$acme" ] || fatal "no installed ibacm or ib_acme under $root"
on_fabric_exit

dir=$SIMFAB_DIR/pathfile
mkdir -p "$dir"
cat >"$dir/paths.txt" <<'PATHS'
# DGID                        DLID    SL  MTU   RATE
fe80::2:c903:0:a001           0x64    0   2048  40
fe80::2:c903:0:a002           0x65    3   4096  100
fe80::2:c903:0:a003           102     1   1024  10
fe80::2:c903:0:a004           103     1   999   10
PATHS
printf 'node2 ibsim0 1 default\n' >"$dir/addr.cfg"
printf '[core]\nlog_level = debug\nprovider = pathfile default\n[pathfile]\npath_file = %s\n' \
	"$dir/paths.txt" >"$dir/opts.cfg"
start_ibacm "$dir" "$ibacm" "$provdir" Hca2 || fatal "the installed ibacm did not start"
sock=$dir/run/ibacm-unix.sock

check "the installed ibacm loaded the example from the provider directory" \
	grep -q "provider 'pathfile' version 1 (ABI 1.5, [0-9]* bytes) loaded from $provdir/pathfile.so" "$dir/ibacm.log"
check "the example read 3 records, and the bad MTU line was reported with file and line" \
	grep -q "pathfile: 3 path records from $dir/paths.txt" "$dir/ibacm.log"
check "... the bad line's warning names paths.txt:5" grep -q "paths.txt:5.*MTU must be" "$dir/ibacm.log"
check "the port is served by pathfile" grep -q "port ibsim0/1 served by provider pathfile" "$dir/ibacm.log"

# field NAME: the value of "  NAME: value" in ib_acme's path output ($out).
field() { sed -n "s/^ *$1: *//p" <<<"$out" | head -n1; }
# path_is WHAT DLID DGID SL MTU RATE: the printed path has these fields,
# the source being the daemon's own port (LID 4 .. from the log).
path_is() {
	[ "$(field dlid)" = "$1" ] && [ "$(field dgid)" = "$2" ] && [ "$(field sl)" = "$3" ] &&
		[ "$(field mtu)" = "$4" ] && [ "$(field rate)" = "$5" ] &&
		[ "$(field slid)" = "$my_lid" ] && [ "$(field pkey)" = 0xffff ] &&
		grep -q 'return status 0x0' <<<"$out" || { echo "$out"; return 1; }
}
my_lid=$(sed -n 's/.*port ibsim0\/1 guid .* lid \([0-9]*\) .*/\1/p' "$dir/ibacm.log" | head -n1)

out=$("$acme" -S "$sock" -f l -d 100 2>&1)
check "LID 100 (0x64 in the file): the file's record" path_is 100 fe80::2:c903:0:a001 0 4 7
out=$("$acme" -S "$sock" -f l -s "$my_lid" -d 102 2>&1)
check "LID 102 with the source LID given" path_is 102 fe80::2:c903:0:a003 1 3 3
out=$("$acme" -S "$sock" -f g -d fe80::2:c903:0:a002 2>&1)
check "GID fe80::2:c903:0:a002: the file's record (SL 3, MTU 4096, 100 Gb/s)" \
	path_is 101 fe80::2:c903:0:a002 3 5 16
out=$("$acme" -S "$sock" -f l -d 101 -v 2>&1)
check "a path query (QUERY_SA, ib_acme -v) agrees with the resolve" \
	grep -q 'SA verification: success' <<<"$out"
check "... answered by the example's query op" grep -q 'pathfile: query [0-9]*: status 0 dlid 101' "$dir/ibacm.log"
out=$("$acme" -S "$sock" -f l -d 103 2>&1)
check "LID 103 (its line was rejected) is unknown" \
	grep -q 'return status 0xffffffff' <<<"$out"
check "... answered EDESTADDR by the provider" \
	grep -q 'resolve answered EDESTADDR: provider answer' "$dir/ibacm.log"
"$acme" -S "$sock" -T --lid-range 100-102 --verify none >"$dir/test.out" 2>&1
check "ib_acme -T --lid-range 100-102: every LID of the file resolves" test $? -eq 0 ||
	cat "$dir/test.out"
"$acme" -S "$sock" -T --lid-range 100-103 --verify none >"$dir/test.out" 2>&1
check "ib_acme -T --lid-range 100-103: fails for the one LID not in the file" test $? -eq 1
check "... and says which" grep -q 'lid 103: ERROR' "$dir/test.out"
libdir=$(dirname "$(find "$root" -name libibssa_path.so.0 -print -quit)")
out=$(LD_LIBRARY_PATH=$libdir "$SDK_SHM_EXAMPLE" -S "$sock" lid 100 101 2>&1)
check "the libibssa_path example resolves through the socket when no tables exist" \
	grep -q '^101: dlid 101 sl 3 mtu 5 from socket$' <<<"$out" || echo "$out"
check "ibacm with the example stops cleanly" stop_ibacm
summary
