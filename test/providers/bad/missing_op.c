/* missing_op.c: a provider without the mandatory resolve op: must be
 * rejected ("mandatory op resolve is NULL") rather than crash at the first
 * request. */
#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "missing_op", 1);
	table.resolve = NULL;
	return &table;
}
