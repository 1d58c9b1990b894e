# shellcheck shell=bash
# lib.sh: what the SDK's script tests share (sourced). Each check is one
# test case; the script ends with a CppUTest-style summary line, which
# scripts/count-tests.sh adds up like the C++ tests':
#   OK (N tests, N ran, N checks, 0 ignored, 0 filtered out, T ms)
#   Errors (F failures, N tests, N ran, N checks, 0 ignored, 0 filtered out, T ms)
# Waits poll a condition against a deadline; no fixed sleeps.

# The source tree (automake's srcdir, else two above the script) and the
# top build directory the script runs from, both absolute.
srcdir=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
builddir=$(pwd)

sdk_checks=${sdk_checks:-0}
sdk_failures=${sdk_failures:-0}
sdk_t0=${sdk_t0:-${EPOCHREALTIME/./}}

# check WHAT COMMAND...: one test case; prints "ok: WHAT" or "FAIL: WHAT".
check() {
	local what=$1
	shift
	sdk_checks=$((sdk_checks + 1))
	if "$@"; then
		echo "ok: $what"
	else
		sdk_failures=$((sdk_failures + 1))
		echo "FAIL: $what"
		return 1  # so that `check ... || cat LOG` shows why
	fi
}

# summary: the closing line; returns non-zero if any check failed or none ran.
summary() {
	local ms=$(((${EPOCHREALTIME/./} - sdk_t0) / 1000))
	if [ "$sdk_failures" -eq 0 ] && [ "$sdk_checks" -gt 0 ]; then
		echo "OK ($sdk_checks tests, $sdk_checks ran, $sdk_checks checks, 0 ignored, 0 filtered out, $ms ms)"
		return 0
	fi
	echo "Errors ($sdk_failures failures, $sdk_checks tests, $sdk_checks ran, $sdk_checks checks, 0 ignored, 0 filtered out, $ms ms)"
	return 1
}

# A setup step that must work for the checks to mean anything: on failure
# the script ends at once, counted as one failed test case.
# not COMMAND...: true when COMMAND fails (for check).
not() { ! "$@"; }

fatal() {
	echo "FAIL: $*"
	sdk_checks=$((sdk_checks + 1))
	sdk_failures=$((sdk_failures + 1))
	summary
	exit 1
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND every 20 ms until it
# succeeds; false (after saying so) once SECONDS have passed, or at once
# when COMMAND returns 2 or more (what it waits for cannot happen any more).
wait_until() {
	local secs=$1 what=$2 rc
	shift 2
	local end=$((${EPOCHREALTIME/./} + secs * 1000000))
	while :; do
		"$@"
		rc=$?
		[ "$rc" -eq 0 ] && return 0
		[ "$rc" -ge 2 ] && return 1
		if [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
			echo "timed out after ${secs} s waiting for $what"
			return 1
		fi
		sleep 0.02
	done
}

# start_ibacm DIR IBACM PROVIDER_DIR NODE: the daemon IBACM as simulated NODE
# (simfab node), with DIR/opts.cfg and DIR/addr.cfg (written by the caller),
# its socket and pid file under DIR/run and its log in DIR/ibacm.log; sets
# ibacm_pid and returns once the socket is up (false if it died first).
start_ibacm() {
	local dir=$1 ibacm=$2 provdir=$3 node=$4
	"$SIMFAB_BIN" node "$node" -- "$ibacm" -P -O "$dir/opts.cfg" -A "$dir/addr.cfg" \
		-R "$dir/run" -L "$dir/ibacm.log" --provider-dir "$provdir" &
	ibacm_pid=$!
	wait_until 10 "ibacm to listen on $dir/run/ibacm-unix.sock" ibacm_up "$dir"
}
ibacm_up() { # DIR
	[ -S "$1/run/ibacm-unix.sock" ] && return 0
	kill -0 "$ibacm_pid" 2>/dev/null && return 1
	echo "ibacm exited before listening; its log:"
	cat "$1/ibacm.log"
	return 2
}
# stop_ibacm: SIGTERM and wait; returns the daemon's exit status.
stop_ibacm() {
	local rc=0
	[ -n "${ibacm_pid:-}" ] || return 0
	kill -TERM "$ibacm_pid" 2>/dev/null
	wait "$ibacm_pid" || rc=$?
	ibacm_pid=
	return "$rc"
}

# --- the two halves of a script test -------------------------------------
# A script runs first as itself (set-up checks, in a scratch directory),
# then again with --on-fabric inside `simfab run`; the counts travel in the
# environment, so the fabric half's summary line counts both.

# sdk_scratch NAME: a scratch directory (removed on exit) in $work.
sdk_scratch() {
	[ -x "$builddir/test/sim/simfab" ] || fatal "run from the top build directory (no test/sim/simfab)"
	work=$(mktemp -d "${TMPDIR:-/tmp}/ibacm-ssa-$1.XXXXXX") || fatal "mktemp"
	# shellcheck disable=SC2064  # $work is fixed now
	trap "rm -rf '$work'" EXIT
}

# run_on_fabric SCRIPT: runs SCRIPT --on-fabric in a fresh 4-HCA simulated
# fabric and exits with its status; a fabric half that ended without its
# summary (the fabric did not come up, a crash) is one more failure.
run_on_fabric() {
	local rc
	export SDK_WORK=$work sdk_checks sdk_failures sdk_t0
	"$builddir/test/sim/simfab" run --net "$srcdir/test/sim/nets/4hca.net" -- "$1" --on-fabric
	rc=$?
	if [ "$rc" -ne 0 ] && [ ! -f "$work/fabric.done" ]; then
		fatal "the simulated-fabric part exited $rc without a summary"
	fi
	exit "$rc"
}

# on_fabric_exit: the fabric half's exit trap (stops its daemon, says it
# got to the end).
on_fabric_exit() {
	trap 'stop_ibacm; touch "$SDK_WORK/fabric.done"' EXIT
}
