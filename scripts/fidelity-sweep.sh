#!/bin/bash
# fidelity-sweep.sh [--quick] [--keep-going] [FILTER]: the replica against
# OpenSM's SA on many fabrics at once, wider than the suite's fidelity tests:
# every routing engine OpenSM ships on the topologies where it means
# something (fat trees, ibsim's example nets, tori and meshes), LMC 0 and 1,
# QoS on with a policy, each query shape clients send. For each
# configuration a fresh simulated fabric (simfab) comes up with OpenSM and
# the ibssa_osm plugin; `ssa-smdb compare` then asks the SA for every LID
# pair and compares each answer with the replica's record. On the router
# nets (one and two IB routers) it also asks, by SGID and DGID, for DGIDs
# of other subnets (`compare --dgid`: the path through the router the
# prefix routes choose), with a prefix-routes file and without. One line per
# configuration; exits 1 when any configuration has a mismatch or fails.
#   --quick       LMC 0 only, no QoS, no partitions (else LMC 0, 1 and 2,
#                 QoS at LMC 0 and 1, partitions at LMC 0)
#   --keep-going  run every configuration even after a failure (default)
#   FILTER        only configurations whose label contains it
# Needs the build tree (scripts/build.sh); doc/fidelity.md has the record.
set -uo pipefail
. "$(dirname "$0")/fidelity-tools.sh"
quick=0
filter=""
for a in "$@"; do
	case "$a" in
	--quick) quick=1 ;;
	--keep-going) ;;
	-*) echo "usage: $0 [--quick] [--keep-going] [FILTER]" >&2; exit 2 ;;
	*) filter=$a ;;
	esac
done
fidelity_check_tools fidelity-sweep
work=$(mktemp -d "${TMPDIR:-/tmp}/fidelity-sweep.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The nets: name, then how to make it (a net file and ibsim's flags).
examples=/usr/share/doc/ibsim-utils/net-examples
make_net() { # NAME -> $work/NAME.net, $work/NAME.flags
	local out=$work/$1.net flags=$work/$1.flags
	case "$1" in
	fattree12) "$simfab" gen-fattree 12 --mixed --per-leaf 6 --leaf-radix 8 >"$out" 2>"$flags" ;;
	fattree24) "$simfab" gen-fattree 24 --per-leaf 8 --leaf-radix 12 >"$out" 2>"$flags" ;;
	torus3x3) "$simfab" gen-torus 3 3 >"$out" 2>"$flags" ;;
	torus4x4) "$simfab" gen-torus 4 4 --per-switch 1 >"$out" 2>"$flags" ;;
	mesh3x4) "$simfab" gen-torus 3 4 --mesh >"$out" 2>"$flags" ;;
	ring5) "$simfab" gen-torus 5 1 >"$out" 2>"$flags" ;;
	# ibsim's own examples, as shipped: two HCAs on one switch (net.1), an
	# HCA cabled on its second port and a switch reached over two parallel
	# links (net), two paths between two switches (net.2sw2path*).
	net | net.1 | net.2sw2path | 2sw2path4hca | 2sw2path4hca2port)
		local file=$1
		[[ "$file" == net* ]] || file=net.$file
		cp "$examples/$file" "$out" && : >"$flags" ;;
	# IB routers: four HCAs on two switches and one router (R1) or two
	# (R2 too) on the switches' port 4 (router_net).
	routers1) router_net 1 >"$out" && : >"$flags" ;;
	routers2) router_net 2 >"$out" && : >"$flags" ;;
	*) return 1 ;;
	esac
	# torus-2QoS's configuration for the grids: the torus's size, and its
	# +x and +y directions seeded with switch GUIDs (ibsim numbers switches
	# 0x200000 + n in net-file order; gen-torus is row-major, x fastest).
	case "$1" in
	torus3x3) t2q 3 3 torus ;;
	torus4x4) t2q 4 4 torus ;;
	mesh3x4) t2q 3 4 mesh ;;
	esac
	return 0
}
# A net with N (1 or 2) IB routers. A router needs its rtguid= line (else
# its GUID is 0 and OpenSM refuses it) and both ends of its link in the
# file. R1's port GUID 0x0100000000000a01 is the smaller number, R2's
# 0x0200000000000501 the smaller byte-swapped: OpenSM's "first router".
router_net() {
	local n=$1
	printf 'Hca\t1 "Hca%d"\n[1]\t"Switch%d"[%d]\n\n' 1 1 1 2 2 1 3 1 2 4 2 2
	printf 'Switch\t8 "Switch1"\n[1]\t"Hca1"[1]\n[2]\t"Hca3"[1]\n[3]\t"Switch2"[3]\n[4]\t"R1"[1]\n\n'
	printf 'Switch\t8 "Switch2"\n[1]\t"Hca2"[1]\n[2]\t"Hca4"[1]\n[3]\t"Switch1"[3]\n'
	[ "$n" = 2 ] && printf '[4]\t"R2"[1]\n'
	printf '\nrtguid=0x0100000000000a00\nRt\t2 "R1"\n[1]\t"Switch1"[4]\n'
	[ "$n" = 2 ] && printf '\nrtguid=0x0200000000000500\nRt\t2 "R2"\n[1]\t"Switch2"[4]\n'
	return 0
}
t2q() { # X Y torus|mesh -> $work/NET.t2q (NET from make_net's $out)
	local x=$1 y=$2 f=${out%.net}.t2q
	printf '%s %s %s 1\nxp_link 0x200000 0x200001\n' "$3" "$x" "$y" >"$f"
	# A ring of 4 needs its minus direction seeded too (torus-2QoS.conf(5));
	# a dimension of 1 has none.
	[ "$3" = torus ] && [ "$x" = 4 ] && printf 'xm_link 0x200000 0x%x\n' $((0x200000 + x - 1)) >>"$f"
	[ "$y" -gt 1 ] && printf 'yp_link 0x200000 0x%x\n' $((0x200000 + x)) >>"$f"
	[ "$3" = torus ] && [ "$y" = 4 ] && printf 'ym_link 0x200000 0x%x\n' $((0x200000 + x * (y - 1))) >>"$f"
	return 0
}

# A QoS policy of most kinds of group and rule (doc/fidelity.md; the suite
# has the rest): storage by port name on SL 3 with an MTU and rate limit,
# paths from switches by node type, a service-ID range and a QoS class
# rule, and a default level.
cat >"$work/qos-policy.conf" <<'EOF'
port-groups
  port-group
    name: storage
    port-name: Hca2/P1, Hca3/P1
  end-port-group
  port-group
    name: switches
    node-type: SWITCH
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: storage-level
    sl: 3
    mtu-limit: 4
    rate-limit: 3
  end-qos-level
  qos-level
    name: bulk
    sl: 5
    packet-life: 16
    path-bits: 1
  end-qos-level
  qos-level
    name: default
    sl: 1
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    destination: storage
    qos-level-name: storage-level
  end-qos-match-rule
  qos-match-rule
    source: switches
    qos-level-name: bulk
  end-qos-match-rule
  qos-match-rule
    service-id: 0x1000-0x1fff
    qos-level-name: bulk
  end-qos-match-rule
  qos-match-rule
    qos-class: 7
    qos-level-name: bulk
  end-qos-match-rule
end-qos-match-rules
EOF

# Partitions: a second one with its own SL, every port a full member, and
# a third whose CAs are limited members (the SA answers no path between
# two of them).
cat >"$work/partitions.conf" <<'EOF'
Default=0x7fff : ALL=full ;
storage=0x0002, sl=2 : ALL=full ;
limited=0x0003, sl=4 : ALL_CAS=limited, ALL_SWITCHES=full ;
EOF

# OpenSM's prefix routes for the router nets: 2001:db8::/64 to R1, 3000::
# to R1's node GUID (no router port: the SA refuses that prefix though a
# wildcard follows), every other prefix to the first router (R2 when there
# are two). And the DGIDs the router nets are asked for: one of each of
# those prefixes, one of no route's but the wildcard's, and two local ones
# (with and without a port).
printf '20010db800000000 0x0100000000000a01\n3000000000000000 0x0100000000000a00\n* *\n' \
	>"$work/prefix-routes.conf"
router_dgids=2001:db8::1:2,3000::7,4000::1,fec0::1,fe80::99,fe80::10:3

# Engines and where they mean something (lash, dfsssp, nue and dor need
# loops or a grid; updn and ftree a tree).
configs=()
add() { configs+=("$*"); }
for net in fattree12 fattree24 net net.1 net.2sw2path 2sw2path4hca 2sw2path4hca2port; do
	for eng in minhop updn dnup ftree sssp dfsssp lash nue; do add "$net $eng"; done
done
for net in routers1 routers2; do
	for eng in minhop updn dnup sssp dfsssp lash nue; do add "$net $eng"; done
done
for net in torus3x3 torus4x4 mesh3x4 ring5; do
	for eng in minhop dor lash dfsssp sssp nue updn torus-2QoS; do
		# gen-torus's ring (5 x 1) is not one torus-2QoS can seed.
		[ "$net $eng" = "ring5 torus-2QoS" ] || add "$net $eng"
	done
done

# One configuration: NET ENGINE LMC VARIANT (empty, qos or partitions).
# Prints its lines; returns 1 on a mismatch or failure, 2 when FILTER
# leaves it out.
run_one() {
	local net=$1 eng=$2 lmc=$3 variant=$4
	local label="$net $eng lmc=$lmc${variant:+ $variant}"
	[ -z "$filter" ] || [[ "$label" == *"$filter"* ]] || return 2
	make_net "$net" || { echo "$label: FAIL (no such net)"; return 1; }
	local dir=$work/run.$$.$RANDOM
	mkdir -p "$dir"
	cat >"$dir/opensm.conf" <<-EOF
		event_plugin_name ibssa_osm
		event_plugin_options dump_dir=$dir/smdb log_file=$dir/plugin.log core=0
	EOF
	# Router nets: OpenSM reads the prefix routes only from the -F file;
	# without them (variant noroutes) its SA refuses every off-subnet DGID.
	local routed=0
	[[ "$net" == routers* ]] && routed=1
	[ "$routed" = 1 ] && [ "$variant" != noroutes ] &&
		echo "prefix_routes_file $work/prefix-routes.conf" >>"$dir/opensm.conf"
	local args=(run --net "$work/$net.net" --sm-node Hca1 --run-dir-parent "$dir"
		--opensm-arg -F --opensm-arg "$dir/opensm.conf" --opensm-arg -R --opensm-arg "$eng"
		--opensm-arg -l --opensm-arg "$lmc" --opensm-env "LD_LIBRARY_PATH=$plugin_dir")
	local f
	for f in $(cat "$work/$net.flags"); do args+=(--ibsim-arg "$f"); done
	[ "$eng" = nue ] && args+=(--opensm-arg --nue_max_num_vls --opensm-arg 4)
	# torus-2QoS needs QoS on (its SLs select the VLs).
	[ "$eng" = torus-2QoS ] && args+=(--opensm-arg -Q --opensm-arg --torus_config
		--opensm-arg "$work/$net.t2q")
	[ "$variant" = qos ] && args+=(--opensm-arg -Q --opensm-arg -Y --opensm-arg "$work/qos-policy.conf")
	[ "$variant" = partitions ] && args+=(--opensm-arg -P --opensm-arg "$work/partitions.conf")
	local queries=("" "--pkey-from-path")
	[ "$variant" = qos ] && queries+=("--service-id 0x1234" "--qos-class 7")
	[ "$variant" = partitions ] && queries+=("--pkey 0x8002" "--pkey 0x0003")
	# Router nets: each DGID from every source, by SGID and DGID.
	[ "$routed" = 1 ] && queries+=("--dgid $router_dgids" "--dgid $router_dgids --pkey-from-path"
		"--dgid $router_dgids --reversible")
	# The node that asks the SA: Hca2, except on `net`, where Hca2 is cabled
	# on its second port and umad2sim shows a node's first port only.
	local asker=Hca2
	[ "$net" = net ] && asker=Hca1
	local lmc_all=()
	[ "$lmc" -gt 0 ] && lmc_all=(--lmc-all)
	# Inside the fabric: wait for the plugin's first SMDB, then compare as
	# the asker for every query shape.
	local out
	out=$("$simfab" "${args[@]}" -- bash -c '
		dump=$1; smdb=$2; asker=$3; shift 3
		for _ in $(seq 600); do [ -e "$dump/latest" ] && break; sleep 0.1; done
		[ -e "$dump/latest" ] || { echo "no SMDB from the plugin"; exit 1; }
		# The engine that routed (OpenSM falls back to minhop when the asked
		# one fails on a topology).
		"$smdb" dump "$dump/latest" | grep -om1 "routing_engine[ =:]*[^ ,]*"
		rc=0
		while [ $# -gt 0 ]; do
			q=$1; shift
			line=$("$SIMFAB_BIN" node "$asker" -- "$smdb" compare "$dump/latest" --from all --to all \
				--max-print 2 '"${lmc_all[*]}"' $q 2>&1) || rc=1
			sum=$(echo "$line" | grep -E "^compare:" | grep -oE "(pairs|no_path|mismatched|sa_failures|not_exact|sl_drawn)=[0-9]+" | tr "\n" " ")
			[ -n "$sum" ] || rc=1
			echo "[${q:-plain}] ${sum:-$(echo "$line" | tail -3 | tr "\n" " ")}"
			echo "$line" | grep -E "^mismatch" | head -2 | sed "s/^/    /"
		done
		exit $rc' _ "$dir/smdb" "$smdb_tool" "$asker" "${queries[@]}" 2>&1)
	local rc=$?
	local bad
	bad=$(echo "$out" | grep -cE '(mismatched|sa_failures)=[1-9]')
	if [ "$rc" -ne 0 ] || [ "$bad" -ne 0 ] || ! grep -q 'pairs=' <<<"$out"; then
		echo "$label: FAIL"
		echo "$out" | sed 's/^/    /' | head -20
		rm -rf "$dir"
		return 1
	fi
	echo "$label: ok"
	echo "$out" | grep -E '^\[|^routing_engine' | sed 's/^/    /'
	rm -rf "$dir"
	return 0
}

failed=0
total=0
count() { # the status of run_one
	case "$1" in
	0) total=$((total + 1)) ;;
	2) ;;
	*) total=$((total + 1)) failed=$((failed + 1)) ;;
	esac
}
for c in "${configs[@]}"; do
	set -- $c
	if [ "$quick" = 1 ]; then
		run_one "$1" "$2" 0 ""
		count $?
		continue
	fi
	# LMC 0, 1 and 2; QoS at LMC 0 and 1 (a level's SL for each LID of a
	# multi-LID port); partitions at LMC 0.
	variants=("0 " "0 qos" "0 partitions" "1 " "1 qos" "2 ")
	# Router nets: with and without prefix routes too.
	[[ "$1" == routers* ]] && variants+=("0 noroutes" "1 noroutes")
	for variant in "${variants[@]}"; do
		run_one "$1" "$2" "${variant% *}" "${variant#* }"
		count $?
	done
done
echo "fidelity-sweep: $((total - failed)) configurations equal the SA, $failed failed"
[ "$failed" -eq 0 ] && [ "$total" -gt 0 ]
