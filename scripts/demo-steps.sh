#!/bin/bash
# shellcheck source-path=SCRIPTDIR
# demo-steps.sh BUILD_DIR|--installed [PART...]: what the demo shows, run by
# `simfab run --no-sm` inside a fresh simulated fabric (SIMFAB_DIR,
# SIMFAB_BIN set). Not meant to be run by hand; use scripts/demo.sh.
# BUILD_DIR: the programs of that build tree; --installed: the installed
# ones (/usr/sbin/ibacm with its default provider directory, OpenSM finding
# the plugin where the package put it; scripts/package-test.sh runs
# `--installed smdb sa` in a Debian root with the packages installed).
# PARTS: some of smdb sa acmp tree, in that order (default: all; the
# others need smdb first). The parts are in scripts/demo/:
#   smdb.sh  OpenSM with the ibssa_osm plugin; ssa-smdb dump and compare
#   sa.sh    ibacm + sa provider on 2 nodes, through the stock ib_acme
#   acmp.sh  ibacm + acmp provider on 3 nodes: names, IPs, requester caching
#   tree.sh  the SSA tree: core in OpenSM, ibssa distribution and access,
#            ibacm + ssa provider; a link change travels down as deltas
# Everything started here is stopped on exit (then simfab stops the rest).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
t0=${EPOCHREALTIME/./}

# The programs, from the build tree or installed; provdir and plugin_dir
# empty: the daemon's and OpenSM's defaults.
if [ "$1" = --installed ]; then
	ibacm_bin=/usr/sbin/ibacm
	ibssa_bin=/usr/sbin/ibssa
	smdb_tool=/usr/bin/ssa-smdb
	ssa_tree_bin=/usr/bin/ssa-tree
	provdir=""
	plugin_dir=""
	acme_is="ibacm-ssa's"
else
	build=$1
	ibacm_bin=$build/core/ibacm
	ibssa_bin=$build/distrib/ibssa
	smdb_tool=$build/util/smdb_tool/ssa-smdb
	ssa_tree_bin=$build/util/ssa_tree/ssa-tree
	plugin_dir=$build/opensm_plugin/.libs
	provdir=$SIMFAB_DIR/providers
	mkdir -p "$provdir"
	ln -sf "$build/providers/sa/.libs/sa.so" "$build/providers/acmp/.libs/acmp.so" \
		"$build/providers/ssa/.libs/ssa.so" "$provdir/"
fi
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(smdb sa acmp tree)

source "$here/demo/lib.sh"
source "$here/demo/smdb.sh"
source "$here/demo/sa.sh"
source "$here/demo/acmp.sh"
source "$here/demo/tree.sh"
trap stop_all EXIT

echo "A simulated fabric (ibsim, test/sim/nets/4hca.net): Hca1..Hca4 on Switch1 and Switch2."
echo "Its run directory, RUN below: $SIMFAB_DIR (removed at the end)."
for p in "${parts[@]}"; do
	case "$p" in
	smdb | sa | acmp | tree) "part_$p" ;;
	*) die "unknown part $p (smdb sa acmp tree)" ;;
	esac
done

stop_all
part "Done in $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
check "no socket left in the run directory" test -z "$(find "$SIMFAB_DIR" -type s)"
echo "simfab now stops ibsim and removes the run directory."
echo "To run a tree of your own on a fabric that stays up: README.md, \"Run it yourself\"."
