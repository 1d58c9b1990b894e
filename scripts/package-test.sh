#!/bin/bash
# package-test.sh: builds the packages and tries them out, as root on Debian
# 12. Not part of scripts/test.sh: it builds the project twice, runs the
# test suite inside the package build and sets up a Debian root, which takes
# 30 to 50 minutes on two cores (less on a rerun, with ccache and the
# downloaded packages cached in the work directory). Run it before
# resolving an issue that touches the build, the tests or the packaging.
#
#   1. the .deb files with `dpkg-buildpackage -b -us -uc` from a copy of
#      this tree, exactly as a user builds them: `make check` runs inside
#      the build under Debian's hardening flags (debian/rules; --nocheck
#      leaves it out with DEB_BUILD_OPTIONS=nocheck), then lintian on them;
#   2. a clean Debian 12 root (debootstrap from the mirror apt uses here, a
#      plain chroot), the .deb files installed into it with apt, every file
#      of `dpkg -L` checked against Debian's layout, and the demo's sa
#      provider step (scripts/demo-steps.sh --installed smdb sa: OpenSM
#      loading the installed plugin, the installed ibacm with its default
#      provider directory, the installed ib_acme) run inside it;
#   3. the RPM: `make dist`, then `rpmbuild -ta --nodeps` on the tarball
#      (--nodeps: the RPM build dependencies are Fedora's package names,
#      which Debian cannot install; the build uses the Debian packages
#      scripts/setup-debian.sh installed), and the packages' files and
#      dependencies checked.
#
# Options: --nocheck (no make check inside dpkg-buildpackage; --check, the
# default, is still accepted), --no-chroot, --no-rpm, --keep (keep the root
# and the builds). Work directory:
# $PACKAGE_TEST_DIR (default /var/tmp/ibacm-ssa-package-test). Mirror:
# $DEBIAN_MIRROR (default: the first Debian archive in apt's sources).
# Installs, with apt, what only this test needs: debhelper, lintian,
# debootstrap and rpm. Ends with "N passed, N failed".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${PACKAGE_TEST_DIR:-/var/tmp/ibacm-ssa-package-test}
check_build=1 chroot_test=1 rpm_test=1 keep=0
for arg in "$@"; do
	case "$arg" in
	--check) check_build=1 ;;
	--nocheck) check_build=0 ;;
	--no-chroot) chroot_test=0 ;;
	--no-rpm) rpm_test=0 ;;
	--keep) keep=1 ;;
	*) echo "usage: $0 [--nocheck] [--no-chroot] [--no-rpm] [--keep]" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "package-test: run as root (chroot, dpkg, apt)" >&2; exit 2; }

passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "package-test: logs and packages in $work"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
step() { printf '\n=== %s\n' "$*"; }

root=$work/root
mounted=()
cleanup() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
	mounted=()
	if [ "$keep" = 0 ] && [ -d "$root" ]; then rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT

step "Tools for this test (apt)"
need=""
for p in debhelper lintian debootstrap rpm; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
	echo "installing:$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null ||
		{ apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $need >/dev/null; }
fi
"$top/scripts/setup-debian.sh"
if [ -d /usr/lib/ccache ]; then export PATH=/usr/lib/ccache:$PATH; fi

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
upstream=$(sed -n 's/^AC_INIT(\[ibacm-ssa\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
check "debian/changelog's version ($version) is configure.ac's ($upstream)" test "$version" = "$upstream"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
packages="ibacm-ssa ibacm-ssa-dev ibssa ibssa-opensm-plugin"

# ------------------------------------------------------------- 1. .deb
step "Debian packages: dpkg-buildpackage -b -us -uc"
mkdir -p "$work"
src=$work/src/ibacm-ssa-$version
rm -rf "$work/src"
mkdir -p "$src"
# The tree as it is (tracked and new files), without build products.
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - --ignore-failed-read -cf -) | tar -xf - -C "$src"
opts="parallel=2"
[ "$check_build" = 1 ] || opts="nocheck $opts"
echo "DEB_BUILD_OPTIONS=\"$opts\"; log: $work/deb-build.log"
if (cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -b -us -uc) >"$work/deb-build.log" 2>&1; then
	ok "dpkg-buildpackage -b -us -uc"
else
	tail -n 40 "$work/deb-build.log"
	bad "dpkg-buildpackage -b -us -uc (log: $work/deb-build.log)"
	finish
fi
debs=()
for p in $packages; do
	f=$(ls "$work/src/${p}_${version}_"*.deb 2>/dev/null | head -n1 || true)
	if [ -n "$f" ]; then debs+=("$f"); else bad "no .deb for $p"; fi
done
[ ${#debs[@]} -eq 4 ] && ok "four binary packages: $packages"

step "lintian"
lintian --fail-on error --tag-display-limit 0 "$work/src/"*.changes | tee "$work/lintian.out" ||
	bad "lintian reports errors (above)"
grep -q '^E: ' "$work/lintian.out" || ok "lintian: no errors ($(grep -c '^W: ' "$work/lintian.out" || true) warnings)"

# Every path a package installs must be where Debian puts such files.
layout_ok() { # PACKAGE: its list of paths in $work/list-PACKAGE
	local pkg=$1 list bad_paths
	list=$(cat "$work/list-$pkg")
	bad_paths=$(grep -v -E \
		-e "^/\.?$" \
		-e "^/(usr|lib|usr/sbin|usr/bin|usr/lib|usr/include|usr/share|usr/share/man|usr/share/doc|lib/systemd|lib/systemd/system|usr/share/lintian|usr/share/lintian/overrides)$" \
		-e "^/usr/s?bin/[^/]+$" \
		-e "^/usr/lib/$multiarch(/[^/]+)*$" \
		-e "^/usr/include/ibacm_ssa(/[^/]+)*$" \
		-e "^/usr/share/man/man[1-8](/[^/]+\.[1-8]\.gz)?$" \
		-e "^/usr/share/doc/$pkg(/[^/]+)*$" \
		-e "^/lib/systemd/system/[^/]+\.(service|socket)$" \
		-e "^/usr/share/lintian/overrides/$pkg$" <<<"$list" || true)
	bad_paths+=$'\n'$(grep -E '\.la$|^/usr/local' <<<"$list" || true)
	if [ -n "${bad_paths//$'\n'/}" ]; then
		echo "$pkg: outside Debian's layout:"
		grep -v '^$' <<<"$bad_paths" | sed 's/^/    /'
		return 1
	fi
}
has() { # PACKAGE PATH...: the package's list has every PATH
	local pkg=$1 path
	shift
	for path in "$@"; do
		grep -qxF "$path" "$work/list-$pkg" || { echo "$pkg lacks $path"; return 1; }
	done
}
check_listings() { # HOW: how the lists were made
	local p
	for p in $packages; do
		check "$p: every file in Debian's layout ($1)" layout_ok "$p"
	done
	check "ibacm-ssa: ibacm, ib_acme, the four providers, the units ($1)" has ibacm-ssa \
		/usr/sbin/ibacm /usr/bin/ib_acme /usr/lib/$multiarch/ibacm-ssa/sa.so \
		/usr/lib/$multiarch/ibacm-ssa/acmp.so /usr/lib/$multiarch/ibacm-ssa/ssa.so \
		/usr/lib/$multiarch/ibacm-ssa/upstream.so \
		/lib/systemd/system/ibacm.service /lib/systemd/system/ibacm.socket
	check "ibacm-ssa-dev: the header, ibacm-ssa-prov.pc, ibacm_prov(7), the example provider ($1)" \
		has ibacm-ssa-dev /usr/include/ibacm_ssa/provider.h \
		/usr/lib/$multiarch/pkgconfig/ibacm-ssa-prov.pc /usr/share/man/man7/ibacm_prov.7.gz \
		/usr/share/doc/ibacm-ssa-dev/examples/provider/Makefile \
		/usr/share/doc/ibacm-ssa-dev/examples/provider/pathfile.c
	check "ibssa: ibssa, ssa-tree, ssa-smdb, ibssa.service ($1)" has ibssa \
		/usr/sbin/ibssa /usr/bin/ssa-tree /usr/bin/ssa-smdb /lib/systemd/system/ibssa.service
	check "ibssa-opensm-plugin: libibssa_osm.so where OpenSM looks ($1)" has ibssa-opensm-plugin \
		"/usr/lib/$multiarch/libibssa_osm.so"
}
for f in "${debs[@]}"; do
	p=$(dpkg-deb -f "$f" Package)
	dpkg-deb -c "$f" | awk '{ print $6 }' | sed -E 's|^\./|/|; s|/$||; s|^$|/|' >"$work/list-$p"
done
check_listings "dpkg-deb -c"

osm_version=$(dpkg-query -W -f='${Version}' libopensm-dev)
plugin_depends=$(dpkg-deb -f "$work/src/ibssa-opensm-plugin_${version}_"*.deb Depends)
check "ibssa-opensm-plugin depends on exactly opensm $osm_version ($plugin_depends)" \
	grep -qF "opensm (= $osm_version)" <<<"$plugin_depends"
for field in Provides Conflicts Replaces; do
	check "ibacm-ssa $field: ibacm" grep -qw ibacm <<<"$(dpkg-deb -f "${debs[0]}" "$field")"
done

# ------------------------------------------------------------- 2. chroot
if [ "$chroot_test" = 1 ]; then
	step "A clean Debian 12 root with the packages installed (debootstrap, chroot)"
	mirror=${DEBIAN_MIRROR:-$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -oE '(https?|file)://[^ ]+/debian/?( |$)' | head -n1 | tr -d ' ' || true)}
	[ -n "$mirror" ] || { bad "no Debian mirror in /etc/apt/sources.list*; set DEBIAN_MIRROR"; finish; }
	cleanup
	mkdir -p "$work/debootstrap-cache"
	echo "debootstrap --variant=minbase bookworm from $mirror; log: $work/debootstrap.log"
	if debootstrap --variant=minbase --cache-dir="$work/debootstrap-cache" bookworm "$root" "$mirror" \
		>"$work/debootstrap.log" 2>&1; then
		ok "debootstrap bookworm"
	else
		tail -n 20 "$work/debootstrap.log"
		bad "debootstrap (log: $work/debootstrap.log)"
		finish
	fi
	mount -t proc proc "$root/proc" && mounted+=("$root/proc")
	mount --bind /dev "$root/dev" && mounted+=("$root/dev")
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	# Nothing starts daemons in a chroot.
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod +x "$root/usr/sbin/policy-rc.d"
	mkdir -p "$root/tmp/debs"
	cp "${debs[@]}" "$root/tmp/debs/"
	in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
	if in_root sh -c 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends /tmp/debs/*.deb ibsim-utils libumad2sim0' >"$work/chroot-install.log" 2>&1; then
		ok "apt-get install of the four .deb files (and ibsim for the demo) in the root"
	else
		tail -n 30 "$work/chroot-install.log"
		bad "installing the packages in the root (log: $work/chroot-install.log)"
		finish
	fi
	check "Debian's ibacm is not installed" test -z "$(in_root dpkg-query -W -f='${Status}' ibacm 2>/dev/null | grep ' installed' || true)"
	check "/usr/bin/ib_acme is ibacm-ssa's" grep -q "^ibacm-ssa:" <<<"$(in_root dpkg -S /usr/bin/ib_acme)"
	for p in $packages; do in_root dpkg -L "$p" >"$work/list-$p"; done
	check_listings "dpkg -L"
	check "the socket unit is enabled (sockets.target wants ibacm.socket)" \
		test -L "$root/etc/systemd/system/sockets.target.wants/ibacm.socket"
	check "ibssa.service is not enabled (it needs a role first)" \
		test ! -e "$root/etc/systemd/system/multi-user.target.wants/ibssa.service"

	step "The demo's sa provider step from the installed files"
	t=/opt/ibacm-ssa-test
	mkdir -p "$root$t/test/sim/nets"
	cp "$src/debian/build/test/sim/simfab" "$root$t/"
	cp -r "$src/scripts" "$root$t/"
	cp "$src/test/sim/nets/4hca.net" "$root$t/test/sim/nets/"
	if in_root "$t/simfab" run --net "$t/test/sim/nets/4hca.net" --no-sm -- \
		"$t/scripts/demo-steps.sh" --installed smdb sa 2>&1 | tee "$work/demo-installed.log"; then
		ok "demo steps smdb and sa with the installed ibacm, providers, plugin and ib_acme"
	else
		bad "the demo's steps in the root (log: $work/demo-installed.log)"
	fi
	check "the installed daemon loaded the sa provider from its default directory" \
		grep -q "/usr/lib/$multiarch/ibacm-ssa" "$work/demo-installed.log"
fi

# ------------------------------------------------------------- 3. rpm
if [ "$rpm_test" = 1 ]; then
	step "RPM: make dist, rpmbuild -ta --nodeps"
	dist=$work/dist
	rm -rf "$dist" "$work/rpm"
	mkdir -p "$dist"
	cp -a "$src/." "$dist/src"
	rm -rf "$dist/src/debian/build" "$dist/src/debian/tmp"
	if (cd "$dist/src" && (autoreconf -fi 2>&1 | grep -v "cannot remove 'core'" || true) &&
		./configure -q && make dist) >"$work/dist.log" 2>&1; then
		ok "make dist"
	else
		tail -n 20 "$work/dist.log"
		bad "make dist (log: $work/dist.log)"
		finish
	fi
	tarball=$dist/src/ibacm-ssa-$upstream.tar.gz
	check "the tarball holds the spec (rpmbuild -ta reads it there)" \
		grep -qx "ibacm-ssa-$upstream/ibacm-ssa.spec" <<<"$(tar -tzf "$tarball")"
	echo "log: $work/rpm-build.log"
	if rpmbuild -ta --nodeps --define "_topdir $work/rpm" "$tarball" >"$work/rpm-build.log" 2>&1; then
		ok "rpmbuild -ta --nodeps"
	else
		tail -n 30 "$work/rpm-build.log"
		bad "rpmbuild -ta --nodeps (log: $work/rpm-build.log)"
		finish
	fi
	rpmdir=$work/rpm/RPMS/$(uname -m)
	rpmfile() { ls "$rpmdir/$1-$upstream-"*.rpm 2>/dev/null | head -n1; }
	for p in ibacm-ssa ibacm-ssa-devel ibssa ibssa-opensm-plugin; do
		check "rpm $p built" test -n "$(rpmfile "$p")"
	done
	libdir=$(rpm --eval '%{_libdir}')
	rpm_has() { # PACKAGE PATH...
		local pkg=$1 list path
		shift
		list=$(rpm -qpl "$(rpmfile "$pkg")" 2>/dev/null)
		for path in "$@"; do
			grep -qxF "$path" <<<"$list" || { echo "rpm $pkg lacks $path"; return 1; }
		done
	}
	check "rpm ibacm-ssa: ibacm, ib_acme, providers, units" rpm_has ibacm-ssa \
		/usr/sbin/ibacm /usr/bin/ib_acme "$libdir/ibacm-ssa/sa.so" "$libdir/ibacm-ssa/acmp.so" \
		"$libdir/ibacm-ssa/ssa.so" "$libdir/ibacm-ssa/upstream.so" /usr/lib/systemd/system/ibacm.service \
		/usr/lib/systemd/system/ibacm.socket
	check "rpm ibacm-ssa-devel: header, pkg-config file, the example provider" rpm_has ibacm-ssa-devel \
		/usr/include/ibacm_ssa/provider.h "$libdir/pkgconfig/ibacm-ssa-prov.pc" \
		/usr/share/doc/ibacm-ssa-devel/examples/provider/Makefile \
		/usr/share/doc/ibacm-ssa-devel/examples/provider/pathfile.c
	check "rpm ibssa: ibssa and its unit" rpm_has ibssa \
		/usr/sbin/ibssa /usr/lib/systemd/system/ibssa.service
	check "rpm ibssa-opensm-plugin: the plugin" rpm_has ibssa-opensm-plugin "$libdir/libibssa_osm.so"
	osm_upstream=${osm_version%%-*}
	check "rpm ibssa-opensm-plugin requires opensm = $osm_upstream" \
		grep -qx "opensm = $osm_upstream" <<<"$(rpm -qp --requires "$(rpmfile ibssa-opensm-plugin)" 2>/dev/null)"
	check "rpm ibacm-ssa provides ibacm" \
		grep -q "^ibacm = " <<<"$(rpm -qp --provides "$(rpmfile ibacm-ssa)" 2>/dev/null)"
	check "rpm ibacm-ssa conflicts with ibacm" \
		grep -qx ibacm <<<"$(rpm -qp --conflicts "$(rpmfile ibacm-ssa)" 2>/dev/null)"
	check "no .la file and nothing under /usr/local in the rpms" \
		test -z "$(rpm -qpl "$rpmdir"/*.rpm 2>/dev/null | grep -E '\.la$|^/usr/local' || true)"
fi

finish
