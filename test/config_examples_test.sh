#!/bin/sh
# config_examples_test.sh: the example configuration files (etc/acm_opts.cfg,
# etc/ibssa_opts.cfg, etc/opensm-ibssa.conf) are what the built programs'
# option tables make (scripts/config-examples.py): every option with its
# default, no option line the programs do not know. On a difference it
# prints the diff; `make update-config-examples` rewrites the files.
set -u
srcdir=${srcdir:-.}
builddir=$(pwd)
v() { sed -n "s/^$1 = //p" Makefile; }
# The build's directories, as the man pages name them (the make target's
# maps, from the same variables).
sysconfdir=$(v sysconfdir)
prefix=$(v prefix)
libdir=$(v libdir | sed "s|\${exec_prefix}|$prefix|; s|\${prefix}|$prefix|")
up=$(v upstream_provider_dir)
out=$(${PYTHON3:-python3} "$srcdir/scripts/config-examples.py" --build "$builddir" --srcdir "$srcdir" \
	--map "$sysconfdir/rdma=/etc/rdma" --map "$libdir/ibacm-ssa=/usr/lib/<multiarch>/ibacm-ssa" \
	--map "$up=/usr/lib/<multiarch>/ibacm" --check 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ]; then
	echo "OK (1 tests, 1 ran, 3 checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 0
fi
echo "FAIL: the example configuration files are not what the option tables make (make update-config-examples)"
echo "Errors (1 failures, 1 tests, 1 ran, 3 checks, 0 ignored, 0 filtered out, 0 ms)"
exit 1
