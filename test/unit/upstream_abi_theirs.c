/* upstream_abi_theirs.c: upstream's provider structs from upstream's own
 * header, <infiniband/acm_prov.h> of Debian's ibacm package (see
 * upstream_abi_layout.h). */
#include <infiniband/acm_prov.h>
#include "test/unit/upstream_abi_layout.h"

const size_t *upstream_abi_theirs(size_t *count)
{
	static const size_t table[] = UPSTREAM_ABI_TABLE;

	*count = sizeof(table) / sizeof(table[0]);
	return table;
}
