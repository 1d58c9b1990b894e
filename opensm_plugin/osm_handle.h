/* osm_handle.h: what the plugin's C side keeps per OpenSM instance, shared
 * by osm_entry.c (which creates it) and osm_extract.c (which reads it). The
 * C++ side holds it as the opaque `osm` handle of osm_bridge.h.
 *
 * Why not just osm_opensm_t: at shutdown OpenSM (3.3.23,
 * osm_opensm_destroy()) frees its routing engines before it calls the
 * plugin's delete(), and without taking its lock. An extraction running on
 * the plugin's worker thread at that moment read the freed
 * osm->routing_engine_used. So the routing engine's name and whether it
 * picks path SLs are copied here on OpenSM's state manager thread, the only
 * thread that sets routing_engine_used (OpenSM joins it before freeing the
 * engines), and extractions read the copy.
 *
 * The same thread asks the engine for its path SLs after each routing
 * (osm_route_sl.c) and leaves them here, in `route_sls`, for the next
 * extraction to copy.
 *
 * Ownership: created by the plugin's create(), freed by its delete() after
 * the C++ side (and so the worker thread) is gone. Threads: `routing` and
 * `route_sls` are guarded by `routing_mu`, taken for a copy or a swap only,
 * never while waiting for anything; nesting order is OpenSM's lock, then
 * routing_mu. */
#ifndef IBACM_SSA_OPENSM_PLUGIN_OSM_HANDLE_H
#define IBACM_SSA_OPENSM_PLUGIN_OSM_HANDLE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "opensm_plugin/osm_bridge.h"

struct osm_opensm;
struct osm_routing_engine;

struct ssa_osm_routing {
	uint8_t path_sl; /* the engine chooses path SLs */
	char name[16];	 /* NUL-padded, truncated; empty: none yet */
};

/* The routing engine's path SLs (osm_route_sl.c): every (slid, dlid, hint)
 * whose path_sl answer is other than (the hint, hint_spans[hint]), for the
 * hints in `hints`. */
struct ssa_route_sls {
	uint32_t generation;	/* one more per routing */
	uint8_t state;		/* SSA_ROUTE_SL_* (osm_bridge.h) */
	uint16_t hints;		/* bit k: hint SL k was asked */
	uint8_t hint_spans[16]; /* how many SLs from the hint a pair not listed may get */
	struct ssa_raw_route_sl *recs;
	size_t len, cap;
};

struct ssa_osm_handle {
	struct osm_opensm *osm;
	pthread_mutex_t routing_mu;
	struct ssa_osm_routing routing;
	struct ssa_route_sls route_sls;
	/* ssa_osm_set_route_sl_limits; set before the first event, then only
	 * read by the state manager thread. */
	uint64_t route_sl_max_calls, route_sl_max_rows;
};

/* What DFSSSP's path_sl answer v says (osm_dfsssp_layers.c): the SA draws
 * among span[v] SLs from base[v]. */
struct ssa_dfsssp_layers {
	uint8_t vls; /* the VLs the engine routed over */
	uint8_t base[16];
	uint8_t span[16];
};

/* Reads DFSSSP's layer ranges from engine `re`; -1 when its state is not
 * what the plugin knows how to read (the records then stay not exact). */
int ssa_dfsssp_layers(struct osm_opensm *osm, const struct osm_routing_engine *re,
		      struct ssa_dfsssp_layers *out);

/* osm_route_sl.c: on OpenSM's state manager thread, after a routing. */
void ssa_osm_route_sls_compute(struct ssa_osm_handle *h);
void ssa_osm_route_sls_free(struct ssa_osm_handle *h);

#endif
