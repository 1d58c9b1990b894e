/*
 * ibacm_ssa/provider.h: the ABI between the ibacm-ssa daemon ("the core")
 * and its resolution providers. Installed for third-party provider authors;
 * see ibacm_prov(7).
 *
 * A provider is a shared object that exports exactly one symbol,
 * SSA_PROVIDER_ENTRY_SYMBOL, a function returning a pointer to a static,
 * constant struct ssa_provider. Everything else stays hidden (link with a
 * version script). Loading the object must do no work: the core calls
 * init() when it is ready and fini() before unloading.
 *
 * Versioning rules (the core enforces them when it loads a provider):
 *  - Every struct that crosses the ABI starts with its size in bytes and,
 *    for the two tables, the ABI major/minor the other side was built with.
 *  - The core accepts a provider whose abi_major equals its own and rejects
 *    any other major with one log line.
 *  - Structs only grow by appending members. A newer core loads an older
 *    provider whose struct is smaller: before using a member appended after
 *    1.0 the core checks SSA_HAS_MEMBER(ptr, member). Providers do the same
 *    with the core's ops table (struct ssa_core_ops).
 *  - A struct smaller than its 1.0 size, or a 1.0 mandatory op left NULL,
 *    is rejected.
 *
 * Lifecycle (as upstream ibacm): device -> port -> endpoint -> address.
 * Each open_* returns an opaque context of the provider's choosing that the
 * core hands back in later calls; each close_* is called once, children
 * first. One endpoint exists per valid P_Key of a port. add_address and
 * remove_address also come at any time while an endpoint is open, as IP
 * addresses appear on and leave its IPoIB interface.
 *
 * Requests: resolve() and query() receive a request id that is unique for
 * the life of the daemon. The provider must answer every request exactly
 * once through ops->resolve_done / ops->query_done, now or later. Answering
 * an unknown or already-answered id is harmless: the core drops the answer
 * and returns -ENOENT or -EALREADY. If the client went away meanwhile, the
 * answer is dropped quietly.
 *
 * Threading: the core calls every provider op on its event-loop thread, and
 * core ops must be called on that thread too. Timers and fd watches run on
 * that loop; a provider needs no thread of its own to wait for its fds. It
 * may run threads for what the loop cannot wait on (the shipped ssa
 * provider does: a umad receiver per port where the umad fd cannot be
 * watched, as under the simulated fabric's umad2sim, and one rsocket
 * poller while its data channel uses rsockets). Such a thread calls no
 * core op: it hands its results to the loop through an fd the provider
 * watches with fd_watch (an eventfd or a pipe). The provider stops and
 * joins its threads by the time fini returns, since the core unloads the
 * module right after; one whose threads cannot be stopped (the upstream
 * bridge's library) must keep its module loaded (RTLD_NODELETE).
 *
 * Errors: functions returning int return 0 or a negative errno value.
 * Resolve/query statuses are the ACM_STATUS_* codes of <infiniband/acm.h>.
 */
#ifndef IBACM_SSA_PROVIDER_H
#define IBACM_SSA_PROVIDER_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/sa.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SSA_PROV_ABI_MAJOR 1
/* 1.1: ssa_provider.port_event; 1.2: ssa_core_ops.config_format;
 * 1.3: ssa_core_ops.client_socket; 1.4: ssa_provider.collect_metrics;
 * 1.5: ssa_core_ops.config_value */
#define SSA_PROV_ABI_MINOR 5

#define SSA_PROVIDER_ENTRY_SYMBOL "ssa_provider_entry"
#define SSA_PROV_NAME_MAX 32

/* True when the struct at `ptr` (whose first member is its size) is large
 * enough to hold `member`. */
#define SSA_HAS_MEMBER(ptr, member)                                                                \
	((ptr)->size >= offsetof(__typeof__(*(ptr)), member) + sizeof((ptr)->member))

/* Address types; the values equal upstream ibacm's ACM_ADDRESS_*. */
enum ssa_addr_type {
	SSA_ADDR_INVALID = 0,
	SSA_ADDR_NAME = 1, /* NUL-padded host name, up to 63 characters */
	SSA_ADDR_IP = 2,   /* 4 bytes, network order */
	SSA_ADDR_IP6 = 3,  /* 16 bytes, network order */
	SSA_ADDR_GID = 4,  /* 16 bytes, network order */
	SSA_ADDR_LID = 5,  /* 2 bytes, network order */
};

struct ssa_address {
	uint32_t size;
	uint16_t type; /* enum ssa_addr_type */
	uint16_t reserved;
	uint8_t data[64];
};

struct ssa_device_info {
	uint32_t size;
	const char *name;   /* CA name, e.g. "mlx5_0" */
	uint64_t node_guid; /* host byte order */
	uint8_t port_count;
};

/* Port attributes; all integers in host byte order. */
struct ssa_port_info {
	uint32_t size;
	const char *ca_name;
	uint8_t port_num;
	uint8_t state; /* IB PortState: 1 down ... 4 active */
	uint8_t lmc;
	uint8_t sm_sl;
	uint16_t lid;
	uint16_t sm_lid;
	uint64_t gid_prefix;
	uint64_t port_guid;
	uint32_t rate_gbps;
	uint16_t pkey_count;
	const uint16_t *pkeys; /* valid P_Keys, table order */
};

struct ssa_endpoint_info {
	uint32_t size;
	uint16_t pkey;
	uint16_t pkey_index;
};

/* A resolve or query request as the core decoded it from a client. */
struct ssa_resolve_request {
	uint32_t size;
	uint32_t flags;		     /* ACM_FLAGS_NODELAY, ACM_FLAGS_QUERY_SA */
	struct ssa_address src;	     /* the local source address */
	struct ssa_address dst;	     /* SSA_ADDR_INVALID for path requests */
	int has_path;		     /* nonzero: `path` holds the request */
	struct ibv_path_record path; /* network order, as on the wire */
};

/* Opaque handles the core gives providers. */
typedef struct ssa_core ssa_core_t;
typedef struct ssa_core_port ssa_core_port_t;

enum ssa_log_level {
	SSA_LOG_ERROR = 0,
	SSA_LOG_WARN = 1,
	SSA_LOG_INFO = 2,
	SSA_LOG_DEBUG = 3,
	SSA_LOG_TRACE = 4,
};

/* Called with the SA's answer (or a timeout) for ops->sa_send. `status` is
 * 0, or -ETIMEDOUT after all retries, or another negative errno. `mad` is the
 * whole response MAD (256 bytes), valid only during the call. */
typedef void (*ssa_sa_done_fn)(void *arg, int status, const uint8_t *mad, size_t len);
typedef void (*ssa_timer_fn)(void *arg);
typedef void (*ssa_fd_fn)(void *arg, int fd, uint32_t events);
/* One option of the provider's config section. Return nonzero to stop. */
typedef int (*ssa_config_fn)(void *arg, const char *key, const char *value, const char *file,
			     int line);

/* Services of the core, handed to the provider's init(). */
struct ssa_core_ops {
	uint32_t size;
	uint16_t abi_major;
	uint16_t abi_minor;

	void (*log)(ssa_core_t *core, int level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));

	/* Answers a resolve (or query) request. `path` is the path record in
	 * network order; it is ignored unless status is ACM_STATUS_SUCCESS. */
	int (*resolve_done)(ssa_core_t *core, uint64_t req_id, uint8_t status,
			    const struct ibv_path_record *path);
	int (*query_done)(ssa_core_t *core, uint64_t req_id, uint8_t status,
			  const struct ibv_path_record *path);

	/* Sends a 256-byte SA MAD (the provider fills in the MAD header and SA
	 * payload; the core assigns the TID and addresses it to the port's SM).
	 * The core queues beyond its sa_depth and applies its own timeout and
	 * retries. `done` is called exactly once. Returns 0 or -errno. A MAD
	 * sent inside resolve or query waits in the requesting client's share
	 * of the queue, served in turn with the other clients'; one sent at
	 * any other time, in the daemon's own share. */
	int (*sa_send)(ssa_core_t *core, ssa_core_port_t *port, const uint8_t *mad, size_t len,
		       ssa_sa_done_fn done, void *arg);

	/* One-shot timer on the core's loop; returns an id > 0, or 0 on error. */
	uint64_t (*timer_add)(ssa_core_t *core, uint32_t delay_ms, ssa_timer_fn fn, void *arg);
	int (*timer_cancel)(ssa_core_t *core, uint64_t timer_id);

	/* Watches an fd (EPOLLIN/EPOLLOUT events) on the core's loop. */
	int (*fd_watch)(ssa_core_t *core, int fd, uint32_t events, ssa_fd_fn fn, void *arg);
	int (*fd_unwatch)(ssa_core_t *core, int fd);

	/* Iterates the options of the provider's own config section, in file
	 * order (every option, in an upstream-format file: see config_format).
	 * Unknown keys should be reported with config_warn, or with ops->log at
	 * debug level when they come from an upstream-format file. */
	int (*config_foreach)(ssa_core_t *core, ssa_config_fn fn, void *arg);
	/* Reports a bad option: an error, counted and logged by the core,
	 * which does not start with one (from 1.5 on; a 1.4 core warned). */
	void (*config_warn)(ssa_core_t *core, const char *file, int line, const char *msg);

	/* Adds to one of the daemon-wide counters that PERF_QUERY reports,
	 * indexed like upstream's ACM_CNTR_* (e.g. ACM_CNTR_ROUTE_CACHE). */
	void (*counter_add)(ssa_core_t *core, int counter, uint64_t delta);
	/* Members appended after 1.0 go below this line; check each with
	 * SSA_HAS_MEMBER (and for NULL) before calling it. */

	/* 1.2: the format of the options file config_foreach reads (enum
	 * ssa_config_format). In an upstream-format file every provider sees
	 * every option, so a key the provider does not read is another
	 * reader's, not a mistake. */
	int (*config_format)(ssa_core_t *core);

	/* 1.3: the path of the unix socket clients reach this daemon on (what
	 * they pass to ib_acme -S), or NULL when it serves none. The ssa
	 * provider names its shared-memory path tables after it, so that
	 * several daemons on one machine never share them. */
	const char *(*client_socket)(ssa_core_t *core);

	/* 1.5: one option's effective value, as the file would spell it, and
	 * where it came from ("default", or "file:line"); called once per
	 * option the provider reads, after reading them. ibacm --check-config
	 * prints them. */
	void (*config_value)(ssa_core_t *core, const char *key, const char *value,
			     const char *source);
};

/* Formats for ssa_core_ops.config_format (1.2). */
enum ssa_config_format {
	SSA_CONFIG_INI = 1,	 /* acm_opts.cfg: the provider's own [section] */
	SSA_CONFIG_UPSTREAM = 2, /* upstream's ibacm_opts.cfg: "name value" lines */
};

/* Metrics (1.4): a provider's own metric families in the daemon's metrics
 * file (metrics_file in acm_opts.cfg), which the core writes in the
 * Prometheus text format. The core calls collect_metrics at each snapshot
 * and the provider describes its families through the ssa_metrics_ops it
 * is handed; the core checks every call and writes the text, so a provider
 * never formats anything and cannot break the file: a call the core
 * refuses returns -EINVAL, is counted and logged (rate-limited), and only
 * that family or sample is left out. ibacm(8) lists the rules: names start
 * with "ibacm_" and are [a-z0-9_] only, a counter's ends in "_total" and a
 * gauge's does not, help is not empty; label names are [a-z_][a-z0-9_]*,
 * not "provider" or "port" (the core's) and not repeated in a sample;
 * label values are printable ASCII of at most SSA_METRIC_VALUE_MAX bytes;
 * a counter's value is finite and not negative, a gauge's finite; no two
 * samples of a family have the same labels. The core adds
 * provider="<name>" to every sample, and port="<ca>:<num>" to a sample
 * given a port. Two providers may give the same family (same type): their
 * samples differ by the provider label. */
enum ssa_metric_type {
	SSA_METRIC_COUNTER = 1, /* only goes up (resets when the daemon restarts) */
	SSA_METRIC_GAUGE = 2,
};

#define SSA_METRIC_VALUE_MAX 128

struct ssa_metric_label {
	const char *name;
	const char *value;
};

typedef struct ssa_metrics_sink ssa_metrics_sink_t;

/* What collect_metrics describes its families with; valid only during the
 * call, on the core's loop thread. Check members appended later with
 * SSA_HAS_MEMBER. */
struct ssa_metrics_ops {
	uint32_t size;
	/* Starts family `name` (enum ssa_metric_type); the samples that follow
	 * are its own. Returns 0, or -EINVAL when refused: its samples are then
	 * refused too. */
	int (*family)(ssa_metrics_sink_t *sink, const char *name, int type, const char *help);
	/* A sample of the current family: `port` is the handle open_port was
	 * given (NULL: none), `labels` `nlabels` more labels (NULL when 0).
	 * Returns 0 or -EINVAL. */
	int (*sample)(ssa_metrics_sink_t *sink, ssa_core_port_t *port,
		      const struct ssa_metric_label *labels, size_t nlabels, double value);
};

/* The provider's table. Members up to and including query_perf form the 1.0
 * ABI. Mandatory (a NULL one gets the provider rejected): init, fini, every
 * open_* and close_* op, add_address, remove_address and resolve. Optional:
 * port_changed, query and query_perf. */
struct ssa_provider {
	uint32_t size;
	uint16_t abi_major;
	uint16_t abi_minor;
	char name[SSA_PROV_NAME_MAX]; /* also its config section name */
	uint32_t version;	      /* the provider's own, for duplicates */
	const char *description;

	int (*init)(const struct ssa_core_ops *ops, ssa_core_t *core, void **prov_ctx);
	void (*fini)(void *prov_ctx);

	int (*open_device)(void *prov_ctx, const struct ssa_device_info *dev, void **dev_ctx);
	void (*close_device)(void *dev_ctx);
	int (*open_port)(void *dev_ctx, const struct ssa_port_info *port,
			 ssa_core_port_t *core_port, void **port_ctx);
	void (*close_port)(void *port_ctx);
	/* Optional: LID, SM LID/SL, state or P_Key table of an open port changed.
	 * Providers drop cached routes here. */
	void (*port_changed)(void *port_ctx, const struct ssa_port_info *port);
	int (*open_endpoint)(void *port_ctx, const struct ssa_endpoint_info *ep, void **ep_ctx);
	void (*close_endpoint)(void *ep_ctx);
	int (*add_address)(void *ep_ctx, const struct ssa_address *addr, void **addr_ctx);
	void (*remove_address)(void *addr_ctx);

	/* Resolves req->dst (or req->path) from the local address. Return 0
	 * once the request is taken (answered now or later), or -errno to have
	 * the core answer it with an error. */
	int (*resolve)(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id);
	/* Optional: ACM_FLAGS_QUERY_SA path queries; without it the core
	 * answers them with resolve(). */
	int (*query)(void *addr_ctx, const struct ssa_resolve_request *req, uint64_t req_id);
	/* Optional: the endpoint's counters, indexed like upstream's
	 * ACM_CNTR_*; at most *count values, *count set to the number given. */
	int (*query_perf)(void *ep_ctx, uint64_t *values, uint8_t *count);
	/* Members appended after 1.0 go below this line. */

	/* 1.1, optional: the port's SM said something that invalidates what a
	 * provider learned from the fabric, though the port's attributes may
	 * not have changed (enum ssa_port_event). On hardware these are the
	 * verbs async events of the same names; after a client re-registration
	 * multicast groups must be joined again. Called after port_changed
	 * when both apply. */
	void (*port_event)(void *port_ctx, int event);

	/* 1.4, optional: the provider's own metric families, for the daemon's
	 * metrics file (see struct ssa_metrics_ops). Called at each snapshot
	 * when metrics_file is set; describes what it has now and returns. */
	void (*collect_metrics)(void *prov_ctx, const struct ssa_metrics_ops *ops,
				ssa_metrics_sink_t *sink);
};

/* Events for ssa_provider.port_event (1.1). */
enum ssa_port_event {
	SSA_PORT_EVENT_CLIENT_REREGISTER = 1, /* IBV_EVENT_CLIENT_REREGISTER */
	SSA_PORT_EVENT_SM_CHANGE = 2,	      /* IBV_EVENT_SM_CHANGE */
	SSA_PORT_EVENT_LID_CHANGE = 3,	      /* IBV_EVENT_LID_CHANGE */
};

#define SSA_PROVIDER_V1_0_SIZE                                                                     \
	(offsetof(struct ssa_provider, query_perf) + sizeof(((struct ssa_provider *)0)->query_perf))
#define SSA_CORE_OPS_V1_0_SIZE                                                                     \
	(offsetof(struct ssa_core_ops, counter_add) +                                              \
	 sizeof(((struct ssa_core_ops *)0)->counter_add))

/* The one symbol a provider exports. `core_major`/`core_minor` let a
 * provider refuse (return NULL) a core it does not support. */
typedef const struct ssa_provider *(*ssa_provider_entry_fn)(uint16_t core_major,
							    uint16_t core_minor);

#ifdef __cplusplus
}
#endif

#endif /* IBACM_SSA_PROVIDER_H */
