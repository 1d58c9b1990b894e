/* osm_route_sl.c: the path SLs of a routing engine that chooses them
 * (LASH, torus-2QoS, Nue, DFSSSP; osm_routing_engine_t::path_sl), asked of
 * the engine itself once per routing, so that the SMDB carries what the SA
 * would answer (osm_sa_path_record.c calls path_sl(context, hint, slid,
 * dlid) with the SL it computed so far as the hint).
 *
 * When: OpenSM reports UCAST_ROUTING_DONE on its state manager thread after
 * the engine has built the routes. That thread alone runs (and at shutdown
 * frees) the engines, so the engine cannot change or go away under the
 * calls. OpenSM's lock is taken for reading, one source LID's row at a
 * time, as the SA itself holds it for path_sl; other readers (the SA) go
 * on meanwhile.
 *
 * What: every (source LID, destination LID) of the subnet, for every hint
 * the SA can pass (OpenSM's default SL, the partitions' SLs, the QoS
 * policy's levels' SLs: route_sls.hints); only answers other than (the
 * hint, hint_spans[hint]) are kept. DFSSSP answers a pair with an SL drawn
 * at random from its layer's range; the plugin keeps the range (base SL
 * and span, osm_dfsssp_layers.c) and consumers draw from it as the SA does.
 * Not computed (route_sls.state says why, and the records stay marked not
 * exact): an engine without path_sl; DFSSSP whose state is not laid out as
 * the plugin knows it; a subnet where the calls (LIDs^2, times the hints
 * for engines other than DFSSSP) exceed route_sl_max_calls, or where more
 * answers than route_sl_max_rows differ from the hint (the pass stops
 * there).
 *
 * Why these bounds: each call is a table lookup (about 0.1 us here), so
 * the pass costs the state manager about as much as the engines' own
 * all-pairs work, and it delays only what follows the routing in the sweep
 * (multicast, SUBNET UP), never the SA. The SMDB carries the answers that
 * differ from the hint, and every node of the tree receives them, so the
 * rows, not the calls, bound its size: on a fat tree the engines give every
 * pair one SL and nothing differs, so 10,000 HCAs cost 10^8 calls and no
 * row; a torus whose pairs use several layers reaches the row bound.
 *
 * Threads: compute on the state manager thread only; the result is
 * published under routing_mu (osm_handle.h) for the extraction to copy. */
#include <opensm/osm_config.h> /* first: it selects the struct layouts */

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <complib/cl_passivelock.h>
#include <complib/cl_ptr_vector.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_log.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_partition.h>
#include <opensm/osm_qos_policy.h>
#include <opensm/osm_subnet.h>

#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/osm_handle.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The SLs the SA may pass path_sl as the hint. */
static uint16_t hint_mask(const osm_subn_t *subn)
{
	const osm_qos_policy_t *pol = subn->p_qos_policy;
	const cl_map_item_t *item;
	cl_list_iterator_t it;
	uint16_t mask = 1u << OSM_DEFAULT_SL;

	for (item = cl_qmap_head(&subn->prtn_pkey_tbl); item != cl_qmap_end(&subn->prtn_pkey_tbl);
	     item = cl_qmap_next(item))
		mask |= 1u << (((const osm_prtn_t *)item)->sl & 0xf);
	if (!subn->opt.qos || !pol)
		return mask;
	for (it = cl_list_head(&pol->qos_levels); it != cl_list_end(&pol->qos_levels);
	     it = cl_list_next(it)) {
		const osm_qos_level_t *l = cl_list_obj(it);
		if (l->sl_set)
			mask |= 1u << (l->sl & 0xf);
	}
	for (it = cl_list_head(&pol->qos_match_rules); it != cl_list_end(&pol->qos_match_rules);
	     it = cl_list_next(it)) {
		const osm_qos_match_rule_t *m = cl_list_obj(it);
		if (m->p_qos_level && m->p_qos_level->sl_set)
			mask |= 1u << (m->p_qos_level->sl & 0xf);
	}
	if (pol->p_default_qos_level && pol->p_default_qos_level->sl_set)
		mask |= 1u << (pol->p_default_qos_level->sl & 0xf);
	return mask;
}

static int push(struct ssa_route_sls *r, uint16_t slid, uint16_t dlid, uint8_t hint, uint8_t sl,
		uint8_t span, uint64_t max_rows)
{
	if (r->len >= max_rows)
		return -3;
	if (r->len == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct ssa_raw_route_sl *n = realloc(r->recs, cap * sizeof(*n));
		if (!n)
			return -1;
		r->recs = n;
		r->cap = cap;
	}
	r->recs[r->len].slid = slid;
	r->recs[r->len].dlid = dlid;
	r->recs[r->len].hint = hint;
	r->recs[r->len].sl = sl;
	r->recs[r->len].span = span;
	r->len++;
	return 0;
}

/* How the plugin reads the engine's answer for one LID pair. DFSSSP: one
 * call with hint 15, which no layer of at most 15 VLs can answer, so an
 * answer of 15 means the engine does not know the pair (it then answers
 * any hint with the hint) and any other answer names its layer's SL range
 * (osm_dfsssp_layers.c); its answer for a known pair does not depend on
 * the hint. Other engines: one call per hint. */
struct asker {
	const osm_routing_engine_t *re;
	int dfsssp;
	struct ssa_dfsssp_layers layers;
	uint64_t max_rows;
};

#define SSA_DFSSSP_PROBE_HINT 15

/* One source LID's row: every destination, every hint of `out`. 0, or -1
 * (an answer no DFSSSP layer gives), -2 (out of memory), -3 (more rows than
 * a->max_rows). */
static int ask_row(const struct asker *a, struct ssa_route_sls *out, const uint16_t *lids, size_t n,
		   size_t i)
{
	size_t j;
	unsigned k;

	for (j = 0; j < n; j++) {
		uint8_t base = 0, span = 1;
		int known = 0;
		if (a->dfsssp) {
			uint8_t v = a->re->path_sl(a->re->context, SSA_DFSSSP_PROBE_HINT,
						   htons(lids[i]), htons(lids[j]));
			if (v != SSA_DFSSSP_PROBE_HINT) {
				if (v >= a->layers.vls)
					return -1; /* no layer answers that: not the engine we know
						    */
				known = 1;
				base = a->layers.base[v];
				span = a->layers.span[v];
			}
		}
		for (k = 0; k < 16; k++) {
			if (!(out->hints & (1u << k)))
				continue;
			if (!a->dfsssp) {
				base = a->re->path_sl(a->re->context, (uint8_t)k, htons(lids[i]),
						      htons(lids[j]));
				span = 1;
			} else if (!known) {
				base = (uint8_t)k;
				span = 1;
			}
			if (base != k || span != out->hint_spans[k]) {
				int rc = push(out, lids[i], lids[j], (uint8_t)k, base, span,
					      a->max_rows);
				if (rc < 0)
					return rc == -3 ? -3 : -2;
			}
		}
	}
	return 0;
}

/* Fills `out` (state, hints, records) for the engine OpenSM just used;
 * with SSA_ROUTE_SL_TOO_LARGE, *too_many_rows tells which bound was met. */
static void compute(struct ssa_osm_handle *h, struct ssa_route_sls *out, unsigned *lid_count,
		    int *too_many_rows)
{
	osm_opensm_t *osm = h->osm;
	osm_subn_t *subn = &osm->subn;
	struct asker a;
	uint16_t *lids = NULL;
	size_t n = 0, i, size;
	unsigned hints = 0, k;
	uint64_t calls;

	memset(&a, 0, sizeof(a));
	a.re = osm->routing_engine_used;
	a.max_rows = h->route_sl_max_rows;
	out->state = SSA_ROUTE_SL_NONE;
	if (!a.re || !a.re->path_sl)
		return;
	cl_plock_acquire(&osm->lock);
	a.dfsssp = a.re->type == OSM_ROUTING_ENGINE_TYPE_DFSSSP;
	if (a.dfsssp && ssa_dfsssp_layers(osm, a.re, &a.layers) < 0) {
		cl_plock_release(&osm->lock);
		out->state = SSA_ROUTE_SL_RANDOM;
		return;
	}
	out->hints = hint_mask(subn);
	for (k = 0; k < 16; k++)
		out->hint_spans[k] = a.dfsssp && a.layers.base[k] == k ? a.layers.span[k] : 1;
	size = cl_ptr_vector_get_size(&subn->port_lid_tbl);
	lids = malloc((size ? size : 1) * sizeof(*lids));
	for (i = 1; lids && i < size && i < 0xC000; i++)
		if (cl_ptr_vector_get(&subn->port_lid_tbl, i))
			lids[n++] = (uint16_t)i;
	cl_plock_release(&osm->lock);
	*lid_count = (unsigned)n;
	for (k = 0; k < 16; k++)
		hints += (out->hints >> k) & 1;
	if (!lids) {
		out->state = SSA_ROUTE_SL_FAILED;
		return;
	}
	calls = (uint64_t)n * n * (a.dfsssp ? 1 : hints);
	if (calls > h->route_sl_max_calls) {
		out->state = SSA_ROUTE_SL_TOO_LARGE;
		free(lids);
		return;
	}
	for (i = 0; i < n; i++) {
		int rc;
		/* One row per hold of the lock. */
		cl_plock_acquire(&osm->lock);
		rc = ask_row(&a, out, lids, n, i);
		cl_plock_release(&osm->lock);
		if (rc < 0) {
			out->state = rc == -1	? SSA_ROUTE_SL_RANDOM
				     : rc == -3 ? SSA_ROUTE_SL_TOO_LARGE
						: SSA_ROUTE_SL_FAILED;
			*too_many_rows = rc == -3;
			free(lids);
			return;
		}
	}
	free(lids);
	out->state = SSA_ROUTE_SL_COMPUTED;
}

void ssa_osm_route_sls_compute(struct ssa_osm_handle *h)
{
	struct ssa_route_sls next, old;
	const char *why = "";
	unsigned lids = 0;
	int too_many_rows = 0;
	double t0 = now_ms(), ms;

	memset(&next, 0, sizeof(next));
	compute(h, &next, &lids, &too_many_rows);
	ms = now_ms() - t0;
	pthread_mutex_lock(&h->routing_mu);
	old = h->route_sls;
	next.generation = old.generation + 1;
	h->route_sls = next;
	pthread_mutex_unlock(&h->routing_mu);
	free(old.recs);

	switch (next.state) {
	case SSA_ROUTE_SL_NONE:
		return;
	case SSA_ROUTE_SL_COMPUTED:
		osm_log(&h->osm->log, OSM_LOG_INFO,
			"ibssa_osm: the routing engine's path SLs for %u LIDs (hints 0x%04x) in "
			"%.1f ms: "
			"%zu differ from the hint\n",
			lids, next.hints, ms, next.len);
		return;
	case SSA_ROUTE_SL_RANDOM:
		why = "DFSSSP draws among SLs whose range its state does not show as the plugin "
		      "knows it";
		break;
	case SSA_ROUTE_SL_TOO_LARGE:
		why = too_many_rows ? "more pairs whose SL differs from the hint than "
				      "route_sl_max_rows lets the core keep"
				    : "more LID pairs x hints than route_sl_max_calls lets the "
				      "plugin ask an engine per routing";
		break;
	default:
		why = "out of memory";
		break;
	}
	osm_log(&h->osm->log, OSM_LOG_INFO,
		"ibssa_osm: the routing engine's path SLs are not in the SMDB (%s; %u LIDs, "
		"%.1f ms); consumers ask the SA for those paths\n",
		why, lids, ms);
}

void ssa_osm_set_route_sl_limits(void *osm, uint64_t max_calls, uint64_t max_rows)
{
	struct ssa_osm_handle *h = osm;

	h->route_sl_max_calls = max_calls;
	h->route_sl_max_rows = max_rows;
}

void ssa_osm_route_sls_free(struct ssa_osm_handle *h)
{
	free(h->route_sls.recs);
	memset(&h->route_sls, 0, sizeof(h->route_sls));
}
