#!/bin/bash
# upstream_bridge_test.sh: the upstream bridge (providers/upstream/) loading
# provider libraries written for upstream ibacm's acm_prov.h, unchanged, in
# ibacm on a simulated fabric (test/sim, simfab):
#   - Debian's libibacmp.so (package ibacm), named the upstream way
#     ("upstream_provider = ibacmp"): every symbol it needs resolves at load
#     (RTLD_NOW), provider_query and its version check pass, its options
#     reach it, and with no verbs device the bridge says why it cannot open
#     the device while the daemon keeps serving;
#   - libfakeacm.so (test/providers/upstream/fakeacm.c, built against
#     upstream's header, needing no verbs device): path requests travel as
#     SA MADs through the bridge and are answered from the library's own
#     thread; ib_acme -T --verify sa finds every answer equal to the SA's;
#   - libraries the bridge must refuse, each with one clear line.
#
# Runs from the top build directory under `make check` (automake exports
# srcdir); by hand: cd build && srcdir=.. ../test/sdk/upstream_bridge_test.sh
set -uo pipefail
# shellcheck source=test/sdk/lib.sh
source "${srcdir:-$(dirname "$0")/../..}/test/sdk/lib.sh"

if [ "${1:-}" != --on-fabric ]; then
	sdk_scratch upstream
	# Debian's library where the ibacm package puts it; without the package
	# (it collides with an installed ibacm-ssa), from the package file.
	updir=$(sed -n 's/^upstream_provider_dir = //p' "$builddir/Makefile")
	if [ ! -f "$updir/libibacmp.so" ]; then
		(cd "$work" && apt-get download ibacm >/dev/null 2>&1 && dpkg-deb -x ibacm_*.deb "$work/deb") ||
			fatal "no $updir/libibacmp.so and apt-get download ibacm failed (install Debian's ibacm package)"
		updir=$work/deb${updir}
		[ -f "$updir/libibacmp.so" ] || fatal "the ibacm package has no libibacmp.so"
	fi
	bridge=$builddir/providers/upstream/.libs/upstream.so
	[ -f "$bridge" ] || fatal "the bridge is not built ($bridge)"

	# What the library needs from the daemon (unversioned undefined symbols,
	# the weak toolchain ones aside) must all be exported by the bridge.
	nm -D --undefined-only "$updir/libibacmp.so" | awk '$1 == "U" && $2 !~ /@/ { print $2 }' |
		sort >"$work/needed"
	nm -D --defined-only "$bridge" | awk '{ print $3 }' | sort >"$work/exported"
	missing=$(comm -23 "$work/needed" "$work/exported" | tr '\n' ' ')
	check "the bridge exports all $(wc -l <"$work/needed") functions libibacmp.so needs from the daemon" \
		test -z "$missing" || echo "missing: $missing"

	export UP_DIR=$updir UP_BRIDGE=$bridge
	run_on_fabric "$0"
fi

# --- on the simulated fabric (SIMFAB_DIR, SIMFAB_BIN set by simfab run) ---
on_fabric_exit
ibacm=$builddir/core/ibacm
acme=$builddir/util/ib_acme/ib_acme
fakes=$builddir/test/providers/upstream/.libs
provdir=$SIMFAB_DIR/providers
mkdir -p "$provdir"
ln -s "$UP_BRIDGE" "$provdir/upstream.so"

# daemon DIR NODE NAME [OPTION LINES...]: ibacm as NODE with the bridge for
# its port and the given [upstream] options; false if it did not listen.
daemon() {
	local dir=$SIMFAB_DIR/$1 node=$2 name=$3
	shift 3
	mkdir -p "$dir"
	printf '%s ibsim0 1 default\n' "$name" >"$dir/addr.cfg"
	{
		printf '[core]\nlog_level = debug\nprovider = upstream default\n[upstream]\n'
		printf '%s\n' "$@"
	} >"$dir/opts.cfg"
	start_ibacm "$dir" "$ibacm" "$provdir" "$node"
}
logged() { grep -qF -- "$2" "$SIMFAB_DIR/$1/ibacm.log"; }

# 1. Debian's libibacmp.so.
daemon ibacmp Hca2 node2 "upstream_provider = ibacmp" "upstream_provider_dir = $UP_DIR" \
	"timeout = 1234" || fatal "ibacm with the bridge and libibacmp.so did not start"
check "libibacmp.so loads with RTLD_NOW, provider_query and the version check pass" \
	logged ibacmp "upstream provider ibacmp loaded from $UP_DIR/libibacmp.so (provider interface version 1)"
check "its constructor read the options the bridge passed on (timeout = 1234)" \
	logged ibacmp "[libibacmp.so] acmp_log_options: timeout 1234 ms"
check "without a verbs device the bridge says why it cannot open the device" \
	logged ibacmp "error: upstream: cannot open device ibsim0 for upstream provider ibacmp: no verbs device of that name"
check "... and the daemon goes on: it listens" logged ibacmp "listening on unix socket"
"$acme" -S "$SIMFAB_DIR/ibacmp/run/ibacm-unix.sock" -P >/dev/null 2>&1
check "... and answers (ib_acme -P)" test $? -eq 0
out=$("$acme" -S "$SIMFAB_DIR/ibacmp/run/ibacm-unix.sock" -f l -d 1 2>&1)
check "... a resolve on the port it could not open fails cleanly" \
	grep -q 'return status 0xffffffff' <<<"$out"
check "libibacmp.so's own thread logs through the bridge" logged ibacmp "[ibacmp] acmp_retry_handler: started"
check "the daemon stops cleanly with libibacmp.so's threads running" stop_ibacm

# 2. libfakeacm.so: the whole mapping, on the fabric.
daemon fake Hca3 node3 "upstream_provider = fakeacm" "upstream_provider_dir = $fakes" \
	"require_verbs = no" "fakeacm_tag = hello" || fatal "ibacm with the bridge and libfakeacm.so did not start"
sock=$SIMFAB_DIR/fake/run/ibacm-unix.sock
check "libfakeacm.so read its option from the file the bridge gave it" \
	logged fake "fake_init: options file /proc/self/fd/"
check "... fakeacm_tag hello" logged fake "fakeacm_tag hello"
check "the device is opened without verbs (require_verbs = no)" logged fake "open_device guid 0x100004, verbs none"
check "acm_get_gid and acm_gid_index give the port's GID" logged fake "open_port 1 gid fe80::10:5 index 0"
check "the address reaches the library with its id_string" logged fake "add_address node3"
sm_lid=$(sed -n 's/.* sm_lid \([0-9]*\) .*/\1/p' "$SIMFAB_DIR/fake/ibacm.log" | head -n1)
my_lid=$(sed -n 's/.*port ibsim0\/1 guid .* lid \([0-9]*\) .*/\1/p' "$SIMFAB_DIR/fake/ibacm.log" | head -n1)
printf '%s\n' 1 2 3 4 5 >"$SIMFAB_DIR/dests"
"$SIMFAB_BIN" node Hca3 -- "$acme" -S "$sock" -T --dest-file "$SIMFAB_DIR/dests" --verify sa \
	>"$SIMFAB_DIR/fake/test.out" 2>&1
check "ib_acme -T --verify sa: every answer (SA MADs through the bridge) equals the SA's" test $? -eq 0 ||
	cat "$SIMFAB_DIR/fake/test.out"
check "... answered from the library's own thread" logged fake "fake_answer_thread: answering"
out=$("$acme" -S "$sock" -f l -d "$sm_lid" -v 2>&1)
check "a QUERY_SA path query (ib_acme -v) goes through the library's query op" \
	grep -q 'SA verification: success' <<<"$out"
check "... with the port's LID as source" grep -q "slid: $my_lid" <<<"$out"
out=$("$acme" -S "$sock" -P col 2>&1)
check "acm_increment_counter from the library's thread reaches PERF_QUERY" \
	grep -Eq 'Route Query Count : [1-9]' <<<"$out"
out=$("$acme" -S "$sock" -f n -d node3 2>&1)
check "a name request, which the library refuses, gets its answer (EDESTTYPE)" \
	logged fake "resolve answered EDESTTYPE: provider answer"
check "the daemon with libfakeacm.so stops cleanly" stop_ibacm

# 3. What the bridge refuses, each with one line; the daemon still runs.
daemon v2 Hca4 node4 "upstream_provider = $fakes/libfakeacm_v2.so" "require_verbs = no" ||
	fatal "ibacm with a version-2 library did not start"
check "a library of provider version 2 is refused, naming both versions" \
	logged v2 "libfakeacm_v2.so: provider interface version 2 with a 120-byte table; the bridge speaks version 1"
check "... the daemon stops cleanly" stop_ibacm
daemon unresolved Hca4 node4 "upstream_provider = $fakes/libfakeacm_unresolved.so" ||
	fatal "ibacm with an unresolvable library did not start"
check "a library needing a function nobody exports is refused at load, naming it" \
	logged unresolved "undefined symbol: acm_not_in_the_interface"
check "... the daemon stops cleanly" stop_ibacm
daemon missing Hca4 node4 "upstream_provider = nosuch" "upstream_provider_dir = $SIMFAB_DIR" ||
	fatal "ibacm with a missing library did not start"
check "upstream_provider = nosuch looks for libnosuch.so and says it is missing" \
	logged missing "upstream provider $SIMFAB_DIR/libnosuch.so: No such file or directory"
check "... the daemon stops cleanly" stop_ibacm
check "a bad require_verbs does not start the daemon" \
	not daemon badopt Hca4 node4 "upstream_provider = nosuch" "require_verbs = maybe"
check "... and is reported with file and line" \
	grep -Eq "opts\.cfg:[0-9]+: \[upstream\] bad value for 'require_verbs': 'maybe' is not a boolean" "$SIMFAB_DIR/badopt/ibacm.log"
summary
