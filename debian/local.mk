# debian/: the Debian packaging (dpkg-buildpackage -b), in the dist tarball
# too, so the tarball builds .deb files as well as .rpm files and
# scripts/setup-debian.sh finds its package list (debian/control) there.
EXTRA_DIST += debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/ibacm-ssa.docs debian/ibacm-ssa.install \
	debian/ibacm-ssa-dev.install debian/ibssa.install debian/ibssa-opensm-plugin.install \
	debian/ibacm-ssa.lintian-overrides debian/ibssa-opensm-plugin.lintian-overrides \
	debian/ibssa-opensm-plugin.triggers
