#!/bin/bash
# soak.sh --minutes N --seed S [--asan] [soak options]: the chaos soak with
# the SA as the oracle (doc/soak.md) on the simulated fabric: random faults
# on a whole SSA tree for N minutes while clients resolve through every
# ibacm and each answer is checked against the SA's. Progress and the
# event log on stderr as it runs; at the end a summary of `name = value`
# lines on stdout (events, resolves_checked, wrong_answers, stale_answers,
# errors_known_destinations, convergence_s, max_rss_growth_mb, ...).
#
# Builds what it needs first (./build, or ./build-asan with --asan, made by
# scripts/build.sh when missing). Options after these go to the soak
# program (`--seconds N`, `--stale-bound S`, `--max-errors N`,
# `--converge-limit S`, `--rss-limit MB`, `--torus-slices`,
# `--print-schedule`). `--federated` (with `--peers 1|2`, `--hold-s S`)
# runs the federated mode instead: subnets whose cores are federated,
# federation links cut, peer cores restarted, peers' nodes leaving and
# addresses moving (doc/soak.md, "Federated mode").
#
# Exit status: 0 only when every invariant held; 1 when one did not (the
# failures, the seed and the event log to replay it are printed); 2 when
# the run could not be made.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=$top/build
build_args=()
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--asan) builddir=$top/build-asan; build_args=(--sanitizers) ;;
	-h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) args+=("$1") ;;
	esac
	shift
done
if [ ! -f "$builddir/Makefile" ]; then
	echo "soak.sh: no build in $builddir; building" >&2
	"$top/scripts/build.sh" "${build_args[@]}" >/dev/null
fi
echo "soak.sh: building the soak in $builddir" >&2
make -C "$builddir" -j2 -s test/soak/soak test/soak/soak-sa-snapshot >&2
exec "$builddir/test/soak/soak" "${args[@]}"
