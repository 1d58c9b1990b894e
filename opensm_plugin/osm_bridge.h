/* osm_bridge.h: the boundary between the plugin's C side (the only code that
 * sees OpenSM's structures) and its C++ side (everything else).
 *
 * Why two languages: OpenSM's headers are C only (osm_event_plugin_t has a
 * member named `delete`), so osm_entry.c and osm_extract.c include them and
 * the C++ code never does. What crosses is below: plain records, fixed-size
 * buffers the C++ side owns, and a handful of functions each way.
 *
 * Raw records are OpenSM's values decoded to host order and nothing more;
 * turning them into SMDB records (sorting, P_Key table sharing, dropping
 * duplicates) happens later, outside OpenSM's lock (raw_snapshot.h).
 *
 * The `osm` handle the C++ side passes back is the C side's
 * struct ssa_osm_handle (osm_handle.h), opaque here.
 *
 * Threads: ssa_osm_extract runs on the plugin's worker thread; ssa_osm_log
 * on any thread (OpenSM's log is thread-safe); ssa_plugin_report on
 * whichever OpenSM thread reports an event. No function here may throw. */
#ifndef IBACM_SSA_OPENSM_PLUGIN_OSM_BRIDGE_H
#define IBACM_SSA_OPENSM_PLUGIN_OSM_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ssa_raw_subnet {
	uint64_t subnet_prefix;
	uint64_t sm_port_guid;
	uint16_t sm_lid;
	uint8_t sm_state;
	uint8_t sm_priority;
	uint8_t lmc;
	uint8_t subnet_timeout;
	uint8_t packet_life_time;
	uint8_t default_sl;
	uint8_t qos;
	uint8_t enable_quirks;
	uint8_t allow_both_pkeys;
	uint8_t original_sa_rates;	 /* opt.use_original_extended_sa_rates_only */
	uint8_t routing_sl;		 /* the routing engine chooses path SLs */
	uint8_t qos_policy;		 /* opt.qos with a QoS policy file loaded (p_qos_policy) */
	uint8_t sl2vl_drops;		 /* opt.qos and some SL2VL table maps an SL to VL15
					  * (each such table is in the sl2vl_drops array) */
	uint8_t qos_tables;		 /* the policy is in the qos_* arrays (complete) */
	uint8_t route_sl_state;		 /* SSA_ROUTE_SL_*: the engine's path SLs in route_sls */
	uint16_t route_sl_hints;	 /* with SSA_ROUTE_SL_COMPUTED: the hints asked */
	uint8_t route_sl_hint_spans[16]; /* span of a pair route_sls omits, per hint */
	char routing_engine[16];	 /* NUL-padded, truncated */
	uint32_t lid_table_size;	 /* cl_ptr_vector_get_size(port_lid_tbl) */
};

struct ssa_raw_node {
	uint64_t node_guid;
	uint64_t system_image_guid;
	uint32_t vendor_id;
	uint32_t revision;
	uint16_t partition_cap;
	uint16_t device_id;
	uint8_t node_type;
	uint8_t num_ports;
	char description[64]; /* zeroed after the first NUL */
};

/* One physical port (osm_physp_t). */
struct ssa_raw_port {
	uint64_t node_guid;
	uint64_t port_guid;	 /* as OpenSM has it (switch ports: the switch's) */
	uint64_t peer_node_guid; /* valid when has_peer */
	uint32_t capability_mask;
	uint32_t pkey_first; /* index of its first block in pkey_blocks */
	uint16_t capability_mask2;
	uint16_t base_lid;
	uint16_t pkey_block_count;
	uint8_t port_num;
	uint8_t node_type;
	uint8_t lmc;
	uint8_t port_state;
	uint8_t phys_state;
	uint8_t mtu_cap;
	uint8_t neighbor_mtu;
	uint8_t link_width_active;
	uint8_t link_speed_active;
	uint8_t link_speed_ext_active;
	uint8_t rate; /* as OpenSM's SA path walk computes it for this port */
	uint8_t has_peer;
	uint8_t peer_port_num;
};

/* An entry of port_guid_tbl (is_alias 0) or alias_port_guid_tbl. */
struct ssa_raw_guid {
	uint64_t guid;
	uint64_t port_guid;
	uint16_t base_lid;
	uint8_t lmc;
	uint8_t is_alias;
};

struct ssa_raw_switch {
	uint64_t node_guid;
	uint64_t lft_first; /* index of LID 0's entry in lft_bytes */
	uint32_t lft_len;   /* entries copied: LIDs 0 .. lft_len - 1 */
	uint16_t lin_fdb_cap;
	uint16_t lin_fdb_top; /* OpenSM's max_lid_ho: above it, no path */
	uint16_t mcast_fdb_cap;
	uint8_t life_time;
	uint8_t enhanced_port0;
};

struct ssa_raw_partition {
	uint16_t pkey; /* membership bit clear */
	uint8_t sl;
	char name[32];
};

struct ssa_raw_prefix_route {
	uint64_t prefix;
	uint64_t router_port_guid;
};

/* The QoS policy (osm_qos_policy_t), flattened as the SMDB's qos_* tables
 * are (smdb_qos_records.h); seq is the position in each list. `id` is the
 * OpenSM object's address, only for matching pointers during the walk. */
struct ssa_raw_qos_level {
	const void *id;
	uint16_t seq;
	uint8_t flags; /* SMDB_QOS_LEVEL_* (common/smdb/qos_level_flags.h) */
	uint8_t sl;
	uint8_t mtu_limit;
	uint8_t rate_limit;
	uint8_t pkt_life;
	char name[32];
};

struct ssa_raw_qos_group {
	const void *id;
	uint16_t seq;
	uint8_t node_types;
	char name[32];
};

struct ssa_raw_qos_group_port {
	uint16_t group;
	uint64_t port_guid;
};

struct ssa_raw_qos_rule {
	uint16_t seq;
	uint16_t level;
};

struct ssa_raw_qos_rule_group {
	uint16_t rule;
	uint8_t side; /* 0 source, 1 destination */
	uint16_t pos;
	uint16_t group;
};

struct ssa_raw_qos_range {
	uint8_t owner_kind; /* 0 level, 1 rule */
	uint16_t owner;
	uint8_t kind; /* 0 P_Key, 1 ServiceID, 2 QoS class */
	uint16_t pos;
	uint64_t lo;
	uint64_t hi;
};

/* What became of the routing engine's path SLs (osm_route_sl.c). */
enum ssa_route_sl_state {
	SSA_ROUTE_SL_NONE = 0,	/* the engine has no path_sl */
	SSA_ROUTE_SL_COMPUTED,	/* in route_sls */
	SSA_ROUTE_SL_RANDOM,	/* the engine answers at random among SLs it does not say */
	SSA_ROUTE_SL_TOO_LARGE, /* too many LID pairs to ask */
	SSA_ROUTE_SL_FAILED	/* out of memory */
};

/* The SLs an SL2VL table sends to VL15: the table of port `out_port` of a
 * node for traffic arriving on `in_port` (0 on a CA, and for what a switch
 * itself sends). */
struct ssa_raw_sl2vl_drop {
	uint64_t node_guid;
	uint8_t out_port;
	uint8_t in_port;
	uint16_t mask; /* bit sl */
};

/* One path_sl answer other than (the hint, the hint's span): the engine
 * answers sl, or one of the `span` SLs from sl at random. */
struct ssa_raw_route_sl {
	uint16_t slid;
	uint16_t dlid;
	uint8_t hint;
	uint8_t sl;
	uint8_t span;
};

/* A P_Key block: 32 entries, host order. */
struct ssa_raw_pkey_block {
	uint16_t pkeys[32];
};

/* One growable array the C side fills: it writes element i only when
 * i < cap, but counts every element in len, so after an overflow len is
 * the capacity the next attempt needs. */
#define SSA_RAW_ARRAY(type, name)                                                                  \
	type *name;                                                                                \
	size_t name##_cap;                                                                         \
	size_t name##_len

/* Every raw array, once: X(element type, name) for each, so that the
 * struct, the C walk's reset and overflow check, and the C++ side's buffers
 * (raw_snapshot.h) cannot miss one. */
#define SSA_RAW_ARRAYS(X)                                                                          \
	X(struct ssa_raw_node, nodes)                                                              \
	X(struct ssa_raw_port, ports)                                                              \
	X(struct ssa_raw_guid, guids)                                                              \
	X(struct ssa_raw_switch, switches)                                                         \
	X(uint8_t, lft_bytes)                                                                      \
	X(struct ssa_raw_pkey_block, pkey_blocks)                                                  \
	X(struct ssa_raw_partition, partitions)                                                    \
	X(struct ssa_raw_prefix_route, prefix_routes)                                              \
	X(struct ssa_raw_qos_level, qos_levels)                                                    \
	X(struct ssa_raw_qos_group, qos_groups)                                                    \
	X(struct ssa_raw_qos_group_port, qos_group_ports)                                          \
	X(struct ssa_raw_qos_rule, qos_rules)                                                      \
	X(struct ssa_raw_qos_rule_group, qos_rule_groups)                                          \
	X(struct ssa_raw_qos_range, qos_ranges)                                                    \
	X(struct ssa_raw_route_sl, route_sls)                                                      \
	X(struct ssa_raw_sl2vl_drop, sl2vl_drops)

#define SSA_RAW_ARRAY_MEMBER(type, name) SSA_RAW_ARRAY(type, name);
struct ssa_raw_buffers {
	struct ssa_raw_subnet subnet;
	SSA_RAW_ARRAYS(SSA_RAW_ARRAY_MEMBER)
	/* Set by the walk: a loop stopped at its bound (a table larger than
	 * its own count says), so the snapshot may be incomplete. */
	uint32_t truncated;
};
#undef SSA_RAW_ARRAY_MEMBER

struct ssa_extract_times {
	double wait_ms; /* waiting for OpenSM's lock */
	double hold_ms; /* holding it: the copy itself */
};

/* ---- Implemented in C (osm_extract.c, osm_entry.c) ---- */

/* Copies the subnet into `b` under cl_plock_acquire(&osm->lock); no
 * allocation, no I/O under the lock. Returns 0 when everything fit, 1 when
 * some array overflowed (grow to the *_len values and call again). */
int ssa_osm_extract(void *osm, struct ssa_raw_buffers *b, struct ssa_extract_times *t);

enum ssa_osm_log_level {
	SSA_OSM_LOG_ERROR = 1,
	SSA_OSM_LOG_INFO = 2,
	SSA_OSM_LOG_VERBOSE = 3,
	SSA_OSM_LOG_DEBUG = 4
};
/* One line in OpenSM's log, prefixed "ibssa_osm: ". */
void ssa_osm_log(void *osm, int level, const char *msg);

/* Whether this OpenSM is the subnet's master SM right now (SMInfo state
 * MASTER): 1 or 0. Any thread; a plain read of one byte the state manager
 * writes, so it may lag one transition behind. */
int ssa_osm_is_master(void *osm);

/* How much of the routing engine's path SLs the plugin asks for and keeps
 * per routing (osm_route_sl.c; the plugin options route_sl_max_calls and
 * route_sl_max_rows). Called once by create(), before any event. */
void ssa_osm_set_route_sl_limits(void *osm, uint64_t max_calls, uint64_t max_rows);

/* ---- Implemented in C++ (plugin_entry.cc) ---- */

enum ssa_osm_event {
	SSA_EV_OTHER = 0,
	SSA_EV_SUBNET_UP,
	SSA_EV_HEAVY_SWEEP_START,
	SSA_EV_UCAST_ROUTING_DONE,
	SSA_EV_LFT_CHANGE,
	SSA_EV_STATE_CHANGE
};

/* Returns the plugin, or NULL after logging why (bad options, ...).
 * `options` may be NULL. */
void *ssa_plugin_create(void *osm, const char *options, const char *osm_version);
/* Stops the worker thread and frees everything. */
void ssa_plugin_delete(void *plugin);
/* Never blocks beyond a short critical section. */
void ssa_plugin_report(void *plugin, int event);

#ifdef __cplusplus
}
#endif

#endif
