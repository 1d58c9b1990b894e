#!/bin/sh
# systemd_units_test.sh: the systemd units of this build (etc/systemd/) pass
# `systemd-analyze verify`, and say what the daemons rely on: Type=notify
# with --systemd, the socket where clients look. Run by `make check` from
# the top build directory; skipped (exit 77) without systemd-analyze. Ends
# with a CppUTest-style summary line, which scripts/count-tests.sh counts:
#   OK (8 tests, 8 ran, ...)   or   Errors (1 failures, 8 tests, 8 ran, ...)
set -u
command -v systemd-analyze >/dev/null 2>&1 || {
	echo "SKIP: systemd-analyze is not installed (Debian package systemd)"
	exit 77
}
units="ibacm.socket ibacm.service ibssa.service"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 total=0
for u in $units; do
	[ -f "etc/systemd/$u" ] || { echo "FAIL: etc/systemd/$u was not built"; exit 1; }
	# verify checks that ExecStart's program is there: this build's daemons
	# stand in for the installed ones.
	sed -e "s|^ExecStart=[^ ]*/ibacm |ExecStart=$PWD/core/ibacm |" \
		-e "s|^ExecStart=[^ ]*/ibssa |ExecStart=$PWD/distrib/ibssa |" \
		"etc/systemd/$u" >"$tmp/$u"
done

# Anything verify says about our units is a finding (it also exits non-zero
# on errors); what it says about other units (rdma-core's, when they are not
# installed) is not.
(cd "$tmp" && systemd-analyze verify --man=no $units) >"$tmp/verify.out" 2>&1
rc=$?
cat "$tmp/verify.out"
total=$((total + 1))
if [ "$rc" -ne 0 ] || grep -E "($(echo "$units" | tr ' ' '|'))" "$tmp/verify.out" >/dev/null; then
	echo "FAIL: systemd-analyze verify (exit $rc) complains about the units"
	fail=$((fail + 1))
else
	echo "ok: systemd-analyze verify $units"
fi

expect() { # UNIT LINE: the unit has exactly this line
	total=$((total + 1))
	if grep -qxF -- "$2" "$tmp/$1"; then
		echo "ok: $1: $2"
	else
		echo "FAIL: $1 lacks '$2'"
		fail=$((fail + 1))
	fi
}
expect ibacm.socket "ListenStream=/run/ibacm-unix.sock"
expect ibacm.socket "Symlinks=/run/ibacm.sock"
expect ibacm.service "Type=notify"
expect ibacm.service "ExecStart=$PWD/core/ibacm --systemd"
expect ibacm.service "Wants=ibacm.socket"
expect ibssa.service "Type=notify"
expect ibssa.service "ExecStart=$PWD/distrib/ibssa --systemd"
if [ "$fail" -eq 0 ]; then
	echo "OK ($total tests, $total ran, $total checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 0
fi
echo "Errors ($fail failures, $total tests, $total ran, $total checks, 0 ignored, 0 filtered out, 0 ms)"
exit 1
