# shellcheck shell=bash
# lib.sh: helpers of the demo's parts, sourced by scripts/demo-steps.sh
# inside `simfab run` (SIMFAB_DIR and SIMFAB_BIN set; the programs'
# paths and $provdir set by demo-steps.sh). Every wait polls a condition
# against a deadline.

# Debian's stock client (package ibacm); ours where ibacm-ssa is installed.
acme=/usr/bin/ib_acme
acme_is=${acme_is:-"Debian's"}
simfab=$SIMFAB_BIN

part() { printf '\n=== %s\n' "$*"; }
step() { printf -- '--- %s\n' "$*"; }
indent() { sed 's/^/    /'; }
# The run directory is shown as RUN.
rel() { sed "s|$SIMFAB_DIR|RUN|g"; }
# Long lines wrapped at 100 columns, continuations indented.
wrap() {
	awk '{ out = ""; n = 0; w = split($0, words, " ")
		for (i = 1; i <= w; i++) {
			if (n > 0 && n + 1 + length(words[i]) > 100) { print out; out = "      "; n = 6 }
			else if (n > 0) { out = out " "; n++ }
			out = out words[i]; n += length(words[i]) }
		print out }'
}
die() {
	echo "demo: $*" >&2
	exit 1
}
# A claim the demo makes, checked: "ok: WHAT", or the demo fails.
check() { # WHAT COMMAND...
	local what=$1
	shift
	"$@" || die "NOT TRUE: $what"
	echo "    ok: $what"
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 20 ms until it
# succeeds; fails the demo, naming WHAT, after SECONDS. COMMAND may itself
# call die (e.g. when the process it waits for is gone).
wait_until() {
	local secs=$1 what=$2
	shift 2
	local now=${EPOCHREALTIME/./}
	local end=$((now + secs * 1000000))
	until "$@"; do
		now=${EPOCHREALTIME/./}
		[ "$now" -lt "$end" ] || die "timed out after ${secs} s waiting for $what"
		sleep 0.02
	done
}

# Lines of FILE matching PATTERN without their timestamp prefixes.
log_lines() { # FILE PATTERN
	grep -E -- "$2" "$1" | sed -E 's/^.* -> //; s/^[0-9TZ:.+-]+ //' | rel
}

# Processes the demo started, by label, stopped in reverse order on exit.
declare -A pid_of=()
started=()
track() { # LABEL PID
	pid_of[$1]=$2
	started+=("$1")
}
alive() { kill -0 "${pid_of[$1]}" 2>/dev/null; }
stop() { # LABEL: SIGTERM, then wait for it to exit
	local pid=${pid_of[$1]:-}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	unset "pid_of[$1]"
}
stop_all() {
	local i
	for ((i = ${#started[@]} - 1; i >= 0; i--)); do stop "${started[i]}"; done
}

# --------------------------------------------------------------- the SMDB

# One line per port that has a LID: DESCRIPTION LID PORT_GUID, from the
# text dump of an SMDB (CA ports and switch port 0).
smdb_lids() { # SMDB_FILE
	"$smdb_tool" dump "$1" | awk '
		function val(k,   i) { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
		$1 == "node" { d = $0; sub(/.*description="/, "", d); sub(/".*/, "", d); desc[val("node_guid")] = d }
		$1 == "port" && val("base_lid") != 0 { printf "%-8s %-3s %s\n", desc[val("node_guid")], val("base_lid"), val("port_guid") }'
}
lid_of() { # NODE: its LID in the newest SMDB ($dump_dir/latest)
	smdb_lids "$dump_dir/latest" | awk -v n="$1" '$1 == n { print $2 }'
}

# --------------------------------------------------------------- ibacm

# start_ibacm NODE PROVIDER NAME [ADDRESS...]: ibacm as simulated NODE with
# PROVIDER for its port and NAME (and the ADDRESSes) in its address file;
# returns once its client socket is up. Its files: $SIMFAB_DIR/PROVIDER-NODE.
start_ibacm() {
	local node=$1 prov=$2 name=$3
	shift 3
	local dir=$SIMFAB_DIR/$prov-$node a
	mkdir -p "$dir"
	for a in "$name" "$@"; do printf '%s ibsim0 1 default\n' "$a"; done >"$dir/addr.cfg"
	{
		printf '[core]\nlog_level = debug\nprovider = %s default\n' "$prov"
		[ $# -eq 0 ] || printf 'support_ips_in_addr_cfg = yes\n'
	} >"$dir/opts.cfg"
	"$simfab" node "$node" -- "$ibacm_bin" -P -O "$dir/opts.cfg" -A "$dir/addr.cfg" \
		-R "$dir/run" -L "$dir/ibacm.log" ${provdir:+--provider-dir "$provdir"} &
	track "$prov-$node" $!
	wait_until 10 "ibacm on $node to listen" ibacm_listening "$prov-$node"
}
ibacm_dir() { echo "$SIMFAB_DIR/$1"; }    # LABEL (PROVIDER-NODE)
sock() { echo "$SIMFAB_DIR/$1/run/ibacm-unix.sock"; }
ibacm_listening() { # LABEL
	[ -S "$(sock "$1")" ] && return 0
	alive "$1" && return 1
	echo "ibacm $1 exited; its log:" >&2
	cat "$(ibacm_dir "$1")/ibacm.log" >&2
	die "ibacm $1 did not come up"
}
ibacm_logged() { # LABEL TEXT
	grep -qF -- "$2" "$(ibacm_dir "$1")/ibacm.log"
}
# The daemon's log lines matching PATTERN, "ibacm[pid] level:" cut off.
ibacm_log() { # LABEL PATTERN
	log_lines "$(ibacm_dir "$1")/ibacm.log" "$2" | sed -E 's/^ibacm\[[0-9]+\] [a-z]+: //'
}

# resolve LABEL FORMAT SRC DST [SHOWN]: one path through the stock ib_acme,
# shown on one line after SHOWN (default "SRC -> DST"); fails the demo unless
# ib_acme says "return status 0x0".
resolve() {
	local label=$1 fmt=$2 src=$3 dst=$4 out
	local shown=${5:-$src -> $dst}
	out=$($acme -S "$(sock "$label")" -f "$fmt" -s "$src" -d "$dst" 2>&1) || true
	printf '%-20s %s\n' "$shown" "$(summarize_path <<<"$out")"
	grep -q 'return status 0x0' <<<"$out" || {
		printf '%s\n' "$out" | indent
		die "ib_acme -f $fmt -s $src -d $dst failed"
	}
}
# ib_acme's path record, one line: dlid, slid, dgid, mtu, rate, status.
summarize_path() {
	awk '
		{ i = index($0, ":"); k = substr($0, 1, i - 1); v = substr($0, i + 1); gsub(/[ \t]/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", v) }
		k ~ /^(dlid|slid|dgid|mtu|rate)$/ { f[k] = v }
		/return status/ { st = $0; sub(/.*return status /, "", st) }
		END { printf "dlid %-2s slid %-2s dgid %-22s mtu %s rate %s status %s\n", f["dlid"], f["slid"], f["dgid"], f["mtu"], f["rate"], st }'
}
# counter LABEL NAME: one daemon-wide counter ("Addr Query Count") of ib_acme -P col.
counter() {
	$acme -S "$(sock "$1")" -P col | awk -F' *: *' -v n="$2" '$1 == n { print $2 }'
}
