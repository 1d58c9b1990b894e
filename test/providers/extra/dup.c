/* dup.c: built twice, as dup_v1.so and dup_v2.so, with DUP_VERSION 1 and 2:
 * two providers with one name, for the loader's higher-version-wins rule. */
#include "test/providers/stub_provider.h"

#ifndef DUP_VERSION
#error "build with -DDUP_VERSION=N"
#endif

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "dup", DUP_VERSION);
	return &table;
}
