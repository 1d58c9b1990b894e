#!/bin/bash
# fidelity-random.sh --runs N --seed S [--keep DIR] [--first I] [--only I]
#                    [--without allow_both_pkeys,use_original_extended_sa_rates_only,routers]:
# the replica against OpenSM's SA on N random configurations, drawn from
# what scripts/fidelity-sweep.sh does not cover. Configuration I of seed S
# is always the same one (python3's random.Random seeded from S and I), so
# a line of the output can be run again alone with --seed S --only I.
# --without leaves the OpenSM options named out of the draw (the same seed
# then draws other configurations), e.g. options whose mismatches are
# already known, so that others can show.
#
# Each configuration is a fresh simulated fabric (simfab run: ibsim,
# OpenSM 3.3.23 with the ibssa_osm plugin) and is checked exactly as the
# sweep checks one: once the plugin's SMDB is in place and steady,
# `ssa-smdb compare --from all --to all` runs as a node (Hca2) and asks the
# SA for every LID pair, comparing each answer field by field with the
# replica's record, for each query shape drawn. What is drawn:
#   - topology (under 40 nodes): a random connected irregular switch graph
#     (3-10 switches, random extra links including parallel ones, 0-3 HCAs
#     per switch, some HCAs with a second port cabled too, sometimes some
#     HCAs as Mellanox Tavor devices), a 3-D torus or mesh (2x2x2 to
#     4x3x2, HCAs on some switches), a 2-D torus/mesh or a
#     ring of another size (simfab gen-torus), a fat tree of another shape
#     (simfab gen-fattree); links with random widths and speeds (1x, 2x,
#     4x, 8x, 12x; SDR .. HDR) or ibsim's uniform 4x SDR;
#   - routing engine or chain (minhop updn dnup ftree sssp dfsssp lash nue
#     dor torus-2QoS, e.g. `lash,minhop`), LMC 0, 1 or 2 (lmc_esp0 too);
#   - QoS (-Q) with no policy, a random full policy (port groups by
#     port-name, port GUID, GUID range, node type, partition; levels with
#     SL, MTU/rate limit, packet life, path-bits, P_Key ranges; match rules
#     on source/destination groups, ServiceID, QoS class, P_Key) and/or a
#     qos-ulps section, and random SL2VL tables (qos_*sl2vl, some SLs to
#     VL15, qos_max_vls);
#   - a random partitions file (-P: sl=, mtu=, rate=, ipoib, full and
#     limited members by GUID, ALL, ALL_CAS, ALL_SWITCHES, SELF), maybe
#     with allow_both_pkeys;
#   - a few other options: enable_quirks (with Tavor HCAs), a policy
#     file given without -Q, subnet_timeout,
#     use_original_extended_sa_rates_only, sm_sl, lash_start_vl,
#     nue_max_num_vls, nue_include_switches, port_shifting, scatter_ports;
#   - IB routers (1-3, on free switch ports, GUIDs varied in their high
#     and low bytes) with a random prefix-routes file (routes to a router
#     port, to "*", to a GUID that is no router port, a wildcard route,
#     in random order) or none;
#   - query shapes of `compare`: plain, --pkey-from-path, --pkey P (full
#     and limited forms), --service-id, --qos-class (1..4095: ssa-smdb
#     does not take class 0), combinations,
#     --by-gid, --reversible, --lmc-all when LMC > 0, and with routers
#     --dgid with a DGID of each routed prefix, of an unrouted one and
#     local ones (asked by SGID and DGID: the path through the router).
# OpenSM falls back to minhop when an engine fails; the line names the
# engine that routed. A configuration whose fabric does not come up, or
# whose policy or partitions file OpenSM refuses (its log says so), is
# SKIPPED; its compare still runs when the fabric is up, and a mismatch in
# it still counts. One line per configuration: ok, MISMATCH (mismatched>0
# or sa_failures>0), FAIL (no SMDB, or a compare that gave no summary)
# or SKIP. For each
# MISMATCH or FAIL the reproducer (net file, opensm.conf, OpenSM
# arguments, policy/partitions/torus files, queries, run.sh, OpenSM's log,
# compare's output) is kept: under --keep DIR (which keeps every
# configuration), else under $TMPDIR/fidelity-random.SEED. Exits 1 when
# any configuration is MISMATCH or FAIL.
#
# It does not check: traffic between subnets (ibsim forwards nothing
# through a router; the SA's answers are all that is compared), MTUs
# other than ibsim's (every port 2048, switch port 0 1024; Tavor's 1024),
# QoS class 0 queries, the SA's 2x/HDR rate fix-ups (ibsim's ports advertise 2x and HDR in
# CapabilityMask2, so they never apply), MultiPathRecord, RMPP GetTable,
# policy re-reads on resweeps, link changes.
# Needs the build tree (BUILD_DIR, default ./build) and python3.
set -uo pipefail
. "$(dirname "$0")/fidelity-tools.sh"
runs=10
seed=1
keep=""
first=0
only=""
usage() {
	echo "usage: $0 --runs N --seed S [--keep DIR] [--first I] [--only I] [--without OPTS]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:?}; shift 2 ;;
	--seed) seed=${2:?}; shift 2 ;;
	--keep) keep=${2:?}; shift 2 ;;
	--first) first=${2:?}; shift 2 ;;
	--only) only=${2:?}; shift 2 ;;
	--without) export FR_WITHOUT=${2:?}; shift 2 ;;
	*) usage ;;
	esac
done
fidelity_check_tools fidelity-random
command -v python3 >/dev/null || { echo "fidelity-random: needs python3" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fidelity-random.XXXXXX")
trap 'rm -rf "$work"' EXIT
failkeep=${keep:-${TMPDIR:-/tmp}/fidelity-random.$seed}

# The generator: one configuration per call (scripts/fidelity_random_gen.py).
gen=$top/scripts/fidelity_random_gen.py

# One configuration: generate it into DIR, bring the fabric up, compare.
# Prints its line (and details); returns 0 ok, 1 MISMATCH/FAIL, 3 SKIP.
run_one() {
	local i=$1 dir=$work/cfg.$i
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! python3 "$gen" "$seed" "$i" "$dir" "$simfab" 2>"$dir/gen.err"; then
		echo "$i: FAIL (generator: $(tail -1 "$dir/gen.err"))"
		return 1
	fi
	local label
	label=$(cat "$dir/label")
	{
		echo "event_plugin_name ibssa_osm"
		echo "event_plugin_options dump_dir=$dir/smdb log_file=$dir/plugin.log core=0"
		# (Files the options name, e.g. prefix_routes_file, as @DIR@/NAME.)
		sed "s|@DIR@|$dir|g" "$dir/opensm.conf.extra"
	} >"$dir/opensm.conf"
	local args=(run --net "$dir/net" --sm-node Hca1 --run-dir-parent "$dir"
		--opensm-arg -F --opensm-arg "$dir/opensm.conf" --opensm-env "LD_LIBRARY_PATH=$plugin_dir")
	local a
	while read -r a; do
		[[ "$a" == *.conf ]] && a=$dir/$a
		args+=(--opensm-arg "$a")
	done <"$dir/args"
	# A reproducer that runs outside this script: run.sh in the kept
	# directory (its files named relative to it).
	{
		echo "#!/bin/bash"
		echo "# fidelity-random seed $seed configuration $i: $label"
		echo "# run as: BUILD_DIR=<build tree> bash run.sh"
		echo 'd=$(cd "$(dirname "$0")" && pwd); b=${BUILD_DIR:?}'
		printf 'osm_args=('
		while read -r a; do
			if [[ "$a" == *.conf ]]; then printf ' "$d/%s"' "$a"; else printf ' %q' "$a"; fi
		done <"$dir/args"
		echo ' )'
		cat <<-'RUN'
		rm -rf "$d/smdb"; sed "s|@DIR@|$d|g" "$d/opensm.conf.in" >"$d/opensm.conf"
		args=(run --net "$d/net" --sm-node Hca1 --run-dir-parent "$d" --opensm-arg -F
			--opensm-arg "$d/opensm.conf" --opensm-env "LD_LIBRARY_PATH=$b/opensm_plugin/.libs")
		for a in "${osm_args[@]}"; do args+=(--opensm-arg "$a"); done
		"$b/test/sim/simfab" "${args[@]}" -- bash -c '
			for _ in $(seq 600); do [ -e "$0/smdb/latest" ] && break; sleep 0.1; done; sleep 2
			while read -r q; do
				echo "[${q:-plain}]"
				"$SIMFAB_BIN" node Hca2 -- "$1/util/smdb_tool/ssa-smdb" compare "$0/smdb/latest" \
					--from all --to all --max-print 10 $q
			done <"$0/queries"' "$d" "$b"
		RUN
	} >"$dir/run.sh"
	sed "s|$dir|@DIR@|g" "$dir/opensm.conf" >"$dir/opensm.conf.in"

	local out rc
	out=$("$simfab" "${args[@]}" -- bash -c '
		dir=$1; smdb=$2
		cp "$SIMFAB_DIR/osm.log" "$dir/osm.log.start" 2>/dev/null
		for _ in $(seq 600); do [ -e "$dir/smdb/latest" ] && break; sleep 0.1; done
		[ -e "$dir/smdb/latest" ] || { echo "no SMDB from the plugin"; cp "$SIMFAB_DIR/osm.log" "$dir/"; exit 1; }
		# Steady: the same SMDB for 2 s (a policy or partitions change
		# may make OpenSM sweep again right after SUBNET UP).
		prev="" same=0
		for _ in $(seq 100); do
			cur=$(md5sum <"$dir/smdb/latest")
			if [ "$cur" = "$prev" ]; then same=$((same + 1)); [ $same -ge 4 ] && break; else same=0; fi
			prev=$cur; sleep 0.5
		done
		"$smdb" dump "$dir/smdb/latest" | grep -om1 "routing_engine[ =:]*[^ ,]*"
		rc=0
		while read -r q; do
			before=$(md5sum <"$dir/smdb/latest")
			line=$("$SIMFAB_BIN" node Hca2 -- "$smdb" compare "$dir/smdb/latest" --from all --to all \
				--max-print 50 $q 2>&1)
			crc=$?
			[ "$crc" -eq 0 ] || rc=1
			after=$(md5sum <"$dir/smdb/latest")
			printf "%s\n" "$line" >>"$dir/compare.out.txt"
			sum=$(echo "$line" | grep -E "^compare:" | grep -oE "(pairs|no_path|mismatched|sa_failures|not_exact|sl_drawn)=[0-9]+" | tr "\n" " ")
			[ -n "$sum" ] || rc=1
			[ "$before" = "$after" ] || sum="$sum (SMDB changed during compare)"
			[ "$crc" -eq 0 ] || sum="$sum (compare exited $crc)"
			echo "[${q:-plain}] ${sum:-$(echo "$line" | tail -3 | tr "\n" " ")}"
			echo "$line" | grep -E "^(mismatch|sa-failure)" | head -4 | sed "s/^/    /"
		done <"$dir/queries"
		cp "$SIMFAB_DIR/osm.log" "$dir/"
		exit $rc' _ "$dir" "$smdb_tool" 2>&1)
	rc=$?
	# The run's own status too: a FAIL whose compares were all clean is
	# told apart by it (simfab, or the script inside it, ended badly).
	printf "%s\nsimfab run exit status: %s\n" "$out" "$rc" >"$dir/result.txt"
	# OpenSM refusing the policy or the partitions file (its log): the
	# configuration is not one OpenSM runs as written.
	local refused=""
	if [ -e "$dir/osm.log" ]; then
		# (-Q without a policy: OpenSM's complaint that it cannot open the
		# default file, ERR AC01, is expected.)
		local policy_errs="ERR AC(0[1345]|1[0-3]):"
		grep -q -- "-Y.no-such-policy.conf" <(tr '\n' ' ' <"$dir/args") && policy_errs="ERR AC(0[345]|1[0-3]):"
		grep -qE "$policy_errs" "$dir/osm.log" && refused="policy refused"
		grep -qE "PARSE ERROR" "$dir/osm.log" && refused="${refused:+$refused, }partitions refused"
	fi
	local engine
	engine=$(echo "$out" | grep -om1 'routing_engine[ =:]*"*[^ ,"]*' | sed 's/.*[=:]"*//')
	local bad
	bad=$(echo "$out" | grep -cE '(mismatched|sa_failures)=[1-9]')
	local status reason=""
	if [ "$bad" -ne 0 ]; then
		status=MISMATCH
	elif [ "$rc" = 70 ]; then
		status=SKIP reason="fabric did not come up"
	elif [ -n "$refused" ]; then
		status=SKIP reason=$refused
	# (Here-strings, not `echo | grep -q`: under pipefail that fails when
	# grep has its match and exits before bash's line-by-line echo is done.)
	elif [ "$rc" -ne 0 ] || ! grep -q 'pairs=' <<<"$out"; then
		status=FAIL
	else
		status=ok
	fi
	[ "$status" = FAIL ] && reason="exit status $rc"
	echo "$i: $status${reason:+ ($reason)}: $label -> routed by ${engine:-?}"
	case "$status" in
	MISMATCH | FAIL) echo "$out" | grep -E '^\[|^    (mismatch|sa-failure)|^no SMDB|^simfab run: the' |
		cut -c1-300 | sed 's/^/    /' | head -40 ;;
	*) if grep -q '^\[' <<<"$out"; then
		echo "$out" | grep -E '^\[' | sed 's/^/    /'
	else
		echo "$out" | tail -5 | sed 's/^/    /'
	fi ;;
	esac
	local kept=""
	if [ -n "$keep" ] || [ "$status" = MISMATCH ] || [ "$status" = FAIL ]; then
		kept=$failkeep/cfg-$i
		rm -rf "$kept"
		mkdir -p "$kept"
		for f in net args queries label opensm.conf.in run.sh qos-policy.conf partitions.conf torus.conf prefix-routes.conf \
			osm.log plugin.log compare.out.txt result.txt gen.err; do
			[ -e "$dir/$f" ] && cp "$dir/$f" "$kept/"
		done
		[ "$status" = ok ] || [ "$status" = SKIP ] ||
			echo "    reproducer: $kept (BUILD_DIR=$build bash $kept/run.sh)"
	fi
	rm -rf "$dir"
	case "$status" in
	ok) return 0 ;;
	SKIP) return 3 ;;
	*) return 1 ;;
	esac
}

total=0 ok=0 bad=0 skipped=0
start=$first end=$((first + runs))
if [ -n "$only" ]; then start=$only end=$((only + 1)); fi
for ((i = start; i < end; i++)); do
	run_one "$i"
	case $? in
	0) ok=$((ok + 1)) ;;
	3) skipped=$((skipped + 1)) ;;
	*) bad=$((bad + 1)) ;;
	esac
	total=$((total + 1))
done
echo "fidelity-random: seed $seed, $total configurations: $ok equal the SA, $bad mismatched or failed, $skipped skipped"
[ "$bad" -eq 0 ]
