#!/bin/bash
# readme_steps_test.sh: the README's "Run it yourself" steps, exactly as
# written, pass. The sh blocks of that section are taken from README.md and
# run one after the other in one bash (set -e), from a directory whose
# build/ is this build, as a newcomer would paste them after the quick
# start. Then the test checks what they were to show: an ibssa access node
# and ibacm (provider ssa) in the tree ssa-tree drew, a path from the stock
# ib_acme, 0 route queries to the SA, and nothing left running or behind
# after the last block (simfab down). Whatever fails, the fabric and the
# daemons are stopped (simfab down again, then the processes of the run
# directory).
set -u
srcdir=$(cd "${srcdir:-.}" && pwd)
builddir=$(pwd)
# check WHAT COMMAND... and summary: the SDK tests' (CppUTest-style lines).
# shellcheck source=test/sdk/lib.sh
source "$srcdir/test/sdk/lib.sh"
[ -x /usr/bin/ib_acme ] || {
	echo "SKIP: the stock ib_acme (Debian package ibacm) is not installed"
	exit 77
}
# The steps are a person's, with the plain build: a sanitizer build's
# plugin needs its runtime preloaded into OpenSM, which they do not do.
[ -z "$(sed -n 's/^SANITIZER_FLAGS = //p' Makefile)" ] || {
	echo "SKIP: the README's steps run in the plain build (this one has sanitizers)"
	exit 77
}
[ -e "$builddir/opensm_plugin/.libs/libibssa_osm.so" ] || {
	echo "SKIP: built without the OpenSM plugin"
	exit 77
}

# The steps: every ```sh block between "## Run it yourself" and the next
# "## " heading.
steps=$(awk '/^## /{ on = ($0 ~ /^## Run it yourself/) } on && /^```/{ inblock = !inblock; next } on && inblock' \
	"$srcdir/README.md")
check "README.md has a 'Run it yourself' section with commands" test -n "$steps"
check "... which brings a fabric up and takes it down" \
	grep -q 'simfab up' <<<"$steps"
check "... and stops it all at the end" test "$(tail -n1 <<<"$steps" | grep -c 'simfab down')" = 1

work=$(mktemp -d "${TMPDIR:-/tmp}/readme-steps.XXXXXX")
ln -s "$builddir" "$work/build"
# What the steps leave in the environment (SIMFAB_DIR, d) for the checks
# and the cleanup; one line each after every command.
trace=$work/trace
cleanup() {
	local dir d
	dir=$(sed -n 's/^SIMFAB_DIR=//p' "$trace" 2>/dev/null | tail -n1)
	d=$(sed -n 's/^d=//p' "$trace" 2>/dev/null | tail -n1)
	if [ -n "$dir" ] && [ -d "$dir" ]; then
		SIMFAB_DIR=$dir "$builddir/test/sim/simfab" down --timeout 30 >/dev/null 2>&1 || true
	fi
	if [ -n "$d" ] && [ -d "$d" ]; then
		for pid in $(cat "$d"/*/*.pid 2>/dev/null); do kill "$pid" 2>/dev/null; done
		rm -rf "$d"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# The steps, with a trap that records the variables after each command
# and the output of each for the checks below.
script=$work/steps.sh
{
	echo 'set -e'
	echo "cd '$work'"
	echo "trap 'printf \"SIMFAB_DIR=%s\\nd=%s\\n\" \"\${SIMFAB_DIR:-}\" \"\${d:-}\" >>$trace' DEBUG"
	printf '%s\n' "$steps"
} >"$script"
timeout 300 bash "$script" >"$work/out" 2>&1
rc=$?
check "the README's steps pass (exit status $rc)" test $rc -eq 0 || sed 's/^/    /' "$work/out"
out=$(cat "$work/out")
check "ssa-tree drew the core" grep -q '^core lid' <<<"$out"
check "... the access node under it" grep -q '^  access lid' <<<"$out"
check "... and the consumer under that" grep -q '^    consumer lid' <<<"$out"
check "the stock ib_acme got a path from ibacm with the ssa provider" grep -q 'return status 0x0' <<<"$out"
# ib_acme -P: a CSV header, then one line a daemon.
queries=$(awk -F, '/^svc,/ { for (i = 1; i <= NF; i++) if ($i == "Route Query Count") c = i; next }
	c && /ibacm-unix.sock,/ { print $c }' <<<"$out")
check "... from the PRDB, without a route query to the SA (Route Query Count '$queries')" test "$queries" = 0
dir=$(sed -n 's/^SIMFAB_DIR=//p' "$trace" | grep . | tail -n1)
check "simfab up gave a run directory" test -n "$dir"
check "simfab down removed it" test ! -e "$dir"
check "no simfab, ibsim or OpenSM of it left running" \
	test -z "$(pgrep -f -- "${dir:-/nonexistent}" 2>/dev/null)"
d=$(sed -n 's/^d=//p' "$trace" | grep . | tail -n1)
check "no ibssa or ibacm of the steps left running" \
	test -z "$(pgrep -f -- "${d:-/nonexistent}/" 2>/dev/null)"
summary
exit $?
