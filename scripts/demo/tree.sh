# shellcheck shell=bash
# tree.sh: part 4 of the demo (sourced by demo-steps.sh). The Scalable SA
# tree: the ibssa_osm plugin inside OpenSM is its core; ibssa on Hca2
# (distribution) and Hca3 (access); ibacm on Hca4 with the ssa provider,
# which joins as a consumer and answers every LID from the PRDB its access
# node computed, without one SA query. Then a link change: the next SMDB
# epoch travels down the tree as deltas and the daemon answers from it.

ibssa_dir() { echo "$SIMFAB_DIR/ibssa-$1"; }
# start_ibssa NODE ROLE: returns once its log says it joined the tree.
start_ibssa() {
	local node=$1 role=$2 dir
	dir=$(ibssa_dir "$node")
	mkdir -p "$dir"
	printf 'log_level = info\n' >"$dir/ibssa_opts.cfg"
	"$simfab" node "$node" -- "$ibssa_bin" -P -O "$dir/ibssa_opts.cfg" -R "$dir" \
		-L "$dir/ibssa.log" --role "$role" --listen 127.0.0.1:0 &
	track "ibssa-$node" $!
	wait_until 15 "ibssa on $node to join the tree" ibssa_joined "$node"
}
ibssa_joined() { # NODE
	grep -q 'joined the tree' "$(ibssa_dir "$1")/ibssa.log" 2>/dev/null && return 0
	alive "ibssa-$1" && return 1
	cat "$(ibssa_dir "$1")/ibssa.log" >&2
	die "ibssa on $1 exited"
}
ibssa_log() { # NODE PATTERN
	log_lines "$(ibssa_dir "$1")/ibssa.log" "$2" | sed -E 's/^ibssa\[[0-9]+\] [a-z]+: //'
}
# The tree as ssa-tree prints it, in $tree_text; true when no member lags.
tree_in_sync() {
	tree_text=$("$simfab" node Hca2 -- "$ssa_tree_bin") || die "ssa-tree failed"
	! grep -q 'lag [1-9]' <<<"$tree_text"
}
newest_epoch() { "$smdb_tool" dump "$dump_dir/latest" | awk '$1 == "smdb" { for (i = 2; i <= NF; i++) if ($i ~ /^global_epoch=/) { sub(/.*=/, "", $i); print $i } }'; }

part_tree() {
	part "4/4  The SSA tree: core in OpenSM, ibssa distribution and access, ibacm with the ssa provider"
	step "The core is the ibssa_osm plugin already running in OpenSM (core=1, data channel on loopback):"
	log_lines "$SIMFAB_DIR/ibssa_osm.log" 'tree: (core on|serving)' | head -2 | wrap | indent
	start_ibssa Hca2 distribution
	start_ibssa Hca3 access
	step "ibssa on Hca2 (--role distribution) and Hca3 (--role access) joined; their logs:"
	ibssa_log Hca2 'joined the tree|SMDB epoch .* in place' | head -2 | wrap | indent
	ibssa_log Hca3 'joined the tree|SMDB epoch .* in place' | head -2 | wrap | indent

	start_ibacm Hca4 ssa node4
	wait_until 15 "Hca4's daemon to hold a PRDB" ibacm_logged ssa-Hca4 "in place"
	step "ibacm on Hca4 with provider = ssa joined as a consumer; from its log:"
	ibacm_log ssa-Hca4 'joining the SSA tree|consumer: access node|PRDB epoch' | wrap | indent

	# Members report a new epoch within a moment (ssa-tree shows their lag).
	wait_until 15 "every member to report epoch $(newest_epoch) to the core" tree_in_sync
	step "The tree as the core sees it (ssa-tree, run as node Hca2; it asks the core through the SM's LID):"
	indent <<<"$tree_text"

	local me node lid n
	me=$(lid_of Hca4)
	step "Every LID from Hca4 through the stock ib_acme, answered from the PRDB:"
	smdb_lids "$dump_dir/latest" | sort -k2n | while read -r node lid _; do
		resolve ssa-Hca4 l "$me" "$lid" "LID $me -> $lid ($node)"
	done | indent
	n=$(smdb_lids "$dump_dir/latest" | wc -l)
	check "$n answers from the PRDB, 0 SA queries" \
		test "$(counter ssa-Hca4 'Route Query Count')/$(counter ssa-Hca4 'Route Cache Count')" = "0/$n"
	step "One of them checked with the SA by ib_acme -v (a QUERY_SA through the daemon):"
	local out
	out=$($acme -S "$(sock ssa-Hca4)" -f l -s "$me" -d "$(lid_of Hca1)" -v)
	grep -E 'verification' <<<"$out" | indent
	grep -q 'verification: success' <<<"$out" || die "the SA does not agree with the PRDB's path"

	local before after
	before=$(newest_epoch)
	step "A link change: one of the two Switch1-Switch2 links goes down (simfab link-down Switch1 5)"
	"$simfab" link-down Switch1 5 --timeout 30 >/dev/null || die "link-down failed"
	wait_until 15 "an SMDB epoch after $before" test "$(newest_epoch)" -gt "$before"
	after=$(newest_epoch)
	wait_until 15 "Hca4's daemon to hold PRDB epoch $after" \
		ibacm_logged ssa-Hca4 "PRDB epoch $after in place"
	step "SMDB epoch $before -> $after; it went down the tree as deltas:"
	ibssa_log Hca2 "SMDB epoch $after in place" | wrap | indent
	ibssa_log Hca3 "SMDB epoch $after in place" | wrap | indent
	ibacm_log ssa-Hca4 "PRDB epoch $after in place" | wrap | indent
	step "Every LID again, from epoch $after (output omitted), still no SA query:"
	for lid in $(smdb_lids "$dump_dir/latest" | awk '{ print $2 }'); do
		resolve ssa-Hca4 l "$me" "$lid"
	done >/dev/null
	check "0 SA queries for paths after the update" \
		test "$(counter ssa-Hca4 'Route Query Count')" = 1 # the one -v above
	"$simfab" link-up Switch1 5 --timeout 30 >/dev/null || die "link-up failed"

	stop ssa-Hca4
	stop ibssa-Hca3
	stop ibssa-Hca2
	check "the tree's daemons stopped" test ! -e "$(sock ssa-Hca4)"
}
