/* wrong_major.c: a provider built for a future ABI major: must be rejected
 * ("ABI major 2, core speaks 1"), since its table may have another layout. */
#include "test/providers/stub_provider.h"

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "wrong_major", 1);
	table.abi_major = SSA_PROV_ABI_MAJOR + 1;
	return &table;
}
