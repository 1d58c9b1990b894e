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
#include <opensm/osm_qos_policy.h>
#include <opensm/osm_subnet.h>
#include <opensm/osm_switch.h>

#include "common/smdb/qos_level_flags.h"
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
#define RAW_NEXT(b, name)                                                                          \
	((b)->name##_len < (b)->name##_cap ? &(b)->name[(b)->name##_len++]                         \
					   : ((b)->name##_len++, NULL))
/* How many of an array's elements were written (the rest overflowed). */
#define RAW_WRITTEN(b, name) ((b)->name##_len < (b)->name##_cap ? (b)->name##_len : (b)->name##_cap)

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
	s->original_sa_rates = subn->opt.use_original_extended_sa_rates_only ? 1 : 0;
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

/* The SLs a port's SL2VL tables (one per input port on a switch, one on a
 * CA) send to VL15, which makes the SA drop paths on them: one record per
 * (port, input port) that drops any. A nibble is 15 when its four bits are
 * all set; the quick test skips the common table that drops nothing. */
static void extract_sl2vl_drops(struct ssa_raw_buffers *b, const osm_node_t *node,
				const osm_physp_t *p)
{
	size_t n = cl_ptr_vector_get_size(&p->slvl_by_port), i;
	unsigned sl;

	for (i = 0; i < n && i < 256; i++) {
		const ib_slvl_table_t *t = cl_ptr_vector_get(&p->slvl_by_port, i);
		struct ssa_raw_sl2vl_drop *r;
		uint64_t v;
		uint16_t mask = 0;
		if (!t)
			continue;
		memcpy(&v, t->raw_vl_by_sl, sizeof(v));
		if (!(v & (v >> 1) & (v >> 2) & (v >> 3) & 0x1111111111111111ULL))
			continue;
		for (sl = 0; sl < 16; sl++)
			if (ib_slvl_table_get(t, (uint8_t)sl) == IB_DROP_VL)
				mask |= (uint16_t)(1u << sl);
		b->subnet.sl2vl_drops = 1;
		r = RAW_NEXT(b, sl2vl_drops);
		if (!r)
			continue;
		r->node_guid = cl_ntoh64(node->node_info.node_guid);
		r->out_port = p->port_num;
		r->in_port = (uint8_t)i;
		r->mask = mask;
	}
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
		copy_text(r->description, sizeof(r->description),
			  (const char *)node->node_desc.description,
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
		if (b->subnet.qos)
			extract_sl2vl_drops(b, node, p);
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

static void extract_guid(struct ssa_raw_buffers *b, uint64_t guid, const osm_port_t *port,
			 uint8_t alias)
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
#define FOR_QMAP(map, type, var, bound, b)                                                         \
	for ((bound) = cl_qmap_count(map), (var) = (type *)cl_qmap_head(map);                      \
	     (var) != (type *)cl_qmap_end(map) && ((bound)-- > 0 || ((b)->truncated = 1, 0));      \
	     (var) = (type *)cl_qmap_next(&(var)->map_item))

/* ---- The QoS policy ---- */

static void qos_ranges(struct ssa_raw_buffers *b, uint8_t owner_kind, uint16_t owner, uint8_t kind,
		       uint64_t **arr, unsigned len)
{
	unsigned i;

	for (i = 0; arr && i < len; i++) {
		struct ssa_raw_qos_range *r = RAW_NEXT(b, qos_ranges);
		if (!r)
			continue;
		r->owner_kind = owner_kind;
		r->owner = owner;
		r->kind = kind;
		r->pos = (uint16_t)i;
		r->lo = arr[i][0];
		r->hi = arr[i][1];
	}
}

static void copy_name(char *dst, size_t dst_len, const char *src)
{
	if (src)
		copy_text(dst, dst_len, src, strlen(src));
	else
		memset(dst, 0, dst_len);
}

/* The seq of `level` among the levels written so far, writing it (with
 * its P_Key ranges) when it is new: rules and the default may point at
 * levels outside the policy's list (the qos-ulps section's). */
static uint16_t qos_level_seq(struct ssa_raw_buffers *b, const osm_qos_level_t *level)
{
	size_t i, n = RAW_WRITTEN(b, qos_levels);
	uint16_t seq = (uint16_t)b->qos_levels_len;
	struct ssa_raw_qos_level *r;

	for (i = 0; i < n; i++)
		if (b->qos_levels[i].id == level)
			return b->qos_levels[i].seq;
	r = RAW_NEXT(b, qos_levels);
	if (r) {
		r->id = level;
		r->seq = seq;
		r->flags = (level->sl_set ? SMDB_QOS_LEVEL_SL : 0) |
			   (level->mtu_limit_set ? SMDB_QOS_LEVEL_MTU : 0) |
			   (level->rate_limit_set ? SMDB_QOS_LEVEL_RATE : 0) |
			   (level->pkt_life_set ? SMDB_QOS_LEVEL_LIFE : 0);
		r->sl = level->sl;
		r->mtu_limit = level->mtu_limit;
		r->rate_limit = level->rate_limit;
		r->pkt_life = level->pkt_life;
		copy_name(r->name, sizeof(r->name), level->name);
	}
	qos_ranges(b, 0, seq, 0, level->pkey_range_arr, level->pkey_range_len);
	return seq;
}

static uint16_t qos_group_seq(const struct ssa_raw_buffers *b, const void *group)
{
	size_t i, n = RAW_WRITTEN(b, qos_groups);

	for (i = 0; i < n; i++)
		if (b->qos_groups[i].id == group)
			return b->qos_groups[i].seq;
	return 0xFFFF; /* not written (overflow): the walk is retried */
}

static void qos_rule_groups(struct ssa_raw_buffers *b, uint16_t rule, uint8_t side,
			    const cl_list_t *list)
{
	cl_list_iterator_t it;
	uint16_t pos = 0;

	for (it = cl_list_head(list); it != cl_list_end(list); it = cl_list_next(it)) {
		struct ssa_raw_qos_rule_group *r = RAW_NEXT(b, qos_rule_groups);
		if (r) {
			r->rule = rule;
			r->side = side;
			r->pos = pos;
			r->group = qos_group_seq(b, cl_list_obj(it));
		}
		pos++;
	}
}

/* What the SA consults of the policy (osm_qos_policy_get_qos_level_by_pr):
 * every level of the list, the groups with their port maps, the rules in
 * order, the default level. */
static void extract_qos(const osm_subn_t *subn, struct ssa_raw_buffers *b)
{
	const osm_qos_policy_t *pol = subn->p_qos_policy;
	cl_list_iterator_t it;
	uint16_t seq;

	if (!subn->opt.qos || !pol)
		return;
	for (it = cl_list_head(&pol->qos_levels); it != cl_list_end(&pol->qos_levels);
	     it = cl_list_next(it))
		qos_level_seq(b, cl_list_obj(it));
	seq = 0;
	for (it = cl_list_head(&pol->port_groups); it != cl_list_end(&pol->port_groups);
	     it = cl_list_next(it)) {
		const osm_qos_port_group_t *g = cl_list_obj(it);
		struct ssa_raw_qos_group *r = RAW_NEXT(b, qos_groups);
		const cl_map_item_t *item;
		if (r) {
			r->id = g;
			r->seq = seq;
			r->node_types = g->node_types;
			copy_name(r->name, sizeof(r->name), g->name);
		}
		for (item = cl_qmap_head(&g->port_map); item != cl_qmap_end(&g->port_map);
		     item = cl_qmap_next(item)) {
			struct ssa_raw_qos_group_port *p = RAW_NEXT(b, qos_group_ports);
			if (p) {
				p->group = seq;
				p->port_guid =
					cl_qmap_key(item); /* host order, as the SA looks it up */
			}
		}
		seq++;
	}
	seq = 0;
	for (it = cl_list_head(&pol->qos_match_rules); it != cl_list_end(&pol->qos_match_rules);
	     it = cl_list_next(it)) {
		const osm_qos_match_rule_t *m = cl_list_obj(it);
		struct ssa_raw_qos_rule *r = RAW_NEXT(b, qos_rules);
		uint16_t level = m->p_qos_level ? qos_level_seq(b, m->p_qos_level) : 0xFFFF;
		if (r) {
			r->seq = seq;
			r->level = level;
		}
		qos_rule_groups(b, seq, 0, &m->source_group_list);
		qos_rule_groups(b, seq, 1, &m->destination_group_list);
		qos_ranges(b, 1, seq, 0, m->pkey_range_arr, m->pkey_range_len);
		qos_ranges(b, 1, seq, 1, m->service_id_range_arr, m->service_id_range_len);
		qos_ranges(b, 1, seq, 2, m->qos_class_range_arr, m->qos_class_range_len);
		seq++;
	}
	if (pol->p_default_qos_level) {
		uint16_t d = qos_level_seq(b, pol->p_default_qos_level);
		if (d < RAW_WRITTEN(b, qos_levels))
			b->qos_levels[d].flags |= SMDB_QOS_LEVEL_DEFAULT;
	}
	b->subnet.qos_tables = 1;
}

/* The routing engine's path SLs, as the state manager thread left them
 * after the last routing (osm_route_sl.c); the state manager computes
 * them before it reports the routing, whose extraction then has them. */
static void extract_route_sls(struct ssa_osm_handle *h, struct ssa_raw_buffers *b)
{
	size_t i;

	pthread_mutex_lock(&h->routing_mu);
	b->subnet.route_sl_state = h->route_sls.state;
	b->subnet.route_sl_hints = h->route_sls.hints;
	memcpy(b->subnet.route_sl_hint_spans, h->route_sls.hint_spans,
	       sizeof(b->subnet.route_sl_hint_spans));
	for (i = 0; h->route_sls.state == SSA_ROUTE_SL_COMPUTED && i < h->route_sls.len; i++) {
		struct ssa_raw_route_sl *r = RAW_NEXT(b, route_sls);
		if (r)
			*r = h->route_sls.recs[i];
	}
	pthread_mutex_unlock(&h->routing_mu);
}

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
	FOR_QMAP(&subn->prtn_pkey_tbl, const osm_prtn_t, prtn, bound, b)
	{
		struct ssa_raw_partition *r = RAW_NEXT(b, partitions);
		if (!r)
			continue;
		r->pkey = cl_ntoh16(prtn->pkey) & 0x7fff;
		r->sl = prtn->sl;
		copy_text(r->name, sizeof(r->name), prtn->name, sizeof(prtn->name));
	}
	extract_qos(subn, b);
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

#define SSA_RAW_EMPTY(type, name) b->name##_len = 0;
	SSA_RAW_ARRAYS(SSA_RAW_EMPTY)
#undef SSA_RAW_EMPTY
	b->truncated = 0;

	t0 = now_ms();
	cl_plock_acquire(&osm->lock);
	t1 = now_ms();
	walk(h, b);
	cl_plock_release(&osm->lock);
	t2 = now_ms();
	/* The handle has its own mutex: no need to hold OpenSM's lock. */
	extract_route_sls(h, b);

	t->wait_ms = t1 - t0;
	t->hold_ms = t2 - t1;
#define SSA_RAW_OVERFLOWED(type, name) || b->name##_len > b->name##_cap
	return (0 SSA_RAW_ARRAYS(SSA_RAW_OVERFLOWED)) ? 1 : 0;
#undef SSA_RAW_OVERFLOWED
}
