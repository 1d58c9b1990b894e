/* too_small.c: a table that claims to end right after resolve, short of the
 * 1.0 table: must be rejected ("struct too small: N bytes, need at least M"). */
#include <stddef.h>

#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "too_small", 1);
	table.size = offsetof(struct ssa_provider, resolve) + sizeof(table.resolve);
	return &table;
}
