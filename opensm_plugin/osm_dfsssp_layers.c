/* osm_dfsssp_layers.c: which SLs DFSSSP's path_sl draws among.
 *
 * DFSSSP puts every path in a virtual layer. When it needs fewer layers
 * than the subnet has VLs, it spreads a layer over several consecutive VLs
 * for balance, and its path_sl then answers each query with one of them
 * at random (osm_ucast_dfsssp.c: get_dfsssp_sl returns res + rand() %
 * vl_split_count[res] when the count is above 1). No replica can know
 * which one a given SA query draws; what it can know, and carry, is the
 * range: the SA's answer is always one of those SLs, and a consumer that
 * draws among them the same way behaves as the SA does.
 *
 * The split counts are the engine's own state, which OpenSM does not
 * export: dfsssp_context_t is private to osm_ucast_dfsssp.c. The plugin
 * reads it through the layout OpenSM 3.3.x defines (below), and trusts it
 * only when every check holds: the context says it is DFSSSP and points
 * at this OpenSM's unicast manager, and the counts form disjoint ranges
 * inside the VLs the engine had (computed as the engine computes them).
 * Anything else and the records stay marked not exact (the SA answers).
 *
 * Threads: the state manager thread, after routing, OpenSM's lock held
 * (the engine rebuilds its context only while routing, on that thread). */
#include <opensm/osm_config.h> /* first: it selects the struct layouts */

#include <stdint.h>
#include <string.h>

#include <complib/cl_qmap.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_switch.h>

#include "opensm_plugin/osm_handle.h"

/* dfsssp_context_t of OpenSM 3.3.x (osm_ucast_dfsssp.c), up to the field
 * the plugin reads; the checks in ssa_dfsssp_layers() guard its use. */
struct dfsssp_context_view {
	osm_routing_engine_type_t routing_type;
	osm_ucast_mgr_t *p_mgr;
	void *adj_list;
	uint32_t adj_list_size;
	void *srcdest2vl_table;
	uint8_t *vl_split_count; /* vl_avail entries */
};

/* The VLs DFSSSP routes over: the fewest operational VLs of any linked
 * switch port (get_avail_vl_in_subn), as a count between 1 and 15. */
static unsigned avail_vls(const osm_subn_t *subn)
{
	const cl_map_item_t *item;
	uint8_t least = 0xFF;
	unsigned i, vls;

	for (item = cl_qmap_head(&subn->sw_guid_tbl); item != cl_qmap_end(&subn->sw_guid_tbl);
	     item = cl_qmap_next(item)) {
		const osm_switch_t *sw = (const osm_switch_t *)item;
		for (i = 1; i < osm_node_get_num_physp(sw->p_node); i++) {
			osm_physp_t *p = osm_node_get_physp_ptr(sw->p_node, i);
			uint8_t op;
			if (!p || !p->p_remote_physp)
				continue;
			op = ib_port_info_get_op_vls(&p->port_info);
			if (op && op < least)
				least = op;
		}
	}
	if (least == 0xFF || least > 5)
		return least == 0xFF ? 1 : 15; /* as the engine: 1 << 254 is "many" */
	vls = 1u << (least - 1);
	return vls > 15 ? 15 : vls < 1 ? 1 : vls;
}

int ssa_dfsssp_layers(osm_opensm_t *osm, const osm_routing_engine_t *re,
		      struct ssa_dfsssp_layers *out)
{
	const struct dfsssp_context_view *ctx = re->context;
	unsigned vls, v, r, k;

	memset(out, 0, sizeof(*out));
	if (!ctx || re->type != OSM_ROUTING_ENGINE_TYPE_DFSSSP ||
	    ctx->routing_type != OSM_ROUTING_ENGINE_TYPE_DFSSSP ||
	    ctx->p_mgr != &osm->sm.ucast_mgr || !ctx->vl_split_count)
		return -1;
	vls = avail_vls(&osm->subn);
	out->vls = (uint8_t)vls;
	for (v = 0; v < 16; v++) {
		out->base[v] = (uint8_t)v;
		out->span[v] = 1;
	}
	/* A layer with a count above 1 answers among [r, r + count); the
	 * ranges must fit the VLs and not overlap (DFSSSP lays them end to
	 * end), else this is not the layout the plugin knows. */
	for (r = 0; r < vls; r++) {
		unsigned count = ctx->vl_split_count[r];
		if (count <= 1)
			continue;
		if (r + count > vls)
			return -1;
		for (k = r; k < r + count; k++) {
			/* Inside a range no layer starts (its count moved on). */
			if (k > r && ctx->vl_split_count[k] != 0)
				return -1;
			out->base[k] = (uint8_t)r;
			out->span[k] = (uint8_t)count;
		}
		r += count - 1;
	}
	return 0;
}
