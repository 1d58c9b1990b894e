#!/bin/bash
# callgrind.sh [BUILDDIR] [--hcas N]: instruction counts of the CPU-bound
# pieces of the SSA tree under valgrind's callgrind, on fixed input
# (bench_tree --pieces: the cached N-HCA SMDB pair, 10,000 by default, 100
# consumers spread over the fabric). Instruction counts repeat exactly on a
# noisy machine, so a change's cost compares commit to commit; wall times
# do not.
#
# Prints one line per piece: its name, the instructions (Ir) spent in it and
# everything it calls over all its calls in the run, the number of calls,
# and the laps of bench_tree --pieces those calls are (each lap's line
# below it). Needs valgrind (callgrind_annotate) and the SMDB cache that a
# first plain run of bench_tree makes.
#
# How a count is found: callgrind collects only inside the pieces
# (--toggle-collect, each pattern naming one function exactly, so that a
# piece's compiler-made part such as "[clone .cold]", entered from the
# piece itself, cannot toggle collection off again), and the piece's count
# is its inclusive cost in callgrind_annotate's caller tree. That list must
# be printed whole (--threshold=100): by default callgrind_annotate stops
# once the costs listed reach 99 % of the total, which inclusive costs do
# after the first few pieces, and a pattern matching the source lines
# annotated below it then took a piece's definition line (its prologue,
# 6 or 7 Ir) for the piece. A piece the list lacks is named, with why.
#
#   make bench && test/bench/callgrind.sh build
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$top/build
hcas=10000
while [ $# -gt 0 ]; do
	case "$1" in
	--hcas) hcas=$2; shift 2 ;;
	-*) echo "usage: $0 [BUILDDIR] [--hcas N]" >&2; exit 2 ;;
	*) builddir=$1; shift ;;
	esac
done
bench=$builddir/test/bench/bench_tree
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed" >&2; exit 2; }
[ -x "$bench" ] || { echo "callgrind.sh: no $bench (make bench)" >&2; exit 2; }
cache=$builddir/test/bench/bench_tree.cache
ls "$cache"/fat"$hcas"-*.before.smdb >/dev/null 2>&1 ||
	{ echo "callgrind.sh: no $hcas-HCA SMDB cache in $cache: run $bench --hcas $hcas once first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Each piece (a noinline function of test/bench/tree_pieces.cc) and the laps
# of bench_tree --pieces that call it, in order.
pieces=(
	"PieceSmdbApply smdb_apply_cold"
	"PieceSmdbApplyNext smdb_apply_2nd smdb_apply"
	"PieceIndex index_cold index index_lineage index_catch_up"
	"PieceEngine engine"
	"PieceRouteDiff route_diff_cold route_diff"
	"PieceDeltaRouteDiff delta_route_diff"
	"PiecePrdbBuild prdb_build"
	"PiecePrdbUpdate prdb_update_cold prdb_update"
	"PieceDeltaApply delta_apply"
	"PieceShmExport shm_export"
	"PiecePrdbWhole prdb_whole_cold prdb_whole"
	"PieceFrameCodec frame_codec"
)
toggles=()
for entry in "${pieces[@]}"; do toggles+=("--toggle-collect=ssa::bench::${entry%% *}(*)"); done
echo "callgrind.sh: running bench_tree --hcas $hcas --pieces under callgrind (a few minutes)" >&2
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "${toggles[@]}" \
	"$bench" --hcas "$hcas" --pieces >"$out/stdout" 2>"$out/stderr" ||
	{ cat "$out/stderr" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 --auto=no --tree=caller "$out/cg.out" \
	>"$out/annotated"
# A piece's count and calls: in the caller tree, the entry "* file:function"
# of the piece itself (not a clone of it), after the lines "< caller (Nx)"
# of its callers; a function inlined from several files has one entry per
# file, of which the piece's own (the largest) counts.
count() {
	awk -v fn="ssa::bench::$1(" '
		/^$/ { calls = 0; next }
		/^ *[0-9,]+ \([ 0-9.]+%\)  < / {
			if (match($0, /\(([0-9,]+)x\)/)) { n = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", n); calls += n }
			next
		}
		/^ *[0-9,]+ \([ 0-9.]+%\)  \* / {
			name = $0
			sub(/^ *[0-9,]+ \([ 0-9.]+%\)  \*  [^:]*:/, "", name)
			if (index(name, fn) != 1 || name ~ /\[clone /) next
			ir = $1; gsub(",", "", ir)
			if (ir + 0 > best + 0) { best = ir; shown = $1; best_calls = calls }
		}
		END { if (best != "") print shown, best_calls }' "$out/annotated"
}
echo "callgrind: instructions per piece (inclusive Ir over all its calls; bench_tree --hcas $hcas --pieces, $(date -u +%F), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo ?))"
missing=0
for entry in "${pieces[@]}"; do
	read -r p laps <<<"$entry"
	ir="" calls=""
	read -r ir calls <<<"$(count "$p")" || true
	if [ -z "$ir" ]; then
		if ! nm -C "$bench" | grep -q "ssa::bench::$p("; then
			why="no such function in $bench (inlined or renamed?)"
		else
			why="callgrind saw no call of it (did bench_tree --pieces run it? see its output)"
		fi
		printf '%-20s %18s Ir  %s\n' "$p" "?" "$why"
		missing=1
		continue
	fi
	printf '%-20s %18s Ir  %d call%s: %s\n' "$p" "$ir" "$calls" \
		"$([ "$calls" = 1 ] || echo s)" "${laps// /, }"
	for lap in $laps; do
		line=$(grep -E "^$lap +[0-9.]+ ms" "$out/stdout" | head -1 | sed -E 's/^[^ ]+ +[0-9.]+ ms +//')
		printf '%-20s %18s     %s: %s\n' "" "" "$lap" "${line:-(no such lap in the output of bench_tree)}"
	done
done
exit "$missing"
