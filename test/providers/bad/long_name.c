/* long_name.c: a name that fills all SSA_PROV_NAME_MAX bytes with no NUL:
 * rejected without reading past the array. */
#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "long_name", 1);
	memset(table.name, 'x', sizeof(table.name));
	return &table;
}
