# fidelity-tools.sh: sourced by fidelity-sweep.sh and fidelity-random.sh.
# Sets what both run from the build tree (BUILD_DIR, default ./build):
# top, build, simfab, smdb_tool, plugin_dir; fidelity_check_tools NAME
# exits 2, naming the script, when one of them is not built.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$top/build}
simfab=$build/test/sim/simfab
smdb_tool=$build/util/smdb_tool/ssa-smdb
plugin_dir=$build/opensm_plugin/.libs

fidelity_check_tools() {
	local f
	for f in "$simfab" "$smdb_tool" "$plugin_dir/libibssa_osm.so"; do
		[ -e "$f" ] || { echo "$1: $f missing: run scripts/build.sh first" >&2; exit 2; }
	done
}
