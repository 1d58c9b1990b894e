/* answer_rule.c: see answer_rule.h. */
#include "common/answer/answer_rule.h"

#include <arpa/inet.h>

int ibssa_answer_same_partition(uint16_t record_pkey, uint16_t endpoint_pkey)
{
	return (record_pkey & 0x7fff) == (endpoint_pkey & 0x7fff);
}

uint64_t ibssa_answer_draw(uint64_t *state)
{
	uint64_t z = __atomic_add_fetch(state, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

int ibssa_answer_path(struct ibv_path_record *path, uint16_t record_pkey, unsigned sl_span,
		      uint16_t endpoint_pkey, uint64_t *draws)
{
	if (!ibssa_answer_same_partition(record_pkey, endpoint_pkey))
		return 0;
	path->pkey = htons(endpoint_pkey);
	if (sl_span > 1) {
		uint16_t qs = ntohs(path->qosclass_sl);
		uint16_t sl = (uint16_t)((qs & 0xf) + ibssa_answer_draw(draws) % sl_span);
		path->qosclass_sl = htons((uint16_t)((qs & ~0xfu) | (sl & 0xf)));
	}
	return 1;
}
