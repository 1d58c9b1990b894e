#!/bin/bash
# install_layout_test.sh: a system install from source puts every file where
# the man pages say, and runs from a staging root as the README says.
#
# configure's defaults are a system install's directories (prefix /usr,
# configuration in /etc/rdma, /var, /run). `make install DESTDIR=ROOT` of
# this build must put the programs, providers, plugin, man pages and the
# examples (the configuration files, the OpenSM example, the Grafana
# dashboard, the example sources) under ROOT/usr, nothing under
# ROOT/usr/local, ROOT/usr/etc or ROOT/usr/var; the installed programs'
# defaults must be the man pages' paths; the staged ibacm, ibssa and the
# plugin's checker must accept the installed examples with no more than
# the README's `--provider-dir`; and `make install` in the checkout must
# run in the out-of-tree build (GNUmakefile). A build configured with
# another --prefix skips (77): its paths are its own.
set -u
srcdir=$(cd "${srcdir:-.}" && pwd)
builddir=$(pwd)
# check WHAT COMMAND... and summary: the SDK tests' (CppUTest-style lines).
# shellcheck source=test/sdk/lib.sh
source "$srcdir/test/sdk/lib.sh"

prefix=$(sed -n 's/^prefix = //p' Makefile)
if [ "$prefix" != /usr ] && ./config.status --config | grep -q -- "--prefix="; then
	echo "SKIP: this build was configured with --prefix=$prefix; the man pages' paths are a /usr install's"
	exit 77
fi
check "configure's default prefix is /usr (it is $prefix)" test "$prefix" = /usr
# Libraries go to configure's libdir: /usr/lib by default, a multiarch
# directory in a Debian build (dh passes --libdir).
exec_prefix=$(sed -n 's/^exec_prefix = //p' Makefile)
exec_prefix=${exec_prefix//'${prefix}'/$prefix}
libdir=$(sed -n 's/^libdir = //p' Makefile)
libdir=${libdir//'${exec_prefix}'/$exec_prefix}
libdir=${libdir//'${prefix}'/$prefix}
lib=${libdir#/}
with_opensm=yes
grep -q '^WITH_OPENSM_TRUE = #' Makefile && with_opensm=no
for var in sysconfdir localstatedir runstatedir; do
	val=$(sed -n "s/^$var = //p" Makefile)
	want=/etc
	[ $var = localstatedir ] && want=/var
	[ $var = runstatedir ] && want=/run
	check "configure's default $var is $want (it is $val)" test "$val" = $want
done

work=$(mktemp -d "${TMPDIR:-/tmp}/install-layout.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
# A nested make must not join the jobserver of the `make check` around us.
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$builddir" install DESTDIR="$root" >"$work/install.log" 2>&1; then
	tail -20 "$work/install.log"
	check "make install DESTDIR" false
	summary
	exit 1
fi

# --- where the files go --------------------------------------------------
ex=$root/usr/share/doc/ibacm-ssa/examples
want=(usr/sbin/ibacm usr/sbin/ibssa usr/bin/ib_acme usr/bin/ssa-tree usr/bin/ssa-smdb usr/bin/ssa-consumer
	$lib/ibacm-ssa/sa.so $lib/ibacm-ssa/acmp.so $lib/ibacm-ssa/ssa.so $lib/ibacm-ssa/upstream.so
	$lib/libibssa_path.so.0 usr/include/ibacm_ssa/provider.h $lib/pkgconfig/ibacm-ssa-prov.pc
	usr/share/doc/ibacm-ssa/examples/acm_opts.cfg usr/share/doc/ibacm-ssa/examples/ibssa_opts.cfg
	usr/share/doc/ibacm-ssa/examples/opensm-ibssa.conf usr/share/doc/ibacm-ssa/examples/grafana/ibacm-ssa.json
	usr/share/doc/ibacm-ssa/examples/provider/pathfile.c usr/share/doc/ibacm-ssa/examples/provider/Makefile
	usr/share/doc/ibacm-ssa/examples/shm_path/pathlookup.c usr/share/doc/ibacm-ssa/examples/shm_path/Makefile)
[ $with_opensm = yes ] && want+=("$lib/libibssa_osm.so")
for m in "$srcdir"/man/*.[0-9]; do
	base=${m##*/}
	want+=("usr/share/man/man${base##*.}/$base")
done
for f in "${want[@]}"; do
	check "installed: /$f" test -e "$root/$f"
done
stray=$(cd "$root" && find usr/local usr/etc usr/var etc var -mindepth 1 2>/dev/null | head -5)
check "nothing under /usr/local, /usr/etc, /usr/var, /etc or /var (configuration is the administrator's): $stray" \
	test -z "$stray"

# --- the installed programs' defaults are the man pages' -------------------
man_opts=$(grep -o '/etc/rdma/ibacm_opts\.cfg' "$srcdir/man/ibacm.8" | head -n1)
man_ssa=$(grep -o '/etc/rdma/ibssa_opts\.cfg' "$srcdir/man/ibssa.8" | head -n1)
check "ibacm(8) names /etc/rdma/ibacm_opts.cfg" test "$man_opts" = /etc/rdma/ibacm_opts.cfg
check "ibssa(8) names /etc/rdma/ibssa_opts.cfg" test "$man_ssa" = /etc/rdma/ibssa_opts.cfg
help=$("$root/usr/sbin/ibacm" --help 2>&1)
check "ibacm --help names its default options file $man_opts" grep -qF "$man_opts" <<<"$help"
help=$("$root/usr/sbin/ibssa" --help 2>&1)
check "ibssa --help names its default options file $man_ssa" grep -qF "$man_ssa" <<<"$help"

# --- the staged programs take the installed examples ----------------------
empty=$work/empty.cfg
: >"$empty"
out=$("$root/usr/sbin/ibacm" --check-config -O "$ex/acm_opts.cfg" -A "$empty" -R "$work/run" \
	--provider-dir "$root$libdir/ibacm-ssa" 2>&1)
check "the staged ibacm (--provider-dir, as the README says) takes the installed acm_opts.cfg" \
	test $? -eq 0 || echo "$out"
for s in core sa acmp ssa; do
	check "... and reads its [$s] section" grep -q "^\[$s\]" <<<"$out"
done
out=$("$root/usr/sbin/ibacm" --check-config -O "$empty" -A "$empty" -R "$work/run" 2>&1)
check "the staged ibacm's default provider directory is the installed one's path, $libdir/ibacm-ssa" \
	grep -Eq "^provider_lib_path +=  *$libdir/ibacm-ssa " <<<"$out" || echo "$out"
out=$("$root/usr/sbin/ibssa" --check-config -O "$ex/ibssa_opts.cfg" 2>&1)
check "the staged ibssa takes the installed ibssa_opts.cfg" test $? -eq 0 || echo "$out"
out=$("$root/usr/sbin/ibssa" --check-plugin-config "$ex/opensm-ibssa.conf" 2>&1)
check "ibssa --check-plugin-config takes the installed opensm-ibssa.conf" test $? -eq 0 || echo "$out"

# --- make install in the checkout runs in the build ------------------------
if [ ! -f "$srcdir/Makefile" ]; then
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$srcdir" -n install BUILD="$builddir" 2>&1)
	check "make install in the checkout runs in the build directory (GNUmakefile)" \
		grep -q "make.*-C $builddir install" <<<"$out" || echo "$out" | head -5
fi
summary
exit $?
