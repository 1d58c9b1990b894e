/*
 * ibacm_ssa/path.h: libibssa_path, path records without a round trip to
 * the ibacm daemon (man libibssa_path(3)).
 *
 * With the ssa provider, ibacm publishes the path records it serves from
 * its PRDB (and the address database the SSA tree delivers) as read-only
 * tables in shared memory (man ibssa_path_tables(7)). This library maps
 * them and answers from memory: the same record the daemon's socket would
 * answer, with no system call. What the tables do not hold (a record the
 * daemon asks the SA for, a destination it does not know, tables absent,
 * or left by a daemon that stopped) is asked of the daemon through its
 * socket, exactly as ib_acme and librdmacm ask, unless the handle was
 * opened with IBSSA_PATH_NO_SOCKET.
 *
 * Thread safety: every call may be made from any number of threads on one
 * handle, except ibssa_path_close. Lookups do not allocate and take no
 * lock: each marks itself present on a counter of its own while it reads
 * the mapping, so lookups scale with threads; at most every check_ms (100
 * ms by default) one of them looks whether the daemon published new
 * tables or stopped, and unmaps the old ones once no lookup reads them.
 * The library keeps one list of its open handles, so that fork() in any
 * thread leaves every handle usable in the child.
 *
 * Link with pkg-config's ibssa-path (-libssa_path). Errors are negative
 * errno values.
 */
#ifndef IBACM_SSA_PATH_H
#define IBACM_SSA_PATH_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/sa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IBSSA_PATH_DEFAULT_SOCKET "/run/ibacm-unix.sock"

struct ibssa_path;

/* ibssa_path_open flags */
#define IBSSA_PATH_NO_SOCKET 0x1u /* never ask the socket: -ENODATA instead */

struct ibssa_path_options {
	uint32_t size;	/* sizeof(struct ibssa_path_options) */
	uint32_t flags; /* IBSSA_PATH_* */
	int check_ms;	/* how often to look for new tables; 0: 100 */
	int timeout_ms; /* of a socket request; 0: 10000 */
};

/* Where an answer came from (struct ibssa_path_answer.source). */
enum ibssa_path_from {
	IBSSA_PATH_FROM_TABLES = 1, /* the shared-memory tables */
	IBSSA_PATH_FROM_SOCKET = 2, /* the daemon's socket */
};

struct ibssa_path_answer {
	int from;	/* enum ibssa_path_from */
	uint64_t epoch; /* the PRDB epoch that answered (0: the socket) */
	/* Resolves by name or IP: the source the daemon chose when the call
	 * named none (acm.h's ACM_EP_INFO_* type, 0 if none, and address). */
	uint16_t src_type;
	uint8_t src_addr[64];
};

struct ibssa_path_stats {
	uint64_t table_answers;	 /* answered from the tables */
	uint64_t socket_answers; /* answered (or refused) by the socket */
	uint64_t misses;	 /* not in the tables: asked the socket */
	uint64_t stale;		 /* lookups while the publisher had stopped */
	uint64_t bad_tables;	 /* objects rejected (truncated, foreign, ...) */
	uint64_t remaps;	 /* new tables mapped */
};

/* Opens the tables of the daemon listening on `socket_path` (NULL: the
 * default, as ib_acme's -S); `opts` may be NULL. Succeeds without tables
 * (the socket answers until they appear). */
int ibssa_path_open(const char *socket_path, const struct ibssa_path_options *opts,
		    struct ibssa_path **out);
void ibssa_path_close(struct ibssa_path *h);

/* The path from the local port with `slid` (or its LMC range; 0: the
 * daemon's first port) to `dlid`; `pkey` 0: the port's first endpoint's.
 * `out` in network order, as ibv_path_record. `answer` may be NULL.
 * Returns 0, or -ENODATA, -EHOSTUNREACH (the daemon has no such source),
 * -ETIMEDOUT, -ECONNREFUSED, ... */
int ibssa_path_by_lid(struct ibssa_path *h, uint16_t slid, uint16_t dlid, uint16_t pkey,
		      struct ibv_path_record *out, struct ibssa_path_answer *answer);
/* The same by GID: `sgid` NULL (or zero) for the daemon's first port. */
int ibssa_path_by_gid(struct ibssa_path *h, const uint8_t *sgid, const uint8_t dgid[16],
		      uint16_t pkey, struct ibv_path_record *out, struct ibssa_path_answer *answer);
/* A host name (`type` 1), IPv4 (2, 4 bytes) or IPv6 address (3, 16 bytes),
 * as ib_acme -f n / -f i: its GID from the daemon's address data, then the
 * path. `src` (same type, may be NULL) picks the local endpoint. */
int ibssa_path_by_addr(struct ibssa_path *h, int type, const void *dest, size_t dest_len,
		       const void *src, size_t src_len, struct ibv_path_record *out,
		       struct ibssa_path_answer *answer);
#define IBSSA_PATH_ADDR_NAME 1
#define IBSSA_PATH_ADDR_IP 2
#define IBSSA_PATH_ADDR_IP6 3

/* The newest PRDB epoch the mapped tables hold (0: none mapped). Looks for
 * new tables first when `refresh` is set. */
uint64_t ibssa_path_epoch(struct ibssa_path *h, int refresh);
/* Looks for new tables (or a stopped daemon) now. 0: tables in use;
 * -ENOENT: none published (or no daemon socket); -ESRCH: the publisher
 * stopped; -EPERM: the directory or object is not the daemon's alone (its
 * type, owner or mode); -EBADMSG: the object is not valid tables; -EBUSY:
 * readers that never left a lookup hold every mapping. Never blocks on
 * anything another user placed. */
int ibssa_path_refresh(struct ibssa_path *h);
/* The last look's result, as ibssa_path_refresh returns it, without
 * looking again, and in `why` (why_len bytes, may be NULL) what it found
 * in words: which file or directory, and what is wrong with it. */
int ibssa_path_status(struct ibssa_path *h, char *why, size_t why_len);
void ibssa_path_get_stats(struct ibssa_path *h, struct ibssa_path_stats *out);

#ifdef __cplusplus
}
#endif

#endif
