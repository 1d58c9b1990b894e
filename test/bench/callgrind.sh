#!/bin/bash
# callgrind.sh [BUILDDIR]: instruction counts of the CPU-bound pieces of the
# SSA tree under valgrind's callgrind, on fixed input (bench_tree --pieces:
# the cached 10,000-HCA SMDB pair, 100 consumers spread over the fabric).
# Instruction counts repeat exactly on a noisy machine, so a change's cost
# compares commit to commit; wall times do not.
#
# Prints one line per piece: its name and the instructions (Ir) spent in it
# and everything it calls. Needs valgrind (callgrind_annotate) and the SMDB
# cache that a first plain run of bench_tree makes.
#
#   make bench && test/bench/callgrind.sh build
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${1:-$top/build}
bench=$builddir/test/bench/bench_tree
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }
[ -x "$bench" ] || { echo "callgrind.sh: no $bench (make bench)" >&2; exit 2; }
cache=$builddir/test/bench/bench_tree.cache
ls "$cache"/fat10000-*.before.smdb >/dev/null 2>&1 ||
	{ echo "callgrind.sh: no SMDB cache in $cache: run $bench once first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pieces="PieceSmdbApply PieceSmdbApplyNext PieceIndex PieceEngine PieceRouteDiff PieceDeltaRouteDiff PiecePrdbBuild PiecePrdbUpdate PiecePrdbWhole PieceDeltaApply PieceFrameCodec"
toggles=()
for p in $pieces; do toggles+=("--toggle-collect=*$p*"); done
echo "callgrind.sh: running bench_tree --pieces under callgrind (a few minutes)" >&2
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "${toggles[@]}" \
	"$bench" --pieces >"$out/stdout" 2>"$out/stderr" ||
	{ cat "$out/stderr" >&2; exit 1; }
callgrind_annotate --inclusive=yes "$out/cg.out" >"$out/annotated"
echo "callgrind: instructions per piece (inclusive Ir; bench_tree --pieces, $(date -u +%F), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo ?))"
for p in $pieces; do
	ir=$(grep -E "[ :]\(anonymous namespace\)::$p\(|[ :]$p\(" "$out/annotated" | head -1 | awk '{print $1}')
	what=$(grep -i "^$(echo "${p#Piece}" | sed 's/\([a-z]\)\([A-Z]\)/\1_\2/g' | tr A-Z a-z) " "$out/stdout" | sed 's/^[^ ]* *[0-9.]* ms *//' || true)
	printf '%-16s %18s Ir  %s\n' "$p" "${ir:-?}" "$what"
done
