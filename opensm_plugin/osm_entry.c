/* osm_entry.c: the OpenSM event plugin entry point, `osm_event_plugin`, and
 * OpenSM's log for the C++ side.
 *
 * OpenSM (3.3.23) dlopen()s libibssa_osm.so when its config says
 * `event_plugin_name ibssa_osm`, refuses it unless osm_version below equals
 * its own version string, then calls create() once at start-up, report()
 * for every event from whichever of its threads raised it, and delete() at
 * shutdown, before it destroys the subnet. These wrappers only translate to
 * the C++ plugin (plugin_entry.cc), which never lets an exception out.
 *
 * Ownership: the plugin object returned by create() (our handle,
 * osm_handle.h, and the C++ plugin) is OpenSM's until delete(). Threads:
 * see above; report() never waits for the plugin's thread: it records the
 * event for it and copies the routing engine's name; after a routing it
 * also asks the engine for its path SLs (osm_route_sl.c), bounded work. */
#include <opensm/osm_config.h> /* first: it selects the struct layouts */

#include <stdlib.h>
#include <string.h>

#include <opensm/osm_event_plugin.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_version.h>

#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/osm_handle.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "this plugin implements OpenSM's event plugin interface version 2"
#endif

/* What OpenSM holds as our plugin data: the C side's handle and the C++
 * plugin it was given to. */
struct plugin {
	struct ssa_osm_handle handle;
	void *cpp;
};

static void *plugin_create(struct osm_opensm *osm)
{
	struct plugin *p = calloc(1, sizeof(*p));

	if (!p) {
		osm_log(&osm->log, OSM_LOG_ERROR, "ibssa_osm: ERROR: not loaded (out of memory)\n");
		return NULL;
	}
	p->handle.osm = osm;
	pthread_mutex_init(&p->handle.routing_mu, NULL);
	p->cpp =
		ssa_plugin_create(&p->handle, osm->subn.opt.event_plugin_options, osm->osm_version);
	if (!p->cpp) {
		pthread_mutex_destroy(&p->handle.routing_mu);
		free(p);
		return NULL;
	}
	return p;
}

static void plugin_delete(void *plugin)
{
	struct plugin *p = plugin;

	if (!p)
		return;
	ssa_plugin_delete(p->cpp); /* joins the worker: nobody reads the handle after */
	ssa_osm_route_sls_free(&p->handle);
	pthread_mutex_destroy(&p->handle.routing_mu);
	free(p);
}

/* Copies the routing engine OpenSM used last (osm_handle.h says why). Only
 * on the state manager thread, which alone sets routing_engine_used. */
static void copy_routing_engine(struct ssa_osm_handle *h)
{
	const osm_routing_engine_t *re = h->osm->routing_engine_used;
	struct ssa_osm_routing r;
	size_t n = 0;

	memset(&r, 0, sizeof(r));
	if (re) {
		r.path_sl = re->path_sl ? 1 : 0;
		while (re->name && re->name[n] && n < sizeof(r.name)) {
			r.name[n] = re->name[n];
			n++;
		}
	}
	pthread_mutex_lock(&h->routing_mu);
	h->routing = r;
	pthread_mutex_unlock(&h->routing_mu);
}

static void plugin_report(void *plugin, osm_epi_event_id_t event_id, void *event_data)
{
	struct plugin *p = plugin;
	int ev;

	(void)event_data; /* the plugin re-reads the subnet; the payload is not needed */
	if (!p)
		return;
	switch (event_id) {
	case OSM_EVENT_ID_SUBNET_UP:
		copy_routing_engine(&p->handle); /* reported by the state manager */
		ev = SSA_EV_SUBNET_UP;
		break;
	case OSM_EVENT_ID_HEAVY_SWEEP_START:
		ev = SSA_EV_HEAVY_SWEEP_START;
		break;
	case OSM_EVENT_ID_UCAST_ROUTING_DONE:
		copy_routing_engine(&p->handle);       /* reported by the state manager */
		ssa_osm_route_sls_compute(&p->handle); /* the engine is fresh and stays */
		ev = SSA_EV_UCAST_ROUTING_DONE;
		break;
	case OSM_EVENT_ID_LFT_CHANGE:
		ev = SSA_EV_LFT_CHANGE;
		break;
	case OSM_EVENT_ID_STATE_CHANGE:
		ev = SSA_EV_STATE_CHANGE;
		break;
	default: /* counters, traps, SA DB dumps: nothing to extract */
		return;
	}
	ssa_plugin_report(p->cpp, ev);
}

int ssa_osm_is_master(void *osm_handle)
{
	struct ssa_osm_handle *h = osm_handle;

	/* The state manager changes it without a lock the plugin could take
	 * (osm_sm_state_mgr.c); an atomic load reads one whole value. */
	return h && h->osm &&
	       __atomic_load_n(&h->osm->subn.sm_state, __ATOMIC_RELAXED) == IB_SMINFO_STATE_MASTER;
}

void ssa_osm_log(void *osm_handle, int level, const char *msg)
{
	struct ssa_osm_handle *h = osm_handle;
	osm_opensm_t *osm = h ? h->osm : NULL;
	osm_log_level_t osm_level;

	switch (level) {
	case SSA_OSM_LOG_ERROR:
		osm_level = OSM_LOG_ERROR;
		break;
	case SSA_OSM_LOG_INFO:
		osm_level = OSM_LOG_INFO;
		break;
	case SSA_OSM_LOG_VERBOSE:
		osm_level = OSM_LOG_VERBOSE;
		break;
	default:
		osm_level = OSM_LOG_DEBUG;
		break;
	}
	if (osm && osm_log_is_active(&osm->log, osm_level))
		osm_log(&osm->log, osm_level, "ibssa_osm: %s\n", msg);
}

/* The one exported symbol (ibssa_osm.map hides everything else). */
osm_event_plugin_t osm_event_plugin = {OSM_VERSION, plugin_create, plugin_delete, plugin_report};
