#!/bin/bash
# demo.sh: the main job in one command. Installs what is needed, builds, then
# brings up a simulated InfiniBand fabric (ibsim) and shows, in three parts
# (scripts/demo-steps.sh, scripts/demo/):
#   1. OpenSM with the ibssa_osm plugin extracting the subnet database, and
#      the path-record engine's paths from it equal to the live SA's;
#   2. ibacm with the sa provider, queried by Debian's stock ib_acme;
#   3. ibacm with the acmp provider on 3 nodes resolving names and IPs, a
#      receiver of a request caching the requester.
# Everything it starts is stopped when it ends, also on failure or Ctrl-C.
#   --no-setup   skip the Debian package check
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" != --no-setup ]; then
	"$top/scripts/setup-debian.sh"
fi
builddir=$("$top/scripts/build.sh" | tail -n1)
for f in core/ibacm providers/sa/.libs/sa.so providers/acmp/.libs/acmp.so providers/ssa/.libs/ssa.so \
	distrib/ibssa util/ssa_tree/ssa-tree \
	opensm_plugin/.libs/libibssa_osm.so util/smdb_tool/ssa-smdb test/sim/simfab; do
	[ -e "$builddir/$f" ] || {
		echo "demo: $builddir/$f was not built (OpenSM plugin: needs libopensm-dev)" >&2
		exit 1
	}
done
# simfab owns the fabric: it tears it down (and every node process) when the
# steps script exits, whatever the reason. --no-sm: the steps start OpenSM
# themselves, with the plugin's config in the run directory.
exec "$builddir/test/sim/simfab" run --net "$top/test/sim/nets/4hca.net" --no-sm -- \
	"$top/scripts/demo-steps.sh" "$builddir"
