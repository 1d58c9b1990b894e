/* shm_prdb_search.c: binary searches of a validated table object (see
 * shm_prdb_format.h). No allocation, no system call: the lookup path of
 * libibssa_path. */
#include "common/shm_prdb/shm_prdb_format.h"

#include <string.h>

static const struct ibssa_shm_header *header(const void *object)
{
	return (const struct ibssa_shm_header *)object;
}

const struct ibssa_shm_port *ibssa_shm_ports(const void *object)
{
	return (const struct ibssa_shm_port *)((const uint8_t *)object +
					       header(object)->ports_offset);
}

/* The first of `count` entries of `size` bytes whose first `key_len` bytes
 * equal `key` (entries sorted by them), or NULL. */
static const void *search(const uint8_t *base, uint64_t count, size_t size, const void *key,
			  size_t key_len)
{
	uint64_t lo = 0, hi = count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int c = memcmp(base + mid * size, key, key_len);
		if (c == 0)
			return base + mid * size;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ibssa_shm_path *ibssa_shm_find_lid(const void *object,
						const struct ibssa_shm_port *port, uint16_t slid,
						uint16_t dlid)
{
	const struct ibssa_shm_path *p =
		(const struct ibssa_shm_path *)((const uint8_t *)object + port->paths_offset);
	uint32_t key = (uint32_t)slid << 16 | dlid;
	uint64_t lo = 0, hi = port->paths_count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		uint32_t k = (uint32_t)p[mid].slid << 16 | p[mid].dlid;
		if (k == key)
			return &p[mid];
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct ibssa_shm_path *
ibssa_shm_find_gid(const void *object, const struct ibssa_shm_port *port, const uint8_t dgid[16])
{
	const uint8_t *base = object;
	const struct ibssa_shm_gid *g =
		search(base + port->gids_offset, port->gids_count, sizeof(*g), dgid, 16);
	if (!g)
		return NULL;
	return (const struct ibssa_shm_path *)(base + port->paths_offset) + g->path_index;
}

const uint8_t *ibssa_shm_find_name(const void *object, const char *name)
{
	char key[64];
	size_t n = strnlen(name, sizeof(key));
	if (n == 0 || n >= sizeof(key))
		return NULL;
	memset(key, 0, sizeof(key));
	for (size_t i = 0; i < n; ++i) /* ASCII only, as the daemon folds case */
		key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
	const struct ibssa_shm_header *h = header(object);
	const struct ibssa_shm_name *e = search((const uint8_t *)object + h->names_offset,
						h->names_count, sizeof(*e), key, sizeof(key));
	return e ? e->gid : NULL;
}

const uint8_t *ibssa_shm_find_ip(const void *object, const uint8_t *ip, size_t len)
{
	uint8_t key[16] = {0};
	if (len == 4) {
		key[10] = key[11] = 0xff;
		memcpy(key + 12, ip, 4);
	} else if (len == 16) {
		memcpy(key, ip, 16);
	} else {
		return NULL;
	}
	const struct ibssa_shm_header *h = header(object);
	const struct ibssa_shm_ip *e = search((const uint8_t *)object + h->ips_offset, h->ips_count,
					      sizeof(*e), key, sizeof(key));
	return e ? e->gid : NULL;
}

const struct ibssa_shm_src *ibssa_shm_find_src(const void *object, uint16_t type,
					       const uint8_t *addr, size_t len)
{
	/* Few entries (a node's own addresses): a scan. */
	const struct ibssa_shm_header *h = header(object);
	const struct ibssa_shm_src *s =
		(const struct ibssa_shm_src *)((const uint8_t *)object + h->srcs_offset);
	if (len > sizeof(s->addr))
		return NULL;
	for (uint32_t i = 0; i < h->srcs_count; ++i) {
		if (s[i].type != type || memcmp(s[i].addr, addr, len))
			continue;
		int rest_zero = 1;
		for (size_t k = len; k < sizeof(s[i].addr); ++k)
			rest_zero &= s[i].addr[k] == 0;
		if (rest_zero)
			return &s[i];
	}
	return NULL;
}
