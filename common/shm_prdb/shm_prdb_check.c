/* shm_prdb_check.c: the object's checksum and the validation a
 * reader runs on every mapping before it reads anything else (see
 * shm_prdb_format.h). A table object is input from another process: a
 * truncated, foreign or corrupted one must be reported, never crash. */
#include "common/shm_prdb/shm_prdb_format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(struct ibssa_shm_header) == 128, "header layout");
_Static_assert(sizeof(struct ibssa_shm_port) == 128, "port layout");
_Static_assert(sizeof(struct ibssa_shm_path) == 72, "path layout");
_Static_assert(sizeof(struct ibssa_shm_gid) == 24, "gid layout");
_Static_assert(sizeof(struct ibssa_shm_name) == 80, "name layout");
_Static_assert(sizeof(struct ibssa_shm_ip) == 32, "ip layout");
_Static_assert(sizeof(struct ibssa_shm_src) == 72, "src layout");

static uint32_t crc32c_table(uint32_t crc, const uint8_t *p, size_t len)
{
	static uint32_t table[256];
	static int ready;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		/* Racing threads compute the same values: harmless. */
		for (uint32_t i = 0; i < 256; ++i) {
			uint32_t c = i;
			for (int k = 0; k < 8; ++k)
				c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
			__atomic_store_n(&table[i], c, __ATOMIC_RELAXED);
		}
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
/* SSE4.2's crc32 instruction computes CRC-32C itself, 8 bytes a step:
 * about 15 times the table's speed. The writer checksums every object it
 * publishes on the daemon's loop, and every reader each object it maps. */
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p,
							       size_t len)
{
	uint64_t c = crc;
	for (; len >= 8; p += 8, len -= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = (uint32_t)c;
	for (; len; ++p, --len)
		crc = __builtin_ia32_crc32qi(crc, *p);
	return crc;
}

static int have_sse42(void)
{
	static int known, have;
	if (!__atomic_load_n(&known, __ATOMIC_ACQUIRE)) {
		__builtin_cpu_init();
		__atomic_store_n(&have, __builtin_cpu_supports("sse4.2") ? 1 : 0, __ATOMIC_RELAXED);
		__atomic_store_n(&known, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&have, __ATOMIC_RELAXED);
}
#endif

uint32_t ibssa_shm_crc32c_portable(uint32_t crc, const void *data, size_t len)
{
	return ~crc32c_table(~crc, data, len);
}

uint32_t ibssa_shm_crc32c(uint32_t crc, const void *data, size_t len)
{
#if defined(__x86_64__)
	if (have_sse42())
		return ~crc32c_sse42(~crc, data, len);
#endif
	return ibssa_shm_crc32c_portable(crc, data, len);
}

uint32_t ibssa_shm_checksum(const void *object, size_t len)
{
	/* The checksum field and the retired mark read as 0, in that order. */
	static const uint8_t zero[4];
	const size_t skip[2] = {offsetof(struct ibssa_shm_header, checksum),
				offsetof(struct ibssa_shm_header, retired)};
	const uint8_t *p = object;
	uint32_t crc = 0;
	size_t at = 0;
	for (int i = 0; i < 2 && skip[i] + 4 <= len; ++i) {
		crc = ibssa_shm_crc32c(crc, p + at, skip[i] - at);
		crc = ibssa_shm_crc32c(crc, zero, 4);
		at = skip[i] + 4;
	}
	return ibssa_shm_crc32c(crc, p + at, len - at);
}

static int fail(char *why, size_t why_len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *why, size_t why_len, int err, const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* True when count entries of `size` bytes at `off` lie inside the object
 * (overflow-safe) at an aligned offset. */
static int table_fits(uint64_t len, uint64_t off, uint64_t count, uint64_t size)
{
	if (off % 8 || off > len)
		return 0;
	return count <= (len - off) / size;
}

#define CHECK_TABLE(what, off, count, type)                                                        \
	do {                                                                                       \
		if (!table_fits(len, (off), (count), sizeof(type)))                                \
			return fail(why, why_len, -EINVAL,                                         \
				    "%s table (%llu entries at %llu) outside the object", what,    \
				    (unsigned long long)(count), (unsigned long long)(off));       \
	} while (0)

/* Entries of `size` bytes, compared on their first `key` bytes, strictly
 * ascending: binary search needs the order, and a key twice is foreign. */
static int sorted(const uint8_t *p, uint64_t count, size_t size, size_t key)
{
	for (uint64_t i = 1; i < count; ++i)
		if (memcmp(p + (i - 1) * size, p + i * size, key) >= 0)
			return 0;
	return 1;
}

static int paths_sorted(const struct ibssa_shm_path *p, uint64_t count)
{
	for (uint64_t i = 1; i < count; ++i) {
		uint32_t a = (uint32_t)p[i - 1].slid << 16 | p[i - 1].dlid;
		uint32_t b = (uint32_t)p[i].slid << 16 | p[i].dlid;
		if (a >= b)
			return 0;
	}
	return 1;
}

static int check_port(const uint8_t *base, uint64_t len, const struct ibssa_shm_port *port,
		      uint32_t i, char *why, size_t why_len)
{
	if (port->pkey_count > IBSSA_SHM_MAX_PKEYS)
		return fail(why, why_len, -EINVAL, "port %u: %u P_Keys", i, port->pkey_count);
	if (port->lmc > 7)
		return fail(why, why_len, -EINVAL, "port %u: LMC %u", i, port->lmc);
	CHECK_TABLE("path", port->paths_offset, port->paths_count, struct ibssa_shm_path);
	CHECK_TABLE("GID", port->gids_offset, port->gids_count, struct ibssa_shm_gid);
	const struct ibssa_shm_path *paths =
		(const struct ibssa_shm_path *)(base + port->paths_offset);
	const struct ibssa_shm_gid *gids = (const struct ibssa_shm_gid *)(base + port->gids_offset);
	if (!paths_sorted(paths, port->paths_count))
		return fail(why, why_len, -EINVAL, "port %u: paths not sorted by (SLID, DLID)", i);
	for (uint32_t k = 0; k < port->paths_count; ++k)
		if (paths[k].sl_span < 1 || paths[k].sl_span > 16)
			return fail(why, why_len, -EINVAL, "port %u: path %u: SL span %u", i, k,
				    paths[k].sl_span);
	if (!sorted((const uint8_t *)gids, port->gids_count, sizeof(*gids), 16))
		return fail(why, why_len, -EINVAL, "port %u: GIDs not sorted", i);
	for (uint32_t k = 0; k < port->gids_count; ++k)
		if (gids[k].path_index >= port->paths_count)
			return fail(why, why_len, -EINVAL, "port %u: GID %u names path %u of %u", i,
				    k, gids[k].path_index, port->paths_count);
	return 0;
}

int ibssa_shm_validate(const void *object, size_t len, char *why, size_t why_len)
{
	const uint8_t *base = object;
	const struct ibssa_shm_header *h = object;
	if (len < sizeof(*h))
		return fail(why, why_len, -EINVAL, "%zu bytes: shorter than the header", len);
	if (memcmp(h->magic, IBSSA_SHM_MAGIC, IBSSA_SHM_MAGIC_LEN))
		return fail(why, why_len, -EINVAL, "not a path table object (bad magic)");
	if (h->version != IBSSA_SHM_VERSION)
		return fail(why, why_len, -EPROTO, "version %u, this reader knows %u", h->version,
			    IBSSA_SHM_VERSION);
	if (h->header_size != sizeof(*h))
		return fail(why, why_len, -EINVAL, "header of %u bytes", h->header_size);
	if (h->total_size != len)
		return fail(why, why_len, -EINVAL, "object of %zu bytes, its header says %llu", len,
			    (unsigned long long)h->total_size);
	uint32_t crc = ibssa_shm_checksum(object, len);
	if (crc != h->checksum)
		return fail(why, why_len, -EINVAL, "checksum 0x%08x, the header says 0x%08x", crc,
			    h->checksum);
	if (h->port_count > IBSSA_SHM_MAX_PORTS)
		return fail(why, why_len, -EINVAL, "%u ports", h->port_count);
	CHECK_TABLE("port", h->ports_offset, h->port_count, struct ibssa_shm_port);
	CHECK_TABLE("name", h->names_offset, h->names_count, struct ibssa_shm_name);
	CHECK_TABLE("IP", h->ips_offset, h->ips_count, struct ibssa_shm_ip);
	CHECK_TABLE("source", h->srcs_offset, h->srcs_count, struct ibssa_shm_src);
	if (!sorted(base + h->names_offset, h->names_count, sizeof(struct ibssa_shm_name), 64))
		return fail(why, why_len, -EINVAL, "names not sorted");
	if (!sorted(base + h->ips_offset, h->ips_count, sizeof(struct ibssa_shm_ip), 16))
		return fail(why, why_len, -EINVAL, "IPs not sorted");
	const struct ibssa_shm_src *srcs = (const struct ibssa_shm_src *)(base + h->srcs_offset);
	for (uint32_t i = 0; i < h->srcs_count; ++i)
		if (srcs[i].port_index >= h->port_count)
			return fail(why, why_len, -EINVAL, "source %u names port %u of %u", i,
				    srcs[i].port_index, h->port_count);
	if (h->default_src != IBSSA_SHM_NO_INDEX && h->default_src >= h->srcs_count)
		return fail(why, why_len, -EINVAL, "default source %u of %u", h->default_src,
			    h->srcs_count);
	const struct ibssa_shm_port *ports =
		(const struct ibssa_shm_port *)(base + h->ports_offset);
	for (uint32_t i = 0; i < h->port_count; ++i) {
		int rc = check_port(base, len, &ports[i], i, why, why_len);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t ibssa_shm_process_start(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name (field 2) may hold spaces and ')': count fields
	 * from the last ')'. */
	const char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	int field = 2;
	for (++p; *p && field < 22; ++p)
		if (*p == ' ')
			++field;
	unsigned long long v = 0;
	if (field != 22 || sscanf(p, "%llu", &v) != 1)
		return 0;
	return v;
}
