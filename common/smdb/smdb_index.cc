// smdb_index.cc: SmdbIndex (smdb_index.h) and OpenSM's rate arithmetic.
#include "common/smdb/smdb_index.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ssa {
namespace smdb {
namespace {

// OpenSM vendor IDs whose device 23108 is a Tavor HCA (sa_path_rec_is_tavor_port).
bool IsTavor(const SmdbNode& n) {
  if (n.device_id != kDeviceIdTavor) return false;
  switch (n.vendor_id) {
    case 0x0002C9:  // Mellanox
    case 0x0005AD:  // Topspin
    case 0x00066A:  // SilverStorm
    case 0x0008F1:  // Voltaire
      return true;
    default: return false;
  }
}

std::string Guid(uint64_t g) {
  char buf[24];
  snprintf(buf, sizeof(buf), "0x%016" PRIx64, g);
  return buf;
}

Status Invalid(const std::string& what) { return Status::Error(EINVAL, "smdb index: " + what); }

}  // namespace

uint8_t ComputePortRate(uint8_t width, uint8_t speed, uint8_t ext, bool extended) {
  // Widths: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x; anything else as 1x.
  auto pick = [width](uint8_t x1, uint8_t x4, uint8_t x8, uint8_t x12, uint8_t x2) {
    switch (width) {
      case 2: return x4;
      case 4: return x8;
      case 8: return x12;
      case 16: return x2;
      default: return x1;
    }
  };
  if (extended) {
    switch (ext) {
      case 1: return pick(11, 12, 13, 14, 19);  // FDR: 14 56 112 168 28
      case 2: return pick(15, 16, 17, 18, 20);  // EDR: 25 100 200 300 50
      case 4: return pick(20, 17, 21, 22, 16);  // HDR: 50 200 400 600 100
      default: break;                           // none: fall back to LinkSpeedActive
    }
  }
  switch (speed) {
    case 1: return pick(2, 3, 6, 4, 5);   // SDR: 2.5 10 20 30 5
    case 2: return pick(5, 6, 7, 8, 3);   // DDR: 5 20 40 60 10
    case 4: return pick(3, 7, 9, 10, 6);  // QDR: 10 40 80 120 20
    default: return 2;
  }
}

Status SmdbIndex::Build(const Smdb& db, std::unique_ptr<SmdbIndex>* out, LftBuffers* lft_buffers,
                        const LftLineage* lineage, uint64_t serial) {
  std::unique_ptr<SmdbIndex> idx(new SmdbIndex());
  if (db.subnet.records.size() != 1) return Invalid("table 'subnet' must hold exactly one record");
  idx->subnet_ = db.subnet.records[0];
  for (int i = 0; i < 8; ++i)
    idx->prefix_bytes_[i] = static_cast<uint8_t>(idx->subnet_.subnet_prefix >> (56 - 8 * i));
  Status st = idx->BuildNodesAndPorts(db);
  if (st.ok()) st = idx->BuildLinks(db);
  if (st.ok()) st = idx->BuildLfts(db, lft_buffers, lineage, serial);
  if (st.ok()) st = idx->BuildLids(db);
  if (!st.ok()) return st;
  idx->BuildPkeys(db);
  st = QosPolicy::Build(db, &idx->qos_);
  if (!st.ok()) return st;
  for (const SmdbSl2VlDrop& d : db.sl2vl_drops.records) {
    uint32_t node = idx->NodeByGuid(d.node_guid);
    uint32_t port = node == kNone ? kNone : idx->PortOf(node, d.out_port);
    if (port != kNone && d.mask)
      idx->sl2vl_drops_.emplace_back(uint64_t{port} << 8 | d.in_port, d.mask);
  }
  std::sort(idx->sl2vl_drops_.begin(), idx->sl2vl_drops_.end());
  idx->prefix_routes_ = db.prefix_routes.records;
  std::sort(idx->prefix_routes_.begin(), idx->prefix_routes_.end(),
            [](const SmdbPrefixRoute& a, const SmdbPrefixRoute& b) { return a.seq < b.seq; });
  // Which routing the engine's SLs are of, whether they are here or in
  // route-SL slices (route_sl_table.h).
  idx->route_sl_generation_ = db.route_sl_hints.epoch;
  if (idx->subnet_.flags & kSubnetRouteSls) {
    st = RouteSlTable::Build(db, /*slice=*/false, &idx->route_sls_);
    if (!st.ok()) return st;
    idx->has_route_sls_ = true;
  }
  *out = std::move(idx);
  return Status::Ok();
}

uint32_t SmdbIndex::NodeByGuid(uint64_t guid) const {
  // nodes_ mirrors the Smdb's nodes table, which Parse() guarantees sorted;
  // hand-built databases may not be, so fall back to a scan.
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), guid,
                             [](const Node& n, uint64_t g) { return n.guid < g; });
  if (it != nodes_.end() && it->guid == guid) return static_cast<uint32_t>(it - nodes_.begin());
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].guid == guid) return static_cast<uint32_t>(i);
  return kNone;
}

Status SmdbIndex::BuildNodesAndPorts(const Smdb& db) {
  nodes_.reserve(db.nodes.records.size());
  for (size_t i = 0; i < db.nodes.records.size(); ++i) {
    const SmdbNode& r = db.nodes.records[i];
    Node n;
    n.guid = r.node_guid;
    n.type = r.node_type;
    n.tavor = IsTavor(r);
    n.slot_count = uint32_t{r.num_ports} + 1;
    n.record = static_cast<uint32_t>(i);
    nodes_.push_back(n);
  }
  // A port numbered beyond NumPorts still gets a slot: the SMDB is what the
  // SM saw, and the SA walks whatever port the LFT names.
  ports_.resize(db.ports.records.size());
  uint32_t node = kNone;  // ports come sorted by node (Parse): one lookup per node
  for (size_t i = 0; i < db.ports.records.size(); ++i) {
    const SmdbPort& r = db.ports.records[i];
    if (node == kNone || nodes_[node].guid != r.node_guid) node = NodeByGuid(r.node_guid);
    if (node == kNone)
      return Invalid("port " + std::to_string(r.port_num) + " of unknown node " +
                     Guid(r.node_guid));
    nodes_[node].slot_count = std::max<uint32_t>(nodes_[node].slot_count, uint32_t{r.port_num} + 1);
    Port& p = ports_[i];
    p.port_guid = r.port_guid;
    p.node = node;
    p.port_num = r.port_num;
    p.mtu_cap = r.mtu_cap;
    p.rate = r.rate;
    p.rate_own = r.rate;
    p.port_state = r.port_state;
    p.rate_caps =
        static_cast<uint8_t>(((r.capability_mask & kCapHasCapMask2) ? kRateCapMask2 : 0) |
                             ((r.capability_mask & kCapHasExtSpeeds) ? kRateCapExtSpeeds : 0) |
                             ((r.capability_mask2 & kCap2Width2x) ? kRateCap2x : 0) |
                             ((r.capability_mask2 & kCap2SpeedHdr) ? kRateCapHdr : 0));
  }
  uint32_t slots = 0;
  for (Node& n : nodes_) {
    n.port_slots = slots;
    slots += n.slot_count;
  }
  port_slots_.assign(slots, kNone);
  for (size_t i = 0; i < ports_.size(); ++i) {
    Port& p = ports_[i];
    uint32_t& slot = port_slots_[nodes_[p.node].port_slots + p.port_num];
    if (slot != kNone)
      return Invalid("port " + std::to_string(p.port_num) + " of node " +
                     Guid(nodes_[p.node].guid) + " listed twice");
    slot = static_cast<uint32_t>(i);
    if (p.port_guid != 0 && (nodes_[p.node].type != kNodeSwitch || p.port_num == 0))
      guid_to_port_.emplace_back(p.port_guid, static_cast<uint32_t>(i));
  }
  std::sort(guid_to_port_.begin(), guid_to_port_.end());
  // The rate the SA uses where it reads a switch port's own capability mask
  // (see Port::rate_own): differs from the SMDB's only if the port and
  // port 0 disagree on extended speeds.
  for (size_t i = 0; i < ports_.size(); ++i) {
    Port& p = ports_[i];
    const Node& n = nodes_[p.node];
    if (n.type != kNodeSwitch || p.port_num == 0) continue;
    uint32_t p0 = PortOf(p.node, 0);
    if (p0 == kNone) continue;
    const SmdbPort& r = db.ports.records[i];
    const SmdbPort& r0 = db.ports.records[p0];
    bool own = (r.capability_mask & kCapHasExtSpeeds) != 0;
    if (own != ((r0.capability_mask & kCapHasExtSpeeds) != 0))
      p.rate_own =
          ComputePortRate(r.link_width_active, r.link_speed_active, r.link_speed_ext_active, own);
  }
  return Status::Ok();
}

Status SmdbIndex::BuildLinks(const Smdb& db) {
  for (const SmdbLink& l : db.links.records) {
    uint32_t a_node = NodeByGuid(l.node_guid), b_node = NodeByGuid(l.peer_node_guid);
    uint32_t a = a_node == kNone ? kNone : PortOf(a_node, l.port_num);
    uint32_t b = b_node == kNone ? kNone : PortOf(b_node, l.peer_port_num);
    if (a == kNone || b == kNone)
      return Invalid("link " + Guid(l.node_guid) + "[" + std::to_string(l.port_num) + "] -> " +
                     Guid(l.peer_node_guid) + "[" + std::to_string(l.peer_port_num) +
                     "] names a port not in table 'ports'");
    ports_[a].peer = b;
  }
  return Status::Ok();
}

Status SmdbIndex::BuildLfts(const Smdb& db, LftBuffers* buffers, const LftLineage* lineage,
                            uint64_t serial) {
  // Size each switch's LFT: the blocks it has, cut at LinearFDBTop + 1
  // (osm_switch_get_port_by_lid answers no path above max_lid_ho).
  // The blocks come sorted by switch (Parse): one lookup per switch. One
  // pass over the records (2 million at the full subnet) for all of it.
  const std::vector<SmdbLftBlock>& records = db.lft_blocks.records;
  std::vector<uint32_t> block_node(records.size());
  std::vector<uint32_t> size(nodes_.size(), 0);
  uint64_t last_guid = 0;
  uint32_t last_node = kNone;
  bool sorted = true;  // in strict (switch, block) order: no block twice
  for (size_t i = 0; i < records.size(); ++i) {
    const SmdbLftBlock& b = records[i];
    if (i > 0) {
      const SmdbLftBlock& a = records[i - 1];
      sorted =
          sorted && (a.node_guid != b.node_guid ? a.node_guid < b.node_guid : a.block < b.block);
    }
    if (last_node == kNone || b.node_guid != last_guid) {
      last_guid = b.node_guid;
      last_node = NodeByGuid(b.node_guid);
    }
    if (last_node == kNone || nodes_[last_node].type != kNodeSwitch)
      return Invalid("LFT block " + std::to_string(b.block) + " of " + Guid(b.node_guid) +
                     ", which is not a switch");
    block_node[i] = last_node;
    size[last_node] = std::max<uint32_t>(size[last_node], (uint32_t{b.block} + 1) * kLftBlockSize);
  }
  for (const SmdbSwitch& s : db.switches.records) {
    uint32_t n = NodeByGuid(s.node_guid);
    if (n == kNone) return Invalid("switch " + Guid(s.node_guid) + " has no node record");
    size[n] = std::min<uint32_t>(size[n], uint32_t{s.lin_fdb_top} + 1);
  }
  uint32_t total = 0;
  std::vector<LftSpan> layout;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (size[n] == 0) continue;
    nodes_[n].lft = total;
    nodes_[n].lft_size = size[n];
    layout.push_back({nodes_[n].guid, total, size[n]});
    total += size[n];
  }
  std::unique_ptr<LftBytes> bytes = buffers ? buffers->Take() : std::make_unique<LftBytes>();
  // Catching a recycled buffer up. The buffer holds the LFT bytes of the
  // version its serial names, laid out as its layout says (stamped below
  // only once every byte is written). Those bytes are a function of the
  // layout and the lft_blocks records alone: kLftNoPath, then each
  // record's ports where its block lies below its switch's size. So with
  // the same layout, they differ from this version's only in the blocks
  // whose records differ, and the lineage names every such block or
  // answers false (lft_lineage.h): rewriting those gives exactly what a
  // whole build writes. The serial is unique in the process, so a buffer
  // of another lineage, of a version forgotten, or of the same epoch with
  // other content (a new core's) never matches. The table must be in
  // strict key order (it is after Parse) for RewriteLftBlocks' binary
  // search to find the one record of a block. Anything else: whole.
  std::vector<LftLineage::Block> changed;
  const bool catch_up = lineage && serial != 0 && sorted && bytes->serial != 0 &&
                        bytes->bytes.size() == total && bytes->layout == layout &&
                        lineage->ChangedBlocks(bytes->serial, serial, &changed);
  bytes->serial = 0;  // no identity while being written
  uint8_t* lft;
  if (catch_up) {
    lft = bytes->bytes.data();
    RewriteLftBlocks(db, changed, lft);
    lft_caught_up_ = true;
    lft_blocks_rewritten_ = changed.size();
  } else {
    bytes->bytes.assign(total, kLftNoPath);  // a recycled buffer keeps its storage
    lft = bytes->bytes.data();
    for (size_t i = 0; i < db.lft_blocks.records.size(); ++i) {
      const SmdbLftBlock& b = db.lft_blocks.records[i];
      const Node& n = nodes_[block_node[i]];
      uint32_t first = uint32_t{b.block} * kLftBlockSize;
      if (first < n.lft_size)
        std::memcpy(&lft[n.lft + first], b.ports.data(),
                    std::min<uint32_t>(kLftBlockSize, n.lft_size - first));
    }
  }
  bytes->layout = std::move(layout);
  bytes->serial = lineage ? serial : 0;
  lft_ = lft;
  lft_bytes_ = buffers ? buffers->Share(std::move(bytes))
                       : std::shared_ptr<const LftBytes>(std::move(bytes));
  return Status::Ok();
}

void SmdbIndex::RewriteLftBlocks(const Smdb& db, const std::vector<LftLineage::Block>& blocks,
                                 uint8_t* lft) const {
  const std::vector<SmdbLftBlock>& records = db.lft_blocks.records;
  for (const LftLineage::Block& b : blocks) {
    uint32_t node = NodeByGuid(b.first);
    // No LFT bytes for this switch here, hence none in the buffer either
    // (same layout): nothing to write.
    if (node == kNone || nodes_[node].lft_size == 0) continue;
    const Node& n = nodes_[node];
    uint32_t first = uint32_t{b.second} * kLftBlockSize;
    if (first >= n.lft_size) continue;  // above the top: not held
    uint32_t len = std::min<uint32_t>(kLftBlockSize, n.lft_size - first);
    auto it = std::lower_bound(
        records.begin(), records.end(), b, [](const SmdbLftBlock& r, const LftLineage::Block& k) {
          return r.node_guid != k.first ? r.node_guid < k.first : r.block < k.second;
        });
    if (it != records.end() && it->node_guid == b.first && it->block == b.second)
      std::memcpy(&lft[n.lft + first], it->ports.data(), len);
    else
      std::memset(&lft[n.lft + first], kLftNoPath, len);  // the block was removed
  }
}

Status SmdbIndex::BuildLids(const Smdb& db) {
  // LID owners as OpenSM's port_lid_tbl: the port GUIDs of guid_lids. A
  // hand-built database without that table falls back to the ports' own
  // base LIDs (CA and router ports, switch port 0).
  struct Owner {
    uint32_t port;
    uint16_t base;
    uint8_t lmc;
  };
  std::vector<Owner> owners;
  for (const SmdbGuidLid& g : db.guid_lids.records) {
    if (g.flags & kGuidAlias) continue;
    uint32_t p = PortByGuid(g.port_guid);
    if (p == kNone)
      return Invalid("guid_lids names port GUID " + Guid(g.port_guid) + ", which no port has");
    owners.push_back({p, g.base_lid, g.lmc});
  }
  if (owners.empty()) {
    for (size_t i = 0; i < ports_.size(); ++i) {
      const SmdbPort& r = db.ports.records[i];
      bool sw = nodes_[ports_[i].node].type == kNodeSwitch;
      if (r.base_lid != 0 && (!sw || r.port_num == 0))
        owners.push_back({static_cast<uint32_t>(i), r.base_lid, r.lmc});
    }
  }
  uint32_t top = 0;
  for (const Owner& o : owners)
    top = std::max<uint32_t>(top, uint32_t{o.base} + (1u << (o.lmc & 7)));
  if (top > 0x10000) return Invalid("a LID range ends beyond LID 0xffff");
  lid_to_port_.assign(top, kNone);
  for (const Owner& o : owners) {
    Port& p = ports_[o.port];
    p.base_lid = o.base;
    p.lmc = o.lmc & 7;
    for (uint32_t lid = o.base; lid < uint32_t{o.base} + (1u << p.lmc); ++lid) {
      if (lid == 0 || lid >= 0xC000)
        return Invalid("LID " + std::to_string(lid) + " is not a unicast LID");
      if (lid_to_port_[lid] != kNone)
        return Invalid("LID " + std::to_string(lid) + " is owned by two ports");
      lid_to_port_[lid] = o.port;
      assigned_lids_.push_back(static_cast<uint16_t>(lid));
    }
    endpoints_.push_back(o.port);
  }
  std::sort(assigned_lids_.begin(), assigned_lids_.end());
  lids_by_guid_ = assigned_lids_;
  std::stable_sort(lids_by_guid_.begin(), lids_by_guid_.end(), [this](uint16_t a, uint16_t b) {
    return ports_[lid_to_port_[a]].port_guid < ports_[lid_to_port_[b]].port_guid;
  });
  std::sort(endpoints_.begin(), endpoints_.end(),
            [this](uint32_t a, uint32_t b) { return ports_[a].base_lid < ports_[b].base_lid; });
  return Status::Ok();
}

uint32_t SmdbIndex::PortByGuid(uint64_t port_guid) const {
  auto it = std::lower_bound(guid_to_port_.begin(), guid_to_port_.end(),
                             std::make_pair(port_guid, uint32_t{0}));
  return it != guid_to_port_.end() && it->first == port_guid ? it->second : kNone;
}

void SmdbIndex::BuildPkeys(const Smdb& db) {
  bool allow_both = (subnet_.flags & kSubnetAllowBothPkeys) != 0;
  // Dense numbering of the table ids ports use; the blocks of one table id
  // are contiguous and in block order in a sorted table, but do not rely
  // on it: gather them per id first.
  std::vector<std::pair<uint32_t, uint32_t>> ids;  // (table id, dense index), sorted
  for (size_t i = 0; i < ports_.size(); ++i) {
    uint32_t id = db.ports.records[i].pkey_table_id;
    if (id == kNoPkeyTable) continue;
    auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(id, uint32_t{0}));
    if (it == ids.end() || it->first != id)
      it = ids.insert(it, {id, static_cast<uint32_t>(ids.size())});
    ports_[i].pkey_table = it->second;
  }
  std::vector<std::vector<const SmdbPkeyBlock*>> blocks(ids.size());
  for (const SmdbPkeyBlock& b : db.pkey_blocks.records) {
    auto it = std::lower_bound(ids.begin(), ids.end(), std::make_pair(b.table_id, uint32_t{0}));
    if (it != ids.end() && it->first == b.table_id) blocks[it->second].push_back(&b);
  }
  pkey_tables_.assign(ids.size(), {});
  for (size_t t = 0; t < ids.size(); ++t) {
    auto& bl = blocks[t];
    std::stable_sort(bl.begin(), bl.end(), [](const SmdbPkeyBlock* a, const SmdbPkeyBlock* b) {
      return a->block < b->block;
    });
    // osm_pkey_tbl_set: the keys map holds one entry per base P_Key (per
    // full P_Key with allow_both_pkeys). Without allow_both_pkeys it means
    // a later full entry to replace an earlier limited one, but inserts it
    // with cl_map_insert, which keeps the entry already under that key: the
    // first entry of a base stays, and so it does here.
    std::vector<PkeyEntry>& keys = pkey_tables_[t];
    for (const SmdbPkeyBlock* b : bl) {
      for (uint16_t pkey : b->pkeys) {
        if ((pkey & 0x7fff) == 0) continue;  // invalid entry
        uint16_t key = allow_both ? pkey : static_cast<uint16_t>(pkey & 0x7fff);
        // The map's key is the network-order 16-bit value widened to 64
        // bits: it sorts in the SM host's order.
        uint16_t order = SmMapOrder16(key, subnet_.flags);
        auto it = std::find_if(keys.begin(), keys.end(),
                               [order](const PkeyEntry& e) { return e.order == order; });
        if (it == keys.end()) keys.push_back({order, pkey});
      }
    }
    std::sort(keys.begin(), keys.end(),
              [](const PkeyEntry& a, const PkeyEntry& b) { return a.order < b.order; });
  }
  if (ids.size() <= kMaxPairTables) {
    size_t n = ids.size();
    pair_pkey_.assign(n * n, 0);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b)
        pair_pkey_[a * n + b] = FindCommonPkey(static_cast<uint32_t>(a), static_cast<uint32_t>(b));
  }
  partition_sl_.fill(kNoPartition);
  for (const SmdbPartition& p : db.partitions.records) partition_sl_[p.pkey & 0x7fff] = p.sl;
  // Whether each pair shares its own common P_Key (the query every PRDB
  // record makes, both ways): ShareThisPkey answers it from here.
  if (!pair_pkey_.empty()) {
    size_t n = pkey_tables_.size();
    pair_shares_common_.assign(n * n, 0);
    for (size_t a = 0; a < n; ++a)
      for (size_t b = 0; b < n; ++b) {
        uint16_t pkey = pair_pkey_[a * n + b];
        pair_shares_common_[a * n + b] =
            pkey != 0 &&
            SearchShareThisPkey(static_cast<uint32_t>(a), static_cast<uint32_t>(b), pkey);
      }
  }
}

uint16_t SmdbIndex::FindCommonPkey(uint32_t table_a, uint32_t table_b) const {
  // osm_physp_find_common_pkey: a merge walk over both sorted maps that
  // only advances the lower key, so it can miss a pair the other order
  // would find; reproduced as is. With allow_both_pkeys the maps hold both
  // members of a P_Key apart (their keys carry the membership bit), and two
  // more walks follow: a's full entries against b's limited ones, then a's
  // limited against b's full, each comparing bases (the key's order masked
  // with the order of 0x7fff, which drops the membership bit).
  const std::vector<PkeyEntry>& a = pkey_tables_[table_a];
  const std::vector<PkeyEntry>& b = pkey_tables_[table_b];
  // `full_a`: which of a's entries the walk takes (b's are the others);
  // kAny: every entry of both.
  enum Side { kLimitedA = 0, kFullA = 1, kAny = 2 };
  auto walk = [&a, &b](Side full_a, uint16_t base_mask) -> uint16_t {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      uint16_t p1 = a[i].value, p2 = b[j].value;
      if (full_a != kAny) {
        if (((p1 & 0x8000) != 0) != (full_a == kFullA)) {
          ++i;
          continue;
        }
        if (((p2 & 0x8000) != 0) == (full_a == kFullA)) {
          ++j;
          continue;
        }
      }
      bool full = (p1 & 0x8000) || (p2 & 0x8000);
      if (full && (p1 & 0x7fff) == (p2 & 0x7fff)) return p1;
      uint16_t o1 = a[i].order & base_mask, o2 = b[j].order & base_mask;
      if (o1 == o2) {
        ++i;
        ++j;
      } else if (o2 < o1) {
        ++j;
      } else {
        ++i;
      }
    }
    return 0;
  };
  uint16_t found = walk(kAny, 0xffff);
  if (found || !(subnet_.flags & kSubnetAllowBothPkeys)) return found;
  const uint16_t base_order = SmMapOrder16(0x7fff, subnet_.flags);
  found = walk(kFullA, base_order);
  return found ? found : walk(kLimitedA, base_order);
}

uint16_t SmdbIndex::MapEntry(uint32_t table, uint16_t key) const {
  // The map's order is the SM host's (BuildPkeys).
  uint16_t order = SmMapOrder16(key, subnet_.flags);
  const std::vector<PkeyEntry>& t = pkey_tables_[table];
  auto it = std::lower_bound(t.begin(), t.end(), order,
                             [](const PkeyEntry& e, uint16_t o) { return e.order < o; });
  return it != t.end() && it->order == order ? it->value : 0;
}

bool SmdbIndex::ShareThisPkey(uint32_t table_a, uint32_t table_b, uint16_t pkey) const {
  if (table_a == kNone || table_b == kNone) return false;
  if (!pair_shares_common_.empty()) {
    const size_t i = size_t{table_a} * pkey_tables_.size() + table_b;
    if (pkey != 0 && pkey == pair_pkey_[i]) return pair_shares_common_[i] != 0;
  }
  return SearchShareThisPkey(table_a, table_b, pkey);
}

bool SmdbIndex::SearchShareThisPkey(uint32_t table_a, uint32_t table_b, uint16_t pkey) const {
  uint16_t a, b;
  if (subnet_.flags & kSubnetAllowBothPkeys) {
    uint16_t full = pkey | 0x8000, limited = pkey & 0x7fff;
    a = MapEntry(table_a, full);
    if (!a) a = MapEntry(table_a, limited);
    b = MapEntry(table_b, full);
    if (!b) b = MapEntry(table_b, limited);
  } else {
    a = MapEntry(table_a, pkey & 0x7fff);
    b = MapEntry(table_b, pkey & 0x7fff);
  }
  return a && b && ((a | b) & 0x8000) && (a & 0x7fff) == (b & 0x7fff);
}

bool SmdbIndex::SharePkey(uint32_t port_a, uint32_t port_b) const {
  if (port_a == port_b) return true;
  uint32_t ta = ports_[port_a].pkey_table, tb = ports_[port_b].pkey_table;
  if (ta == kNone || tb == kNone || pkey_tables_[ta].empty() || pkey_tables_[tb].empty())
    return true;
  return CommonPkey(ta, tb) != 0;
}

}  // namespace smdb
}  // namespace ssa
