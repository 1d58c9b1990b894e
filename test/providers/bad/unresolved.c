/* unresolved.c: a provider that calls a function no library defines. Bound
 * lazily it would load and crash the daemon at its first init(); the loader
 * binds eagerly, so it is rejected at load time with ld.so's message. */
#include "test/providers/stub_provider.h"

void ssa_test_symbol_nobody_defines(void);

static struct ssa_provider table;

static int unresolved_init(const struct ssa_core_ops *ops, ssa_core_t *core, void **prov_ctx)
{
	(void)ops;
	(void)core;
	*prov_ctx = NULL;
	ssa_test_symbol_nobody_defines();
	return 0;
}

const struct ssa_provider *ssa_provider_entry(uint16_t core_major, uint16_t core_minor)
{
	(void)core_major;
	(void)core_minor;
	stub_provider_fill(&table, "unresolved", 1);
	table.init = unresolved_init;
	return &table;
}
