/* osm_extract.c: copies OpenSM's subnet into the caller's raw buffers under
 * OpenSM's lock (osm_bridge.h has the record layouts).
 *
 * Everything here runs while OpenSM's state manager may be waiting for the
 * lock, so the walk only reads and copies: no allocation (the buffers are
 * sized by the caller from the previous extraction; an overflow is counted,
 * not grown), no I/O, no logging. Every loop is bounded by the size its
 * container reports, so a damaged container cannot hold us here forever.
 *
 * Ownership: borrows the handle (osm_handle.h), its osm_opensm_t (whose
 * subnet outlives the plugin: OpenSM destroys plugins before the subnet,
 * but not before its routing engines, hence the handle's copy) and the
 * caller's buffers. Thread: the plugin's
 * worker thread, never the thread that reported the event. */
#include <opensm/osm_config.h> /* first: it selects the struct layouts */

#include <string.h>
#include <time.h>

#include <complib/cl_passivelock.h>
#include <complib/cl_ptr_vector.h>
#include <complib/cl_qlist.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_base.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_partition.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_prefix_route.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/osm_handle.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Reserves one element of a raw array: its address when it fits, else NULL
 * (the element is still counted). */
#define RAW_NEXT(b, name) \
	((b)->name##_len < (b)->name##_cap ? &(b)->name[(b)->name##_len++] : ((b)->name##_len++, NULL))

static void copy_text(char *dst, size_t dst_len, const char *src, size_t src_len)
{
	/* Bytes after the first NUL are zeroed so that two extractions of the
	 * same subnet compare equal whatever garbage followed the string. */
	size_t n = 0;
	while (n < src_len && n < dst_len && src[n])
		n++;
	memcpy(dst, src, n);
	memset(dst + n, 0, dst_len - n);
}

static void extract_subnet(struct ssa_osm_handle *h, struct ssa_raw_subnet *s)
{
	const osm_subn_t *subn = &h->osm->subn;
	struct ssa_osm_routing re;

	memset(s, 0, sizeof(*s));
	s->subnet_prefix = cl_ntoh64(subn->opt.subnet_prefix);
	s->sm_port_guid = cl_ntoh64(subn->sm_port_guid);
	s->sm_lid = cl_ntoh16(subn->master_sm_base_lid);
	s->sm_state = subn->sm_state;
	s->sm_priority = subn->opt.sm_priority;
	s->lmc = subn->opt.lmc;
	s->subnet_timeout = subn->opt.subnet_timeout;
	s->packet_life_time = subn->opt.packet_life_time;
	s->default_sl = OSM_DEFAULT_SL;
	s->qos = subn->opt.qos ? 1 : 0;
	/* With QoS on, the SA applies the policy's levels (when a policy file
	 * was loaded) and drops paths whose SL meets VL15 on an SL2VL table
	 * (extract_node finds those). */
	s->qos_policy = subn->opt.qos && subn->p_qos_policy ? 1 : 0;
	s->enable_quirks = subn->opt.enable_quirks ? 1 : 0;
	s->allow_both_pkeys = subn->opt.allow_both_pkeys ? 1 : 0;
	/* The SA asks the routing engine for the SL when it has path_sl
	 * (LASH, DFSSSP, torus-2QoS): the SMDB cannot reproduce those SLs.
	 * The engine itself may already be freed at shutdown: read the copy
	 * made on OpenSM's state manager thread (osm_handle.h). */
	pthread_mutex_lock(&h->routing_mu);
	re = h->routing;
	pthread_mutex_unlock(&h->routing_mu);
	s->routing_sl = re.path_sl;
	copy_text(s->routing_engine, sizeof(s->routing_engine), re.name, sizeof(re.name));
	s->lid_table_size = (uint32_t)cl_ptr_vector_get_size(&subn->port_lid_tbl);
}

static void extract_port(struct ssa_raw_buffers *b, const osm_node_t *node, const osm_physp_t *p,
			 const osm_physp_t *p0)
{
	struct ssa_raw_port *r = RAW_NEXT(b, ports);
	const ib_port_info_t *pi = &p->port_info;
	const osm_physp_t *peer;
	const ib_net32_t *cap_source;
	uint16_t nblocks, i;

	nblocks = osm_pkey_tbl_get_num_blocks(&p->pkeys);
	for (i = 0; i < nblocks; i++) {
		struct ssa_raw_pkey_block *blk = RAW_NEXT(b, pkey_blocks);
		const ib_pkey_table_t *t = osm_pkey_tbl_block_get(&p->pkeys, i);
		unsigned k;
		if (!blk)
			continue;
		for (k = 0; k < 32; k++)
			blk->pkeys[k] = t ? cl_ntoh16(t->pkey_entry[k]) : 0;
	}
	if (!r)
		return;
	r->node_guid = cl_ntoh64(node->node_info.node_guid);
	r->port_guid = cl_ntoh64(p->port_guid);
	r->capability_mask = cl_ntoh32(pi->capability_mask);
	r->capability_mask2 = cl_ntoh16(pi->capability_mask2);
	r->base_lid = cl_ntoh16(pi->base_lid);
	r->pkey_first = (uint32_t)(b->pkey_blocks_len - nblocks);
	r->pkey_block_count = nblocks;
	r->port_num = p->port_num;
	r->node_type = node->node_info.node_type;
	r->lmc = ib_port_info_get_lmc(pi);
	r->port_state = ib_port_info_get_port_state(pi);
	r->phys_state = ib_port_info_get_port_phys_state(pi);
	r->mtu_cap = ib_port_info_get_mtu_cap(pi);
	r->neighbor_mtu = ib_port_info_get_neighbor_mtu(pi);
	r->link_width_active = pi->link_width_active;
	r->link_speed_active = ib_port_info_get_link_speed_active(pi);
	r->link_speed_ext_active = ib_port_info_get_link_speed_ext_active(pi);
	/* osm_sa_path_record.c takes the extended-speeds capability from port 0
	 * for a switch's external ports, and from the port itself otherwise. */
	cap_source = (p0 && p != p0) ? &p0->port_info.capability_mask : &pi->capability_mask;
	r->rate = ib_port_info_compute_rate(pi, (*cap_source & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0);
	peer = p->p_remote_physp;
	r->has_peer = 0;
	r->peer_node_guid = 0;
	r->peer_port_num = 0;
	if (peer && peer->p_node && osm_physp_is_valid(peer)) {
		r->has_peer = 1;
		r->peer_node_guid = cl_ntoh64(peer->p_node->node_info.node_guid);
		r->peer_port_num = peer->port_num;
	}
}

/* Whether one of the port's SL2VL tables (one per input port on a switch,
 * one on a CA) maps some SL to VL15, which makes the SA drop paths on that
 * SL. A nibble is 15 when its four bits are all set. */
static int sl2vl_drops_an_sl(const osm_physp_t *p)
{
	size_t n = cl_ptr_vector_get_size(&p->slvl_by_port), i;

	for (i = 0; i < n; i++) {
		const ib_slvl_table_t *t = cl_ptr_vector_get(&p->slvl_by_port, i);
		uint64_t v;
		if (!t)
			continue;
		memcpy(&v, t->raw_vl_by_sl, sizeof(v));
		if (v & (v >> 1) & (v >> 2) & (v >> 3) & 0x1111111111111111ULL)
			return 1;
	}
	return 0;
}

static void extract_node(struct ssa_raw_buffers *b, const osm_node_t *node)
{
	struct ssa_raw_node *r = RAW_NEXT(b, nodes);
	const ib_node_info_t *ni = &node->node_info;
	const osm_physp_t *p0 = NULL;
	uint32_t i;

	if (r) {
		r->node_guid = cl_ntoh64(ni->node_guid);
		r->system_image_guid = cl_ntoh64(ni->sys_guid);
		r->vendor_id = cl_ntoh32(ib_node_info_get_vendor_id(ni));
		r->revision = cl_ntoh32(ni->revision);
		r->partition_cap = cl_ntoh16(ni->partition_cap);
		r->device_id = cl_ntoh16(ni->device_id);
		r->node_type = ni->node_type;
		r->num_ports = ni->num_ports;
		copy_text(r->description, sizeof(r->description), (const char *)node->node_desc.description,
			  sizeof(node->node_desc.description));
	}
	if (ni->node_type == IB_NODE_TYPE_SWITCH && node->physp_tbl_size > 0 &&
	    osm_physp_is_valid(&node->physp_table[0]))
		p0 = &node->physp_table[0];
	/* physp_table has physp_tbl_size entries; invalid ones (a CA's port 0,
	 * never-discovered ports) have a zero port GUID. */
	for (i = 0; i < node->physp_tbl_size; i++) {
		const osm_physp_t *p = &node->physp_table[i];
		if (!osm_physp_is_valid(p))
			continue;
		extract_port(b, node, p, p0);
		if (b->subnet.qos && !b->subnet.sl2vl_drops && sl2vl_drops_an_sl(p))
			b->subnet.sl2vl_drops = 1;
	}
}

static void extract_switch(struct ssa_raw_buffers *b, const osm_switch_t *sw)
{
	struct ssa_raw_switch *r = RAW_NEXT(b, switches);
	uint32_t len = 0;

	/* sw->lft is what the switch has been confirmed to hold (the SA walks
	 * it); entries above max_lid_ho read as no path, as in
	 * osm_switch_get_port_by_lid. */
	if (sw->lft && sw->lft_size > 0) {
		len = (uint32_t)sw->max_lid_ho + 1;
		if (len > sw->lft_size)
			len = sw->lft_size;
	}
	if (b->lft_bytes_len + len <= b->lft_bytes_cap)
		memcpy(b->lft_bytes + b->lft_bytes_len, sw->lft, len);
	b->lft_bytes_len += len;
	if (!r)
		return;
	r->node_guid = sw->p_node ? cl_ntoh64(sw->p_node->node_info.node_guid) : 0;
	r->lft_first = b->lft_bytes_len - len;
	r->lft_len = len;
	r->lin_fdb_cap = cl_ntoh16(sw->switch_info.lin_cap);
	r->lin_fdb_top = sw->max_lid_ho;
	r->mcast_fdb_cap = cl_ntoh16(sw->switch_info.mcast_cap);
	r->life_time = (uint8_t)(sw->switch_info.life_state >> 3);
	r->enhanced_port0 = ib_switch_info_is_enhanced_port0(&sw->switch_info) ? 1 : 0;
}

static void extract_guid(struct ssa_raw_buffers *b, uint64_t guid, const osm_port_t *port, uint8_t alias)
{
	struct ssa_raw_guid *r;
	uint16_t lid;

	if (!port || !port->p_physp)
		return;
	lid = cl_ntoh16(port->p_physp->port_info.base_lid);
	if (lid == 0) /* guid_lids lists only GUIDs a consumer can reach */
		return;
	r = RAW_NEXT(b, guids);
	if (!r)
		return;
	r->guid = guid;
	r->port_guid = cl_ntoh64(port->guid);
	r->base_lid = lid;
	r->lmc = ib_port_info_get_lmc(&port->p_physp->port_info);
	r->is_alias = alias;
}

/* Iterates a cl_qmap at most its own count times; stopping early marks
 * the snapshot truncated. */
#define FOR_QMAP(map, type, var, bound, b)                                          \
	for ((bound) = cl_qmap_count(map), (var) = (type *)cl_qmap_head(map);        \
	     (var) != (type *)cl_qmap_end(map) &&                                    \
	     ((bound)-- > 0 || ((b)->truncated = 1, 0));                             \
	     (var) = (type *)cl_qmap_next(&(var)->map_item))

static void walk(struct ssa_osm_handle *h, struct ssa_raw_buffers *b)
{
	osm_subn_t *subn = &h->osm->subn;
	const osm_node_t *node;
	const osm_switch_t *sw;
	const osm_port_t *port;
	const osm_alias_guid_t *alias;
	const osm_prtn_t *prtn;
	const cl_list_item_t *item;
	size_t bound;

	extract_subnet(h, &b->subnet);
	FOR_QMAP(&subn->node_guid_tbl, const osm_node_t, node, bound, b)
		extract_node(b, node);
	FOR_QMAP(&subn->sw_guid_tbl, const osm_switch_t, sw, bound, b)
		extract_switch(b, sw);
	FOR_QMAP(&subn->port_guid_tbl, const osm_port_t, port, bound, b)
		extract_guid(b, cl_ntoh64(port->guid), port, 0);
	/* alias_port_guid_tbl also holds every port's own GUID: skip those. */
	FOR_QMAP(&subn->alias_port_guid_tbl, const osm_alias_guid_t, alias, bound, b)
		if (alias->p_base_port && alias->alias_guid != alias->p_base_port->guid)
			extract_guid(b, cl_ntoh64(alias->alias_guid), alias->p_base_port, 1);
	FOR_QMAP(&subn->prtn_pkey_tbl, const osm_prtn_t, prtn, bound, b) {
		struct ssa_raw_partition *r = RAW_NEXT(b, partitions);
		if (!r)
			continue;
		r->pkey = cl_ntoh16(prtn->pkey) & 0x7fff;
		r->sl = prtn->sl;
		copy_text(r->name, sizeof(r->name), prtn->name, sizeof(prtn->name));
	}
	bound = cl_qlist_count(&subn->prefix_routes_list);
	for (item = cl_qlist_head(&subn->prefix_routes_list);
	     item != cl_qlist_end(&subn->prefix_routes_list); item = cl_qlist_next(item)) {
		const osm_prefix_route_t *route = (const osm_prefix_route_t *)item;
		struct ssa_raw_prefix_route *r;
		if (bound-- == 0) {
			b->truncated = 1;
			break;
		}
		r = RAW_NEXT(b, prefix_routes);
		if (!r)
			continue;
		r->prefix = cl_ntoh64(route->prefix);
		r->router_port_guid = cl_ntoh64(route->guid);
	}
}

int ssa_osm_extract(void *osm_handle, struct ssa_raw_buffers *b, struct ssa_extract_times *t)
{
	struct ssa_osm_handle *h = osm_handle;
	osm_opensm_t *osm = h->osm;
	double t0, t1, t2;

	b->nodes_len = b->ports_len = b->guids_len = b->switches_len = 0;
	b->lft_bytes_len = b->pkey_blocks_len = b->partitions_len = b->prefix_routes_len = 0;
	b->truncated = 0;

	t0 = now_ms();
	cl_plock_acquire(&osm->lock);
	t1 = now_ms();
	walk(h, b);
	cl_plock_release(&osm->lock);
	t2 = now_ms();

	t->wait_ms = t1 - t0;
	t->hold_ms = t2 - t1;
	return (b->nodes_len > b->nodes_cap || b->ports_len > b->ports_cap ||
		b->guids_len > b->guids_cap || b->switches_len > b->switches_cap ||
		b->lft_bytes_len > b->lft_bytes_cap || b->pkey_blocks_len > b->pkey_blocks_cap ||
		b->partitions_len > b->partitions_cap ||
		b->prefix_routes_len > b->prefix_routes_cap) ? 1 : 0;
}
