# test/providers/: real provider shared objects for the loader's unit tests
# and the daemon's integration tests, built by "make check" only.
#
# Each directory's .libs/ then holds only its own .so files (plus libtool's
# .la/.lai/.o files, which the loader ignores):
#   good/.libs/   testprov.so only: point a daemon's provider_lib_path here
#   bad/.libs/    one .so per reason the loader rejects a provider
#   extra/.libs/  valid but not for a daemon: older.so (1.0-sized table),
#                 dup_v1.so and dup_v2.so (one name, versions 1 and 2)
# Tests get the directory through TEST_PROVIDER_CPPFLAGS:
#   TEST_PROVIDER_DIR "/good/.libs/testprov.so"

TEST_PROVIDER_CPPFLAGS = -DTEST_PROVIDER_DIR='"$(abs_top_builddir)/test/providers"'

# As providers/ builds real providers (providers/module.mk): a loadable
# module exporting only the entry point; -rpath makes libtool build a shared
# object, not a convenience archive, though it is never installed.
test_provider_ldflags = $(PROVIDER_MODULE_LDFLAGS) -rpath /nowhere
TEST_PROVIDER_LDFLAGS = $(test_provider_ldflags) -Wl,--version-script=$(PROVIDER_MAP)

check_LTLIBRARIES += test/providers/good/testprov.la
test_providers_good_testprov_la_SOURCES = test/providers/good/testprov.c
test_providers_good_testprov_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)

check_LTLIBRARIES += \
	test/providers/bad/wrong_major.la \
	test/providers/bad/missing_op.la \
	test/providers/bad/too_small.la \
	test/providers/bad/no_entry.la \
	test/providers/bad/entry_null.la \
	test/providers/bad/empty_name.la \
	test/providers/bad/long_name.la \
	test/providers/bad/unresolved.la
test_providers_bad_wrong_major_la_SOURCES = test/providers/bad/wrong_major.c test/providers/stub_provider.h
test_providers_bad_wrong_major_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_bad_missing_op_la_SOURCES = test/providers/bad/missing_op.c test/providers/stub_provider.h
test_providers_bad_missing_op_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_bad_too_small_la_SOURCES = test/providers/bad/too_small.c test/providers/stub_provider.h
test_providers_bad_too_small_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
# No version script: the misspelt entry must really be exported.
test_providers_bad_no_entry_la_SOURCES = test/providers/bad/no_entry.c test/providers/stub_provider.h
test_providers_bad_no_entry_la_LDFLAGS = $(test_provider_ldflags)
test_providers_bad_entry_null_la_SOURCES = test/providers/bad/entry_null.c
test_providers_bad_entry_null_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_bad_empty_name_la_SOURCES = test/providers/bad/empty_name.c test/providers/stub_provider.h
test_providers_bad_empty_name_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_bad_long_name_la_SOURCES = test/providers/bad/long_name.c test/providers/stub_provider.h
test_providers_bad_long_name_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_bad_unresolved_la_SOURCES = test/providers/bad/unresolved.c test/providers/stub_provider.h
test_providers_bad_unresolved_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
# Lazily bound whatever LDFLAGS say: its test shows that a provider which
# loads lazily is still rejected, because the loader binds eagerly
# (RTLD_NOW). Debian's hardening (-z now, debian/rules) would otherwise
# mark it BIND_NOW. Automake's link command with -z lazy after $(LDFLAGS),
# where the last -z wins.
test_providers_bad_unresolved_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) \
	$(LIBTOOLFLAGS) --mode=link $(CCLD) $(AM_CFLAGS) $(CFLAGS) \
	$(test_providers_bad_unresolved_la_LDFLAGS) $(LDFLAGS) -Wl,-z,lazy -o $@

check_LTLIBRARIES += \
	test/providers/extra/older.la \
	test/providers/extra/dup_v1.la \
	test/providers/extra/dup_v2.la
test_providers_extra_older_la_SOURCES = test/providers/extra/older.c test/providers/stub_provider.h
test_providers_extra_older_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_extra_dup_v1_la_SOURCES = test/providers/extra/dup_v1.c \
	test/providers/extra/dup_provider.h test/providers/stub_provider.h
test_providers_extra_dup_v1_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)
test_providers_extra_dup_v2_la_SOURCES = test/providers/extra/dup_v2.c
test_providers_extra_dup_v2_la_LDFLAGS = $(TEST_PROVIDER_LDFLAGS)

# upstream/.libs/: libraries written for upstream ibacm's interface (built
# against Debian's <infiniband/acm_prov.h>) for the upstream bridge's tests
# (test/sdk/upstream_bridge_test.sh): libfakeacm.so works without a verbs
# device; libfakeacm_v2.so reports provider version 2;
# libfakeacm_unresolved.so needs a function no daemon exports. Their acm_*
# references stay undefined, as in any upstream provider: the bridge
# provides them at load time.
check_LTLIBRARIES += \
	test/providers/upstream/libfakeacm.la \
	test/providers/upstream/libfakeacm_v2.la \
	test/providers/upstream/libfakeacm_unresolved.la
test_providers_upstream_libfakeacm_la_SOURCES = test/providers/upstream/fakeacm.c
test_providers_upstream_libfakeacm_la_LDFLAGS = $(test_provider_ldflags)
test_providers_upstream_libfakeacm_la_LIBADD = $(VERBS_LIBS)
test_providers_upstream_libfakeacm_v2_la_SOURCES = test/providers/upstream/fakeacm.c
test_providers_upstream_libfakeacm_v2_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKEACM_VERSION=2
test_providers_upstream_libfakeacm_v2_la_LDFLAGS = $(test_provider_ldflags)
test_providers_upstream_libfakeacm_v2_la_LIBADD = $(VERBS_LIBS)
test_providers_upstream_libfakeacm_unresolved_la_SOURCES = test/providers/upstream/fakeacm.c
test_providers_upstream_libfakeacm_unresolved_la_CPPFLAGS = $(AM_CPPFLAGS) -DFAKEACM_UNRESOLVED
test_providers_upstream_libfakeacm_unresolved_la_LDFLAGS = $(test_provider_ldflags)
test_providers_upstream_libfakeacm_unresolved_la_LIBADD = $(VERBS_LIBS)
