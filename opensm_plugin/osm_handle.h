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
 * Ownership: created by the plugin's create(), freed by its delete() after
 * the C++ side (and so the worker thread) is gone. Threads: `routing` is
 * guarded by `routing_mu`, taken for a copy only, never while waiting for
 * anything; nesting order is OpenSM's lock, then routing_mu. */
#ifndef IBACM_SSA_OPENSM_PLUGIN_OSM_HANDLE_H
#define IBACM_SSA_OPENSM_PLUGIN_OSM_HANDLE_H

#include <pthread.h>
#include <stdint.h>

struct osm_opensm;

struct ssa_osm_routing {
	uint8_t path_sl; /* the engine chooses path SLs */
	char name[16]; /* NUL-padded, truncated; empty: none yet */
};

struct ssa_osm_handle {
	struct osm_opensm *osm;
	pthread_mutex_t routing_mu;
	struct ssa_osm_routing routing;
};

#endif
