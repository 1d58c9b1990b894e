// raw_snapshot.cc: RawSnapshot and BuildSmdb (see raw_snapshot.h).
#include "opensm_plugin/raw_snapshot.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "common/base/big_endian.h"
#include "common/base/sort_unique.h"

namespace ssa {
namespace opensm_plugin {

using smdb::SmdbGuidLid;
using smdb::SmdbLftBlock;
using smdb::SmdbLink;
using smdb::SmdbNode;
using smdb::SmdbPartition;
using smdb::SmdbPkeyBlock;
using smdb::SmdbPort;
using smdb::SmdbPrefixRoute;
using smdb::SmdbSwitch;

RawSnapshot::RawSnapshot() { Expose(); }

void RawSnapshot::Expose() {
#define SSA_RAW_EXPOSE(type, name) \
  b_.name = name##_.data();        \
  b_.name##_cap = name##_.size();
  SSA_RAW_ARRAYS(SSA_RAW_EXPOSE)
#undef SSA_RAW_EXPOSE
}

namespace {

template <class T>
void GrowTo(std::vector<T>* v, size_t needed) {
  if (needed <= v->size()) return;
  // 1/8 headroom plus a little: a few nodes joining must not cost a
  // second walk under the lock on every sweep.
  v->resize(needed + needed / 8 + 16);
}

template <size_t N>
void CopyText(std::array<char, N>* dst, const char* src, size_t src_len) {
  dst->fill(0);
  std::memcpy(dst->data(), src, std::min(N, src_len));
}

bool IsSwitchExternal(const ssa_raw_port& p) {
  return p.node_type == smdb::kNodeSwitch && p.port_num != 0;
}

void BuildSubnet(const ssa_raw_subnet& s, smdb::SmdbSubnet* r) {
  r->subnet_prefix = s.subnet_prefix;
  r->sm_port_guid = s.sm_port_guid;
  r->sm_lid = s.sm_lid;
  r->sm_state = s.sm_state;
  r->sm_priority = s.sm_priority;
  r->lmc = s.lmc;
  r->subnet_timeout = s.subnet_timeout;
  r->packet_life_time = s.packet_life_time;
  r->default_sl = s.default_sl;
  r->flags =
      (s.qos ? smdb::kSubnetQos : 0) | (s.enable_quirks ? smdb::kSubnetEnableQuirks : 0) |
      (s.allow_both_pkeys ? smdb::kSubnetAllowBothPkeys : 0) |
      (s.original_sa_rates ? smdb::kSubnetOriginalSaRates : 0) |
      (s.routing_sl ? smdb::kSubnetRoutingSl : 0) | (s.qos ? smdb::kSubnetQosReported : 0) |
      (s.qos_policy ? smdb::kSubnetQosPolicy : 0) | (s.sl2vl_drops ? smdb::kSubnetSl2VlDrops : 0) |
      (s.qos_tables ? smdb::kSubnetQosTables : 0) |
      (s.route_sl_state == SSA_ROUTE_SL_COMPUTED ? smdb::kSubnetRouteSls : 0) |
      (s.qos ? smdb::kSubnetSl2VlTables : 0) | (kHostBigEndian ? smdb::kSubnetSmBigEndian : 0);
  CopyText(&r->routing_engine, s.routing_engine, sizeof(s.routing_engine));
}

// Ports, links and the shared P_Key tables. Table ids are handed out in
// port key order, so the same subnet always yields the same ids (and an
// unchanged pkey_blocks table keeps its epoch).
void BuildPorts(const ssa_raw_buffers& raw, const std::vector<uint64_t>& node_guids, smdb::Smdb* db,
                BuildReport* report) {
  std::vector<const ssa_raw_port*> order;
  order.reserve(raw.ports_len);
  for (size_t i = 0; i < raw.ports_len; ++i) order.push_back(&raw.ports[i]);
  std::stable_sort(order.begin(), order.end(), [](const ssa_raw_port* a, const ssa_raw_port* b) {
    return std::tie(a->node_guid, a->port_num) < std::tie(b->node_guid, b->port_num);
  });
  std::map<std::vector<uint16_t>, uint32_t> table_ids;
  std::vector<uint16_t> content;
  auto& ports = db->ports.records;
  auto& links = db->links.records;
  ports.reserve(order.size());
  for (const ssa_raw_port* p : order) {
    if (!ports.empty() && ports.back().node_guid == p->node_guid &&
        ports.back().port_num == p->port_num) {
      ++report->duplicate_keys;
      continue;
    }
    SmdbPort r;
    r.node_guid = p->node_guid;
    r.port_num = p->port_num;
    bool external = IsSwitchExternal(*p);
    // A switch's external ports have no GUID or LID of their own.
    r.port_guid = external ? 0 : p->port_guid;
    r.base_lid = external ? 0 : p->base_lid;
    r.lmc = external ? 0 : p->lmc;
    r.port_state = p->port_state;
    r.phys_state = p->phys_state;
    r.mtu_cap = p->mtu_cap;
    r.neighbor_mtu = p->neighbor_mtu;
    r.link_width_active = p->link_width_active;
    r.link_speed_active = p->link_speed_active;
    r.link_speed_ext_active = p->link_speed_ext_active;
    r.rate = p->rate;
    r.capability_mask = p->capability_mask;
    r.capability_mask2 = p->capability_mask2;
    if (p->pkey_block_count > 0 && p->pkey_first + p->pkey_block_count <= raw.pkey_blocks_len) {
      content.assign(&raw.pkey_blocks[p->pkey_first].pkeys[0],
                     &raw.pkey_blocks[p->pkey_first].pkeys[0] + 32 * size_t{p->pkey_block_count});
      auto it = table_ids.emplace(content, static_cast<uint32_t>(table_ids.size())).first;
      r.pkey_table_id = it->second;
    }
    ports.push_back(r);
    // One record per direction of every link that is not down.
    if (p->has_peer && p->port_state > smdb::kPortDown) {
      if (!std::binary_search(node_guids.begin(), node_guids.end(), p->peer_node_guid)) {
        ++report->dangling_links;
        continue;
      }
      links.push_back(SmdbLink{p->node_guid, p->port_num, p->peer_node_guid, p->peer_port_num});
    }
  }
  std::vector<const std::vector<uint16_t>*> by_id(table_ids.size());
  for (const auto& kv : table_ids) by_id[kv.second] = &kv.first;
  for (uint32_t id = 0; id < by_id.size(); ++id) {
    const std::vector<uint16_t>& t = *by_id[id];
    for (size_t block = 0; block * 32 < t.size(); ++block) {
      SmdbPkeyBlock r;
      r.table_id = id;
      r.block = static_cast<uint16_t>(block);
      std::copy(t.begin() + block * 32, t.begin() + block * 32 + 32, r.pkeys.begin());
      db->pkey_blocks.records.push_back(r);
    }
  }
}

void BuildSwitches(const ssa_raw_buffers& raw, smdb::Smdb* db, BuildReport* report) {
  auto& switches = db->switches.records;
  for (size_t i = 0; i < raw.switches_len; ++i) {
    const ssa_raw_switch& s = raw.switches[i];
    uint8_t flags = s.enhanced_port0 ? smdb::kSwitchEnhancedPort0 : 0;
    switches.push_back(
        SmdbSwitch{s.node_guid, s.lin_fdb_cap, s.lin_fdb_top, s.mcast_fdb_cap, s.life_time, flags});
    if (s.lft_len == 0 || s.lft_first + s.lft_len > raw.lft_bytes_len) continue;
    const uint8_t* lft = raw.lft_bytes + s.lft_first;
    size_t blocks = size_t{s.lin_fdb_top} / smdb::kLftBlockSize + 1;
    for (size_t b = 0; b < blocks; ++b) {
      SmdbLftBlock r;
      r.node_guid = s.node_guid;
      r.block = static_cast<uint16_t>(b);
      for (size_t k = 0; k < smdb::kLftBlockSize; ++k) {
        size_t lid = b * smdb::kLftBlockSize + k;
        // As osm_switch_get_port_by_lid: LID 0 and LIDs above the top
        // have no route.
        bool routed = lid != 0 && lid <= s.lin_fdb_top && lid < s.lft_len;
        r.ports[k] = routed ? lft[lid] : smdb::kLftNoPath;
      }
      db->lft_blocks.records.push_back(r);
    }
  }
  report->duplicate_keys += SortUnique(&switches, [](const SmdbSwitch& r) { return r.node_guid; });
  report->duplicate_keys += SortUnique(&db->lft_blocks.records, [](const SmdbLftBlock& r) {
    return std::make_tuple(r.node_guid, r.block);
  });
}

// The QoS policy tables, keyed as the walk numbered them (list order).
void BuildQos(const ssa_raw_buffers& raw, smdb::Smdb* db, BuildReport* report) {
  for (size_t i = 0; i < raw.qos_levels_len; ++i) {
    const ssa_raw_qos_level& l = raw.qos_levels[i];
    smdb::SmdbQosLevel r;
    r.seq = l.seq;
    r.flags = l.flags;
    r.sl = l.sl;
    r.mtu_limit = l.mtu_limit;
    r.rate_limit = l.rate_limit;
    r.pkt_life = l.pkt_life;
    CopyText(&r.name, l.name, sizeof(l.name));
    db->qos_levels.records.push_back(r);
  }
  for (size_t i = 0; i < raw.qos_groups_len; ++i) {
    const ssa_raw_qos_group& g = raw.qos_groups[i];
    smdb::SmdbQosGroup r;
    r.seq = g.seq;
    r.node_types = g.node_types;
    CopyText(&r.name, g.name, sizeof(g.name));
    db->qos_groups.records.push_back(r);
  }
  for (size_t i = 0; i < raw.qos_group_ports_len; ++i)
    db->qos_group_ports.records.push_back(
        smdb::SmdbQosGroupPort{raw.qos_group_ports[i].group, raw.qos_group_ports[i].port_guid});
  report->duplicate_keys += SortUnique(
      &db->qos_group_ports.records,
      [](const smdb::SmdbQosGroupPort& r) { return std::make_tuple(r.group, r.port_guid); });
  for (size_t i = 0; i < raw.qos_rules_len; ++i)
    db->qos_rules.records.push_back(
        smdb::SmdbQosRule{raw.qos_rules[i].seq, raw.qos_rules[i].level});
  for (size_t i = 0; i < raw.qos_rule_groups_len; ++i) {
    const ssa_raw_qos_rule_group& g = raw.qos_rule_groups[i];
    db->qos_rule_groups.records.push_back(smdb::SmdbQosRuleGroup{g.rule, g.side, g.pos, g.group});
  }
  report->duplicate_keys += SortUnique(
      &db->qos_rule_groups.records,
      [](const smdb::SmdbQosRuleGroup& r) { return std::make_tuple(r.rule, r.side, r.pos); });
  for (size_t i = 0; i < raw.qos_ranges_len; ++i) {
    const ssa_raw_qos_range& g = raw.qos_ranges[i];
    db->qos_ranges.records.push_back(
        smdb::SmdbQosRange{g.owner_kind, g.owner, g.kind, g.pos, g.lo, g.hi});
  }
  report->duplicate_keys += SortUnique(&db->qos_ranges.records, [](const smdb::SmdbQosRange& r) {
    return std::make_tuple(r.owner_kind, r.owner, r.kind, r.pos);
  });
}

}  // namespace

void RawSnapshot::Grow() {
#define SSA_RAW_GROW(type, name) GrowTo(&name##_, b_.name##_len);
  SSA_RAW_ARRAYS(SSA_RAW_GROW)
#undef SSA_RAW_GROW
  Expose();
}

size_t RawSnapshot::CapacityBytes() const {
  size_t bytes = 0;
#define SSA_RAW_BYTES(type, name) bytes += name##_.size() * sizeof(type);
  SSA_RAW_ARRAYS(SSA_RAW_BYTES)
#undef SSA_RAW_BYTES
  return bytes;
}

void BuildSmdb(const ssa_raw_buffers& raw, smdb::Smdb* out, BuildReport* report) {
  smdb::Smdb db;
  *report = BuildReport{};
  BuildSubnet(raw.subnet, &db.subnet.records[0]);

  auto& nodes = db.nodes.records;
  nodes.reserve(raw.nodes_len);
  for (size_t i = 0; i < raw.nodes_len; ++i) {
    const ssa_raw_node& n = raw.nodes[i];
    SmdbNode r;
    r.node_guid = n.node_guid;
    r.system_image_guid = n.system_image_guid;
    r.node_type = n.node_type;
    r.num_ports = n.num_ports;
    r.partition_cap = n.partition_cap;
    r.vendor_id = n.vendor_id;
    r.device_id = n.device_id;
    r.revision = n.revision;
    CopyText(&r.description, n.description, sizeof(n.description));
    nodes.push_back(r);
  }
  report->duplicate_keys += SortUnique(&nodes, [](const SmdbNode& r) { return r.node_guid; });
  std::vector<uint64_t> node_guids;
  node_guids.reserve(nodes.size());
  for (const SmdbNode& n : nodes) node_guids.push_back(n.node_guid);

  auto& guids = db.guid_lids.records;
  guids.reserve(raw.guids_len);
  for (size_t i = 0; i < raw.guids_len; ++i) {
    const ssa_raw_guid& g = raw.guids[i];
    guids.push_back(SmdbGuidLid{g.guid, g.port_guid, g.base_lid, g.lmc,
                                static_cast<uint8_t>(g.is_alias ? smdb::kGuidAlias : 0)});
  }
  // Port GUIDs were listed before aliases, so a clash keeps the port's own.
  report->duplicate_keys += SortUnique(&guids, [](const SmdbGuidLid& r) { return r.guid; });

  BuildPorts(raw, node_guids, &db, report);
  BuildSwitches(raw, &db, report);

  for (size_t i = 0; i < raw.partitions_len; ++i) {
    const ssa_raw_partition& p = raw.partitions[i];
    SmdbPartition r;
    r.pkey = p.pkey;
    r.sl = p.sl;
    r.flags = p.pkey == 0x7fff ? smdb::kPartitionDefault : 0;
    CopyText(&r.name, p.name, sizeof(p.name));
    db.partitions.records.push_back(r);
  }
  report->duplicate_keys +=
      SortUnique(&db.partitions.records, [](const SmdbPartition& r) { return r.pkey; });

  // OpenSM's order is the meaning here (first match wins): seq keeps it.
  for (size_t i = 0; i < raw.prefix_routes_len; ++i)
    db.prefix_routes.records.push_back(SmdbPrefixRoute{static_cast<uint32_t>(i),
                                                       raw.prefix_routes[i].prefix,
                                                       raw.prefix_routes[i].router_port_guid});
  BuildQos(raw, &db, report);
  for (size_t i = 0; i < raw.sl2vl_drops_len; ++i) {
    const ssa_raw_sl2vl_drop& d = raw.sl2vl_drops[i];
    db.sl2vl_drops.records.push_back(
        smdb::SmdbSl2VlDrop{d.node_guid, d.out_port, d.in_port, d.mask});
  }
  report->duplicate_keys += SortUnique(&db.sl2vl_drops.records, [](const smdb::SmdbSl2VlDrop& r) {
    return std::make_tuple(r.node_guid, r.out_port, r.in_port);
  });
  if (raw.subnet.route_sl_state == SSA_ROUTE_SL_COMPUTED) {
    auto& sls = db.route_sls.records;
    sls.reserve(raw.route_sls_len);
    for (size_t i = 0; i < raw.route_sls_len; ++i) {
      const ssa_raw_route_sl& r = raw.route_sls[i];
      sls.push_back(smdb::SmdbRouteSl{r.slid, r.dlid, r.hint, r.sl, r.span});
    }
    report->duplicate_keys += SortUnique(
        &sls, [](const smdb::SmdbRouteSl& r) { return std::make_tuple(r.slid, r.dlid, r.hint); });
    for (uint8_t k = 0; k < 16; ++k)
      if (raw.subnet.route_sl_hints & (1u << k))
        db.route_sl_hints.records.push_back(
            smdb::SmdbRouteSlHint{k, raw.subnet.route_sl_hint_spans[k]});
  }
  *out = std::move(db);
}

}  // namespace opensm_plugin
}  // namespace ssa
