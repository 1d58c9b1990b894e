/* older.c: a provider built against ABI 1.0 whose table is exactly the 1.0
 * size. When later minors append ops to struct ssa_provider, this file still
 * says SSA_PROVIDER_V1_0_SIZE, so it stands for an old provider loaded by a
 * newer core: it must be accepted, and any op past its size read as absent. */
#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "older", 1);
	table.size = SSA_PROVIDER_V1_0_SIZE;
	table.abi_minor = 0;
	return &table;
}
