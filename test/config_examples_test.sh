#!/bin/sh
# config_examples_test.sh: the example configuration files (etc/acm_opts.cfg,
# etc/ibssa_opts.cfg, etc/opensm-ibssa.conf) are what the built programs'
# option tables make (scripts/config-examples.py, `make
# check-config-examples`): every option with its default, and no option
# line the programs do not know. On a difference it prints the diff; `make
# update-config-examples` rewrites the files.
set -u
# A nested make must not join the jobserver of the `make check` around us.
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s check-config-examples 2>&1)
rc=$?
printf '%s\n' "$out"
if [ $rc -eq 0 ]; then
	echo "OK (1 tests, 1 ran, 3 checks, 0 ignored, 0 filtered out, 0 ms)"
	exit 0
fi
echo "FAIL: the example configuration files are not what the option tables make (make update-config-examples)"
echo "Errors (1 failures, 1 tests, 1 ran, 3 checks, 0 ignored, 0 filtered out, 0 ms)"
exit 1
