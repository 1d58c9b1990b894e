/* empty_name.c: a provider with an empty name, which could be neither a
 * config section nor a "provider NAME ..." rule: rejected. */
#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "", 1);
	return &table;
}
