/* shm_prdb_format.h: the layout of the path tables the ssa provider
 * publishes in shared memory for libibssa_path (man ibssa_path_tables(7)),
 * and the C functions both sides share: the object's name, the checksum,
 * the validation a reader runs before trusting a mapping, and the searches.
 *
 * One object per daemon holds every port it serves from a PRDB. Objects
 * are immutable: the daemon writes a new one under a temporary name and
 * renames it over the published name, so a reader maps the old or the new
 * one whole (the rename is atomic) and an old mapping stays valid until
 * the reader unmaps it; the replaced object's memory goes when its last
 * mapping does. Nothing here needs a lock or a sequence counter.
 *
 * Every integer is in host byte order (the object never leaves the host),
 * except the path records, GIDs and IP addresses, which are in network
 * order as on the wire. Every table starts at an 8-byte aligned offset from
 * the start of the object; every table is sorted for binary search.
 *
 * Plain C: the library (libibssa_path) is C, the writer C++. */
#ifndef IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_FORMAT_H
#define IBACM_SSA_COMMON_SHM_PRDB_SHM_PRDB_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IBSSA_SHM_MAGIC "IBSSAPT\x01"
#define IBSSA_SHM_MAGIC_LEN 8
#define IBSSA_SHM_VERSION 1
/* Where the objects live: a directory only the daemon's user may write,
 * so that nobody else can place, replace or squat anything a reader opens
 * (man ibssa_path_tables(7)). A daemon running as root uses
 * IBSSA_SHM_ROOT_DIR (its parent, /run, is root's alone); any other user
 * IBSSA_SHM_DIR/IBSSA_SHM_USER_PREFIX<uid>, which the daemon creates with
 * mode 0755: one that another user made first is refused by both sides and
 * reported. Both are on tmpfs. */
#define IBSSA_SHM_ROOT_DIR "/run/ibssa"
#define IBSSA_SHM_DIR "/dev/shm"
#define IBSSA_SHM_USER_PREFIX "ibssa-"
#define IBSSA_SHM_PREFIX "ibssa-path-"
/* How long a replaced object stays whole after the daemon marked it
 * retired; then the daemon truncates it, so that nobody who keeps it open
 * pins its memory (a reader checks the mark before every lookup). */
#define IBSSA_SHM_RETIRE_GRACE_MS 10000
/* Bounds a reader enforces; a writer never exceeds them. */
#define IBSSA_SHM_MAX_PORTS 64
#define IBSSA_SHM_MAX_PKEYS 32
#define IBSSA_SHM_NO_INDEX 0xffffffffu

/* ibssa_shm_header.flags */
/* Some endpoint has an IP address: the daemon picks the source of an IP
 * destination by the kernel's route, which a reader cannot repeat, so a
 * reader asks the socket for IP destinations given without a source. */
#define IBSSA_SHM_F_IP_SOURCES 0x1u

struct ibssa_shm_header { /* 128 bytes, at offset 0 */
	char magic[IBSSA_SHM_MAGIC_LEN];
	uint32_t version;
	uint32_t header_size;  /* sizeof(struct ibssa_shm_header) */
	uint64_t total_size;   /* of the whole object, equal to its file size */
	uint32_t checksum;     /* CRC-32C of the object, this field as 0 */
	uint32_t port_count;   /* ibssa_shm_port entries at ports_offset */
	uint64_t serial;       /* counts the daemon's publications */
	int32_t daemon_pid;    /* the publisher: a reader checks it still runs */
	uint32_t flags;	       /* IBSSA_SHM_F_* */
	uint64_t daemon_start; /* its start, clock ticks after boot (/proc/PID/stat
				* field 22): a reused PID is not the daemon */
	uint64_t addr_epoch;   /* the address database's epoch (0: none) */
	uint64_t ports_offset;
	uint64_t names_offset; /* ibssa_shm_name, sorted by name (bytes) */
	uint64_t ips_offset;   /* ibssa_shm_ip, sorted by ip (bytes) */
	uint64_t srcs_offset;  /* ibssa_shm_src: the endpoints' addresses */
	uint32_t names_count;
	uint32_t ips_count;
	uint32_t srcs_count;
	uint32_t default_src; /* the source the daemon picks when a request
			       * names none (index in srcs, or NO_INDEX) */
	uint32_t retired;     /* atomic; 0 while published, 1 once replaced or
			       * withdrawn: the one word the daemon writes after
			       * publication, left out of the checksum */
	uint8_t reserved[12];
};

struct ibssa_shm_port {	 /* 128 bytes */
	uint8_t gid[16]; /* the port's GID (subnet prefix, GUID) */
	uint16_t base_lid;
	uint8_t lmc;
	uint8_t pkey_count;    /* the endpoints' P_Keys, the core's order: a */
	uint32_t reserved0;    /* request without one takes the first */
	uint64_t epoch;	       /* the PRDB's epoch */
	uint64_t paths_offset; /* ibssa_shm_path, sorted by (slid, dlid) */
	uint64_t gids_offset;  /* ibssa_shm_gid, sorted by dgid */
	uint32_t paths_count;
	uint32_t gids_count;
	uint16_t pkeys[IBSSA_SHM_MAX_PKEYS];
	uint8_t reserved[8];
};

/* One path record the daemon serves from its PRDB: exact (never marked
 * not exact) and reversible. */
struct ibssa_shm_path { /* 72 bytes */
	uint16_t slid;
	uint16_t dlid;
	uint16_t pkey;	 /* the record's partition; an endpoint of another
			  * one gets it from the SA (the socket) */
	uint8_t sl_span; /* 1, or the SA draws the SL uniformly in
			  * [SL, SL + span - 1] on every query */
	uint8_t reserved;
	uint8_t path[64]; /* struct ibv_path_record, network order */
};

/* The record the daemon answers for a destination GID (its choice among
 * the LID pairs is made by the writer). */
struct ibssa_shm_gid { /* 24 bytes */
	uint8_t dgid[16];
	uint32_t path_index; /* in the port's paths */
	uint32_t reserved;
};

struct ibssa_shm_name { /* 80 bytes */
	char name[64];	/* lower case, NUL-padded */
	uint8_t gid[16];
};

struct ibssa_shm_ip {	/* 32 bytes */
	uint8_t ip[16]; /* IPv6, or IPv4-mapped IPv6 (::ffff:a.b.c.d) */
	uint8_t gid[16];
};

/* An address of a local endpoint: a request naming it as its source is
 * answered from that port with that endpoint's P_Key. */
struct ibssa_shm_src { /* 72 bytes */
	uint16_t type; /* 1 name, 2 IPv4, 3 IPv6 (acm.h's ACM_EP_INFO_*) */
	uint16_t port_index;
	uint16_t pkey;
	uint16_t reserved;
	uint8_t addr[64]; /* as acm.h carries it, NUL/zero-padded */
};

/* The published object's file name for a daemon's client socket, in
 * `out` (IBSSA_SHM_PREFIX + 16 hex digits of a hash of the socket path,
 * made absolute against the working directory). Returns 0, or
 * -ENAMETOOLONG. Daemons with different sockets never share a name. */
int ibssa_shm_object_name(const char *socket_path, char *out, size_t out_len);
/* The directory of the objects of daemons running as `uid`. Returns 0, or
 * -ENAMETOOLONG. */
int ibssa_shm_dir(uid_t uid, char *out, size_t out_len);
/* Checks that the directory open on `dirfd` may hold objects of `uid`: a
 * directory, owned by `uid`, that nobody else may write. Returns 0, or
 * -EPERM with the reason in `why` (which names `path`). */
int ibssa_shm_check_dir(int dirfd, const char *path, uid_t uid, char *why, size_t why_len);
/* Checks that the object open on `fd` may be read as `uid`'s tables: a
 * regular file, owned by `uid`, that nobody else may write, of a size a
 * reader can map. Never blocks: open the name with O_NONBLOCK. Returns 0,
 * or -EPERM with the reason in `why` (which names `path`). */
int ibssa_shm_check_object(int fd, const char *path, uid_t uid, char *why, size_t why_len);

/* The start time of process `pid` (/proc/PID/stat field 22, clock ticks
 * after boot), 0 when it does not run or cannot be read. */
uint64_t ibssa_shm_process_start(int pid);

/* CRC-32C (Castagnoli) of `len` bytes, continuing from `crc` (0 to start). */
uint32_t ibssa_shm_crc32c(uint32_t crc, const void *data, size_t len);
/* The same by table lookups, whatever the CPU (what the fast path is
 * tested against). */
uint32_t ibssa_shm_crc32c_portable(uint32_t crc, const void *data, size_t len);
/* The checksum of a whole object (its checksum field taken as 0). */
uint32_t ibssa_shm_checksum(const void *object, size_t len);

/* Checks that the `len` bytes at `object` are a whole, consistent table
 * object: magic, version, sizes, every table inside the object and sorted,
 * every index in range, the checksum. Returns 0, or -EINVAL/-EPROTO with a
 * reason in `why` (at most why_len bytes, may be NULL). Never reads outside
 * [object, object + len). */
int ibssa_shm_validate(const void *object, size_t len, char *why, size_t why_len);

/* Searches of a validated object (NULL: none). */
const struct ibssa_shm_port *ibssa_shm_ports(const void *object);
const struct ibssa_shm_path *ibssa_shm_find_lid(const void *object,
						const struct ibssa_shm_port *port, uint16_t slid,
						uint16_t dlid);
const struct ibssa_shm_path *
ibssa_shm_find_gid(const void *object, const struct ibssa_shm_port *port, const uint8_t dgid[16]);
/* `name` of at most 63 characters, any case. */
const uint8_t *ibssa_shm_find_name(const void *object, const char *name);
/* `len` 4 (IPv4) or 16 (IPv6). */
const uint8_t *ibssa_shm_find_ip(const void *object, const uint8_t *ip, size_t len);
const struct ibssa_shm_src *ibssa_shm_find_src(const void *object, uint16_t type,
					       const uint8_t *addr, size_t len);

#ifdef __cplusplus
}
#endif

#endif
