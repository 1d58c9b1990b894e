/* dup_provider.h: the body of dup_v1.so and dup_v2.so, two providers with
 * one name ("dup") and versions 1 and 2, for the loader's
 * higher-version-wins rule. dup_v1.c and dup_v2.c define DUP_VERSION and
 * include this. */
#ifndef IBACM_SSA_TEST_PROVIDERS_EXTRA_DUP_PROVIDER_H
#define IBACM_SSA_TEST_PROVIDERS_EXTRA_DUP_PROVIDER_H

#include "test/providers/stub_provider.h"

#ifndef DUP_VERSION
#error "define DUP_VERSION before including dup_provider.h"
#endif

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "dup", DUP_VERSION);
	return &table;
}

#endif
