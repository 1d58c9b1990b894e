/* entry_null.c: a provider that refuses the core's ABI version by returning
 * NULL from its entry, as the ABI allows: rejected, with no table read. */
#include <ibacm_ssa/provider.h>

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	return NULL;
}
