/* path.c: the libibssa_path API (ibacm_ssa/path.h): lookups in the
 * daemon's tables (path_tables.h), the socket (path_socket.h) for what
 * they cannot answer.
 *
 * The tables hold only what the daemon itself answers from its PRDB, so a
 * lookup repeats the daemon's own steps on them: the source port (by SLID,
 * SGID or source address, else the first), its endpoint (by P_Key, else
 * the first), the record (by DLID from the port's base LID, or the one the
 * daemon picks for a DGID), then the daemon's own answer rule
 * (common/answer/answer_rule.h: the partition, the endpoint's P_Key, the
 * SL draw). Anything else goes to the socket, so an answer is never worse
 * than the socket's. */
#include <ibacm_ssa/path.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <string.h>

#include "common/answer/answer_rule.h"
#include "common/shm_prdb/shm_prdb_format.h"
#include "libibssa_path/path_private.h"
#include "libibssa_path/path_socket.h"
#include "libibssa_path/path_tables.h"

struct ibssa_path {
	struct path_tables tables;
	struct path_socket sock;
	uint32_t flags;
	uint64_t draws;				/* atomic: the SL draws' state (answer_rule.h) */
	uint64_t socket_answers, misses, stale; /* atomic; table answers: per slot */
};

/* Where a lookup starts: the port, the endpoint's P_Key. */
struct origin {
	const struct ibssa_shm_port *port;
	uint16_t pkey;
	const struct ibssa_shm_src *chosen; /* a source the daemon would pick */
};

static void count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* Each handle draws its own sequence, as each daemon does: processes
 * starting together do not all draw the same SLs. */
static void seed_draws(struct ibssa_path *h)
{
	if (getrandom(&h->draws, sizeof(h->draws), GRND_NONBLOCK) == sizeof(h->draws))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->draws = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)getpid() << 16 ^
		   (uint64_t)(uintptr_t)h;
}

void path_seed_draws(struct ibssa_path *h, uint64_t state)
{
	__atomic_store_n(&h->draws, state, __ATOMIC_RELAXED);
}

int ibssa_path_open(const char *socket_path, const struct ibssa_path_options *opts,
		    struct ibssa_path **out)
{
	struct ibssa_path_options o = {sizeof(o), 0, 0, 0};
	if (opts)
		memcpy(&o, opts, opts->size < sizeof(o) ? opts->size : sizeof(o));
	if (!socket_path)
		socket_path = IBSSA_PATH_DEFAULT_SOCKET;
	/* Cache-line aligned: each reader slot on a line of its own. */
	struct ibssa_path *h;
	if (posix_memalign((void **)&h, 64, sizeof(*h)))
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	h->flags = o.flags;
	seed_draws(h);
	int rc = tables_init(&h->tables, socket_path, o.check_ms);
	if (rc) {
		free(h);
		return rc;
	}
	rc = socket_init(&h->sock, socket_path, o.timeout_ms);
	if (rc) {
		tables_destroy(&h->tables);
		free(h);
		return rc;
	}
	tables_refresh(&h->tables, 1);
	*out = h;
	return 0;
}

void ibssa_path_close(struct ibssa_path *h)
{
	if (!h)
		return;
	socket_destroy(&h->sock);
	tables_destroy(&h->tables);
	free(h);
}

/* The endpoint P_Key a request with `pkey` (0: none) gets on `port`. */
static int endpoint_pkey(const struct ibssa_shm_port *port, uint16_t pkey, uint16_t *out)
{
	for (unsigned k = 0; k < port->pkey_count; ++k)
		if (!pkey || (port->pkeys[k] | 0x8000) == (pkey | 0x8000)) {
			*out = port->pkeys[k];
			return 1;
		}
	return 0;
}

/* Copies the record as the daemon answers it from `o`'s endpoint (within
 * the tables entered with `ticket`). */
static int serve(struct ibssa_path *h, uint64_t *ticket, const struct ibssa_shm_path *rec,
		 const struct origin *o, struct ibv_path_record *out,
		 struct ibssa_path_answer *answer)
{
	if (!rec)
		return 0;
	struct ibv_path_record p;
	memcpy(&p, rec->path, sizeof(p));
	if (!ibssa_answer_path(&p, rec->pkey, rec->sl_span, o->pkey, &h->draws))
		return 0;
	*out = p;
	if (answer) {
		memset(answer, 0, sizeof(*answer));
		answer->from = IBSSA_PATH_FROM_TABLES;
		answer->epoch = o->port->epoch;
		if (o->chosen) {
			answer->src_type = o->chosen->type;
			memcpy(answer->src_addr, o->chosen->addr, sizeof(answer->src_addr));
		}
	}
	tables_count_answer(&h->tables, ticket);
	return 1;
}

static int ask_socket(struct ibssa_path *h, const struct acm_ep_addr_data *e, int n,
		      struct ibv_path_record *out, struct ibssa_path_answer *answer)
{
	if (h->flags & IBSSA_PATH_NO_SOCKET)
		return -ENODATA;
	struct acm_ep_addr_data src;
	int rc = socket_resolve(&h->sock, e, n, out, &src);
	count(&h->socket_answers);
	if (answer) {
		memset(answer, 0, sizeof(*answer));
		answer->from = IBSSA_PATH_FROM_SOCKET;
		if (src.type) {
			answer->src_type = src.type;
			memcpy(answer->src_addr, src.info.addr, sizeof(answer->src_addr));
		}
	}
	return rc;
}

/* Enters the tables (tables_leave(*ticket) follows a non-NULL return);
 * NULL, having left them, when they cannot answer. */
static const void *enter(struct ibssa_path *h, uint64_t **ticket)
{
	int state;
	const void *map = tables_enter(&h->tables, &state, ticket);
	if (map)
		return map;
	tables_leave(*ticket);
	if (state == TABLES_STALE)
		count(&h->stale);
	return NULL;
}

static int path_request(struct ibssa_path *h, const struct ibv_path_record *q,
			struct ibv_path_record *out, struct ibssa_path_answer *answer)
{
	struct acm_ep_addr_data e;
	memset(&e, 0, sizeof(e));
	e.type = ACM_EP_INFO_PATH;
	e.info.path = *q;
	e.info.path.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
	count(&h->misses);
	return ask_socket(h, &e, 1, out, answer);
}

int ibssa_path_by_lid(struct ibssa_path *h, uint16_t slid, uint16_t dlid, uint16_t pkey,
		      struct ibv_path_record *out, struct ibssa_path_answer *answer)
{
	uint64_t *ticket;
	const void *map = enter(h, &ticket);
	if (map) {
		const struct ibssa_shm_header *hd = map;
		const struct ibssa_shm_port *ports = ibssa_shm_ports(map);
		struct origin o = {NULL, 0, NULL};
		for (uint32_t i = 0; i < hd->port_count && !o.port; ++i) {
			uint16_t mask = (uint16_t) ~((1u << ports[i].lmc) - 1);
			if (!slid || (slid & mask) == ports[i].base_lid)
				o.port = &ports[i];
		}
		/* The daemon answers from the port's base LID whatever the SLID. */
		int done = o.port && endpoint_pkey(o.port, pkey, &o.pkey) &&
			   serve(h, ticket, ibssa_shm_find_lid(map, o.port, o.port->base_lid, dlid),
				 &o, out, answer);
		tables_leave(ticket);
		if (done)
			return 0;
	}
	struct ibv_path_record q;
	memset(&q, 0, sizeof(q));
	q.slid = htons(slid);
	q.dlid = htons(dlid);
	q.pkey = htons(pkey);
	return path_request(h, &q, out, answer);
}

static const struct ibssa_shm_port *port_by_gid(const void *map, const uint8_t *sgid)
{
	static const uint8_t zero[16];
	const struct ibssa_shm_header *hd = map;
	const struct ibssa_shm_port *ports = ibssa_shm_ports(map);
	for (uint32_t i = 0; i < hd->port_count; ++i)
		if (!sgid || !memcmp(sgid, zero, 16) || !memcmp(sgid, ports[i].gid, 16))
			return &ports[i];
	return NULL;
}

int ibssa_path_by_gid(struct ibssa_path *h, const uint8_t *sgid, const uint8_t dgid[16],
		      uint16_t pkey, struct ibv_path_record *out, struct ibssa_path_answer *answer)
{
	uint64_t *ticket;
	const void *map = enter(h, &ticket);
	if (map) {
		struct origin o = {port_by_gid(map, sgid), 0, NULL};
		int done = o.port && endpoint_pkey(o.port, pkey, &o.pkey) &&
			   serve(h, ticket, ibssa_shm_find_gid(map, o.port, dgid), &o, out, answer);
		tables_leave(ticket);
		if (done)
			return 0;
	}
	struct ibv_path_record q;
	memset(&q, 0, sizeof(q));
	if (sgid)
		memcpy(q.sgid.raw, sgid, 16);
	memcpy(q.dgid.raw, dgid, 16);
	q.pkey = htons(pkey);
	return path_request(h, &q, out, answer);
}

static size_t addr_len(int type, size_t len)
{
	switch (type) {
	case IBSSA_PATH_ADDR_NAME:
		return len < 64 ? len : 64;
	case IBSSA_PATH_ADDR_IP:
		return len == 4 ? 4 : 0;
	case IBSSA_PATH_ADDR_IP6:
		return len == 16 ? 16 : 0;
	default:
		return 0;
	}
}

/* The destination's GID from the address tables (NULL: not there). */
static const uint8_t *dest_gid(const void *map, int type, const void *dest, size_t len)
{
	if (type != IBSSA_PATH_ADDR_NAME)
		return ibssa_shm_find_ip(map, dest, len);
	char name[64];
	memset(name, 0, sizeof(name));
	memcpy(name, dest, len < 63 ? len : 63);
	return len < 64 ? ibssa_shm_find_name(map, name) : NULL;
}

/* The source the daemon takes: the endpoint holding `src`, or the one it
 * picks itself (not for an IP destination when endpoints have IPs: the
 * daemon asks the kernel's routes then). */
static int addr_origin(const void *map, int type, const void *src, size_t src_len, struct origin *o)
{
	const struct ibssa_shm_header *hd = map;
	const struct ibssa_shm_src *s;
	if (src) {
		s = ibssa_shm_find_src(map, (uint16_t)type, src, src_len);
	} else {
		if (type != IBSSA_PATH_ADDR_NAME && (hd->flags & IBSSA_SHM_F_IP_SOURCES))
			return 0;
		if (hd->default_src == IBSSA_SHM_NO_INDEX)
			return 0;
		s = (const struct ibssa_shm_src *)((const uint8_t *)map + hd->srcs_offset) +
		    hd->default_src;
		o->chosen = s;
	}
	if (!s)
		return 0;
	o->port = ibssa_shm_ports(map) + s->port_index;
	o->pkey = s->pkey;
	return 1;
}

int ibssa_path_by_addr(struct ibssa_path *h, int type, const void *dest, size_t dest_len,
		       const void *src, size_t src_len, struct ibv_path_record *out,
		       struct ibssa_path_answer *answer)
{
	size_t dl = addr_len(type, dest_len), sl = src ? addr_len(type, src_len) : 0;
	if (!dl || (src && !sl))
		return -EINVAL;
	uint64_t *ticket;
	const void *map = enter(h, &ticket);
	if (map) {
		struct origin o = {NULL, 0, NULL};
		const uint8_t *gid = dest_gid(map, type, dest, dl);
		int done = gid && addr_origin(map, type, src, sl, &o) &&
			   serve(h, ticket, ibssa_shm_find_gid(map, o.port, gid), &o, out, answer);
		tables_leave(ticket);
		if (done)
			return 0;
	}
	struct acm_ep_addr_data e[2];
	memset(e, 0, sizeof(e));
	int n = 0;
	if (src) {
		e[n].flags = ACM_EP_FLAG_SOURCE;
		e[n].type = (uint16_t)type;
		memcpy(e[n].info.addr, src, sl);
		++n;
	}
	e[n].flags = ACM_EP_FLAG_DEST;
	e[n].type = (uint16_t)type;
	memcpy(e[n].info.addr, dest, dl);
	count(&h->misses);
	return ask_socket(h, e, n + 1, out, answer);
}

uint64_t ibssa_path_epoch(struct ibssa_path *h, int refresh)
{
	if (refresh)
		tables_refresh(&h->tables, 1);
	uint64_t epoch = 0;
	uint64_t *ticket;
	const void *map = enter(h, &ticket);
	if (map) {
		const struct ibssa_shm_header *hd = map;
		const struct ibssa_shm_port *ports = ibssa_shm_ports(map);
		for (uint32_t i = 0; i < hd->port_count; ++i)
			if (ports[i].epoch > epoch)
				epoch = ports[i].epoch;
		tables_leave(ticket);
	}
	return epoch;
}

int ibssa_path_refresh(struct ibssa_path *h)
{
	tables_refresh(&h->tables, 1);
	return tables_status(&h->tables, NULL, 0);
}

int ibssa_path_status(struct ibssa_path *h, char *why, size_t why_len)
{
	return tables_status(&h->tables, why, why_len);
}

void ibssa_path_get_stats(struct ibssa_path *h, struct ibssa_path_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->table_answers = tables_answers(&h->tables);
	out->socket_answers = __atomic_load_n(&h->socket_answers, __ATOMIC_RELAXED);
	out->misses = __atomic_load_n(&h->misses, __ATOMIC_RELAXED);
	out->stale = __atomic_load_n(&h->stale, __ATOMIC_RELAXED);
	out->bad_tables = __atomic_load_n(&h->tables.bad_tables, __ATOMIC_RELAXED);
	out->remaps = __atomic_load_n(&h->tables.remaps, __ATOMIC_RELAXED);
}
