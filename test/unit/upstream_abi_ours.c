/* upstream_abi_ours.c: upstream's provider structs as the bridge declares
 * them (see upstream_abi_layout.h). */
#include "providers/upstream/acm_prov_abi.h"
#include "test/unit/upstream_abi_layout.h"

const size_t *upstream_abi_ours(size_t *count)
{
	static const size_t table[] = UPSTREAM_ABI_TABLE;

	*count = sizeof(table) / sizeof(table[0]);
	return table;
}
