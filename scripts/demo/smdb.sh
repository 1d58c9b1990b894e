# shellcheck shell=bash
# smdb.sh: part 1 of the demo (sourced by demo-steps.sh). OpenSM comes up
# as the SM of the fabric with the ibssa_osm plugin loaded; the plugin
# extracts the subnet database (SMDB); the path-record engine's paths from
# it are checked against the live SA with `ssa-smdb compare`, run as a node.

dump_dir=$SIMFAB_DIR/smdb

start_opensm() { # NODE
	local dir=$SIMFAB_DIR/opensm
	mkdir -p "$dir"
	cat >"$dir/opensm.conf" <<-EOF
		event_plugin_name ibssa_osm
		event_plugin_options dump_dir=$dump_dir keep=4 log_file=$SIMFAB_DIR/ibssa_osm.log listen=127.0.0.1:0 lease_s=5
	EOF
	step "OpenSM as node $1: opensm -F RUN/opensm/opensm.conf${plugin_dir:+, with LD_LIBRARY_PATH=build/opensm_plugin/.libs}"
	rel <"$dir/opensm.conf" | indent
	# As simfab itself starts it: -s 0 (no periodic sweeps), -d2 (log
	# flushed per line), the log where `simfab wait-up` looks. Without
	# plugin_dir OpenSM finds the installed plugin by itself.
	"$simfab" node "$1" -- env ${plugin_dir:+LD_LIBRARY_PATH="$plugin_dir"} \
		OSM_CACHE_DIR="$dir" OSM_TMP_DIR="$dir" \
		opensm -F "$dir/opensm.conf" -f "$SIMFAB_DIR/osm.log" -s 0 -d2 >"$dir/opensm.out" 2>&1 &
	track opensm $!
	wait_until 30 "OpenSM's SUBNET UP" opensm_up
}
opensm_up() {
	[ "$("$simfab" up-count)" -gt 0 ] && return 0
	alive opensm && return 1
	cat "$SIMFAB_DIR/opensm/opensm.out" >&2
	die "OpenSM exited"
}
smdb_written() {
	[ -e "$dump_dir/latest" ] && return 0
	# A plugin OpenSM refused: OpenSM runs on without it, so say why now.
	! grep -E 'ibssa_osm: ERROR|cannot load plugin' "$SIMFAB_DIR/osm.log" >&2 ||
		die "OpenSM did not load the ibssa_osm plugin (above)"
	return 1
}

part_smdb() {
	part "1/4  OpenSM loads the ibssa_osm plugin, which extracts the subnet database (SMDB)"
	start_opensm Hca1
	step "OpenSM brought the subnet up; the plugin's lines in OpenSM's log:"
	wait_until 10 "the first SMDB version in RUN/smdb" smdb_written
	grep -q 'ibssa_osm: loaded' "$SIMFAB_DIR/osm.log" ||
		die "OpenSM did not load the plugin: $(grep ibssa_osm "$SIMFAB_DIR/osm.log")"
	log_lines "$SIMFAB_DIR/osm.log" 'ibssa_osm: (loaded|epoch)' | wrap | indent

	step "ssa-smdb dump RUN/smdb/latest -> $(readlink "$dump_dir/latest") (header and tables; records omitted):"
	"$smdb_tool" dump "$dump_dir/latest" | grep -E '^(smdb|table) ' | indent
	step "Ports with a LID in it (node, LID, port GUID):"
	smdb_lids "$dump_dir/latest" | indent

	local lid
	lid=$(lid_of Hca2)
	step "ssa-smdb compare, run as node Hca2: the engine's paths from Hca2 (LID $lid) to every LID,"
	echo "    computed from the SMDB, against the live SA's answers (SubnAdmGet PathRecord):"
	"$simfab" node Hca2 -- "$smdb_tool" compare "$dump_dir/latest" --from "$lid" | wrap | indent ||
		die "the engine and the SA disagree (above)"
}
