/* no_entry.c: the entry point under a misspelt name. Built without the
 * version script, so the misspelt symbol really is exported and the test
 * shows the loader looks up the exact name ("no entry symbol ..."). */
#include "test/providers/stub_provider.h"

const struct ssa_provider *ssa_provider_entri(uint16_t core_major, uint16_t core_minor);

static struct ssa_provider table;

const struct ssa_provider *ssa_provider_entri(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "no_entry", 1);
	return &table;
}
