# shellcheck shell=bash
# sa.sh: part 2 of the demo (sourced by demo-steps.sh). ibacm with the sa
# provider on Hca2 and Hca3: path records from the SA, cached, resolved
# through Debian's stock ib_acme.

part_sa() {
	part "2/4  ibacm with the sa provider on Hca2 and Hca3, queried by $acme_is $acme"
	start_ibacm Hca2 sa node2
	start_ibacm Hca3 sa node3
	step "Both daemons listen (provider = sa default); from Hca2's log:"
	ibacm_log sa-Hca2 'provider sa version|served by provider|SA client|ready:' | indent

	step "Endpoints of Hca2's daemon (ib_acme -e):"
	$acme -S "$(sock sa-Hca2)" -e | rel | indent

	local me node lid
	me=$(lid_of Hca2)
	step "Every LID of the fabric from Hca2 (ib_acme -f l -s $me -d LID), each a PathRecord from the SA:"
	smdb_lids "$dump_dir/latest" | sort -k2n | while read -r node lid _; do
		resolve sa-Hca2 l "$me" "$lid" "LID $me -> $lid ($node)"
	done | indent
	step "The same $(smdb_lids "$dump_dir/latest" | wc -l) LIDs again (output omitted): now answered from the sa provider's cache"
	for lid in $(smdb_lids "$dump_dir/latest" | awk '{ print $2 }'); do
		resolve sa-Hca2 l "$me" "$lid"
	done >/dev/null
	step "Hca3's daemon, to Hca2:"
	resolve sa-Hca3 l "$(lid_of Hca3)" "$me" "LID $(lid_of Hca3) -> $me (Hca2)" | indent

	local n
	n=$(smdb_lids "$dump_dir/latest" | wc -l)
	step "Counters of Hca2's daemon (ib_acme -P col):"
	$acme -S "$(sock sa-Hca2)" -P col | grep Count | indent
	check "$n SA queries, then $n cache hits" \
		test "$(counter sa-Hca2 'Route Query Count')/$(counter sa-Hca2 'Route Cache Count')" = "$n/$n"

	stop sa-Hca2
	stop sa-Hca3
	check "both daemons stopped and removed their sockets" \
		test ! -e "$(sock sa-Hca2)" -a ! -e "$(sock sa-Hca3)"
}
