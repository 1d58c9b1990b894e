#!/bin/bash
# demo.sh: the main job in one command. Installs what is needed, builds, then
# brings up a simulated InfiniBand fabric (ibsim + OpenSM), starts ibacm
# daemons on simulated nodes and resolves paths through the stock ib_acme.
# Everything it starts is stopped when it ends, also on Ctrl-C.
#   --no-setup   skip the Debian package check
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" != --no-setup ]; then
	"$top/scripts/setup-debian.sh"
fi
builddir=$("$top/scripts/build.sh" | tail -n1)
# The test provider is the fallback while no real provider is built.
make -C "$builddir" -s test/providers/good/testprov.la >&2
# simfab owns the fabric: it tears it down (and every node process) when the
# steps script exits, whatever the reason.
exec "$builddir/test/sim/simfab" run --net "$top/test/sim/nets/4hca.net" -- \
	"$top/scripts/demo-steps.sh" "$builddir"
