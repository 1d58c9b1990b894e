#!/bin/sh
# setup-debian.sh: install every Debian 12 package that building, testing and
# running the ibacm-ssa demo needs. Idempotent; run as root (or through sudo).
# The list is debian/control's Build-Depends (one list for both), without
# debhelper (only packaging needs it: scripts/package-test.sh installs it),
# plus build-essential, which Debian's build dependencies leave implied.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)

# Build-Depends: its continuation lines, comma-separated, each entry
# stripped of versions "(...)", architectures "[...]" and profiles "<...>".
build_depends() {
	awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
		on && /^[ \t]/ { print; next }
		on { exit }' "$top/debian/control" |
		tr ',' '\n' | sed -E 's/\([^)]*\)|\[[^]]*\]|<[^>]*>//g; s/[[:space:]]//g' |
		grep -v -e '^$' -e '^debhelper-compat$'
}
PACKAGES="build-essential $(build_depends | tr '\n' ' ')"
case "$PACKAGES" in
*libopensm-dev*) ;;
*) echo "setup: cannot read Build-Depends from $top/debian/control" >&2; exit 1 ;;
esac

missing=""
for p in $PACKAGES; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	echo "setup: all packages already installed"
	exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi
echo "setup: installing:$missing"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# The ibacm package ships a service; nothing here needs it running, and
# policy-rc.d keeps maintainer scripts from starting daemons in containers.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
echo "setup: done"
