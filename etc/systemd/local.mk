# etc/systemd/: the systemd units (ibacm.service with ibacm.socket, and
# ibssa.service), installed into the unit directory configure chose
# (--with-systemdsystemunitdir; `no` installs none). Made from the .in files
# at make time, so they name the installed programs wherever the prefix is.
SYSTEMD_UNITS = etc/systemd/ibacm.service etc/systemd/ibacm.socket etc/systemd/ibssa.service
if WITH_SYSTEMD_UNITS
systemdsystemunit_DATA = $(SYSTEMD_UNITS)
else
noinst_DATA += $(SYSTEMD_UNITS)
endif
EXTRA_DIST += etc/systemd/ibacm.service.in etc/systemd/ibacm.socket.in \
	etc/systemd/ibssa.service.in
CLEANFILES += $(SYSTEMD_UNITS)

# The socket stays at /run/ibacm-unix.sock whatever the prefix: that is
# where the daemon's default, ib_acme and librdmacm look.
SYSTEMD_UNIT_SUBST = $(SED) -e 's|@sbindir[@]|$(sbindir)|g' -e 's|@ssaconfdir[@]|$(ssaconfdir)|g'
etc/systemd/ibacm.service: $(srcdir)/etc/systemd/ibacm.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && $(SYSTEMD_UNIT_SUBST) $(srcdir)/etc/systemd/ibacm.service.in >$@
etc/systemd/ibacm.socket: $(srcdir)/etc/systemd/ibacm.socket.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && $(SYSTEMD_UNIT_SUBST) $(srcdir)/etc/systemd/ibacm.socket.in >$@
etc/systemd/ibssa.service: $(srcdir)/etc/systemd/ibssa.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) etc/systemd && $(SYSTEMD_UNIT_SUBST) $(srcdir)/etc/systemd/ibssa.service.in >$@

# systemd-analyze verify and what the daemons rely on (skips without systemd).
TESTS += test/systemd_units_test.sh
EXTRA_DIST += test/systemd_units_test.sh
