#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# demo-steps.sh BUILD_DIR: what the demo shows, run by `simfab run --no-sm`
# inside a fresh simulated fabric (SIMFAB_DIR, SIMFAB_BIN set). Not meant to
# be run by hand; use scripts/demo.sh. The parts are in scripts/demo/:
#   smdb.sh  OpenSM with the ibssa_osm plugin; ssa-smdb dump and compare
#   sa.sh    ibacm + sa provider on 2 nodes, through the stock ib_acme
#   acmp.sh  ibacm + acmp provider on 3 nodes: names, IPs, requester caching
#   tree.sh  the SSA tree: core in OpenSM, ibssa distribution and access,
#            ibacm + ssa provider; a link change travels down as deltas
# Everything started here is stopped on exit (then simfab stops the rest).
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
t0=${EPOCHREALTIME/./}

# The providers, from the build tree.
provdir=$SIMFAB_DIR/providers
mkdir -p "$provdir"
ln -sf "$build/providers/sa/.libs/sa.so" "$build/providers/acmp/.libs/acmp.so" \
	"$build/providers/ssa/.libs/ssa.so" "$provdir/"

source "$here/demo/lib.sh"
source "$here/demo/smdb.sh"
source "$here/demo/sa.sh"
source "$here/demo/acmp.sh"
source "$here/demo/tree.sh"
trap stop_all EXIT

echo "A simulated fabric (ibsim, test/sim/nets/4hca.net): Hca1..Hca4 on Switch1 and Switch2."
echo "Its run directory, RUN below: $SIMFAB_DIR (removed at the end)."
part_smdb
part_sa
part_acmp
part_tree

stop_all
part "Done in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
check "no socket left in the run directory" test -z "$(find "$SIMFAB_DIR" -type s)"
echo "simfab now stops ibsim and removes the run directory."
