#!/bin/sh
# setup-debian.sh: install every Debian 12 package that building, testing and
# running the ibacm-ssa demo needs. Idempotent; run as root (or through sudo).
set -eu

PACKAGES="
  build-essential autoconf automake libtool pkg-config make python3
  libibumad-dev libibverbs-dev librdmacm-dev rdma-core
  libopensm-dev opensm
  ibsim-utils libumad2sim0 infiniband-diags ibacm
  libltdl-dev libinih-dev libboost-dev libcpputest-dev
  clang libclang-rt-14-dev
"

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
