# providers/module.mk: how a provider module is linked, defined once for
# the providers (providers/*/local.mk) and the test providers
# (test/providers/local.mk). Automake has no functions: each stanza names
# these variables.
#
# A loadable module: no "lib" prefix, no version, dlopen()ed by the core.
PROVIDER_MODULE_LDFLAGS = -module -avoid-version -shared
# The version script that exports ssa_provider_entry and nothing else; a
# module that uses it also depends on it (EXTRA_..._DEPENDENCIES), so a
# change to it relinks.
PROVIDER_MAP = $(top_srcdir)/providers/provider.map
PROVIDER_LDFLAGS = $(PROVIDER_MODULE_LDFLAGS) -Wl,--version-script=$(PROVIDER_MAP)
