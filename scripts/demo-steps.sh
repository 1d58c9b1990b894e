#!/bin/bash
# demo-steps.sh BUILD_DIR: what the demo shows, run by `simfab run` inside a
# fresh simulated fabric (SIMFAB_DIR, SIMFAB_BIN set). Not meant to be run
# by hand; use scripts/demo.sh.
set -euo pipefail
build=$1
simfab=$SIMFAB_BIN
acme=/usr/bin/ib_acme
say() { printf '\n== %s\n' "$*"; }

# Providers: the real ones once built, else the test provider.
provdir=$SIMFAB_DIR/providers
mkdir -p "$provdir"
found=0
for so in "$build"/providers/*/.libs/*.so; do
	[ -e "$so" ] && { ln -sf "$so" "$provdir/"; found=1; }
done
if [ "$found" = 0 ]; then
	ln -sf "$build/test/providers/good/.libs/testprov.so" "$provdir/"
fi

say "The simulated fabric: 4 HCAs, 2 switches, OpenSM as SM and SA on Hca1"
"$simfab" node Hca2 -- ibstat

daemons=()
stop_daemons() {
	for pid in "${daemons[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_daemons EXIT

start_ibacm() { # NODE NAME
	local node=$1 name=$2 dir=$SIMFAB_DIR/ibacm-$1
	mkdir -p "$dir"
	printf '%s ibsim0 1 default\n' "$name" > "$dir/addr.cfg"
	printf '[core]\nlog_level = info\n' > "$dir/opts.cfg"
	"$simfab" node "$node" -- "$build/core/ibacm" -P -O "$dir/opts.cfg" -A "$dir/addr.cfg" \
		-R "$dir/run" -L "$dir/ibacm.log" --provider-dir "$provdir" &
	daemons+=($!)
	# Wait for the socket with a deadline (the daemon logs why if it fails).
	for _ in $(seq 100); do
		[ -S "$dir/run/ibacm-unix.sock" ] && return 0
		kill -0 "${daemons[-1]}" 2>/dev/null || break
		sleep 0.05
	done
	echo "ibacm on $node did not come up:"; cat "$dir/ibacm.log"; return 1
}

say "Starting ibacm on Hca2 (node2) and Hca3 (node3)"
start_ibacm Hca2 node2
start_ibacm Hca3 node3
sed -n 's/^[^ ]* //p' "$SIMFAB_DIR/ibacm-Hca2/ibacm.log"

sock=$SIMFAB_DIR/ibacm-Hca2/run/ibacm-unix.sock
say "Endpoints of Hca2's daemon, through the stock ib_acme"
$acme -S "$sock" -e
mylid=$("$simfab" node Hca2 -- ibstat | sed -n 's/.*Base lid: *//p' | head -n1)
say "Resolving every LID of the fabric from Hca2 (LID $mylid)"
for lid in $(seq 1 6); do
	{ $acme -S "$sock" -f l -s "$mylid" -d "$lid" || true; } |
		grep -E 'Destination|dlid|slid|mtu|rate|status' | tr '\n' ' '
	echo
done
say "Counters of Hca2's daemon"
$acme -S "$sock" -P col
