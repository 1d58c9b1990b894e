// route_diff.cc: see route_diff.h.
#include "common/smdb/route_diff.h"

#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {
namespace {

constexpr size_t kLidSpace = 0xC000;  // unicast LIDs
using PortKey = std::pair<uint64_t, uint8_t>;

// Calls changed(record) for every record of `a` or `b` whose key is in
// only one of them or whose bytes differ (the tables are sorted by key).
template <class R, class F>
void ForEachChanged(const DbTable<R>& a, const DbTable<R>& b, F&& changed) {
  std::unordered_map<std::string, std::pair<std::string, const R*>> in_a;
  uint8_t buf[WireSize<R>()];
  auto bytes = [&buf](const R& r) {
    EncodeRecord(r, buf);
    return std::string(reinterpret_cast<const char*>(buf), sizeof(buf));
  };
  for (const R& r : a.records) {
    std::string enc = bytes(r);
    in_a.emplace(enc.substr(0, KeySize<R>()), std::make_pair(enc, &r));
  }
  for (const R& r : b.records) {
    std::string enc = bytes(r);
    auto it = in_a.find(enc.substr(0, KeySize<R>()));
    if (it == in_a.end()) {
      changed(r);
      continue;
    }
    if (it->second.first != enc) {
      changed(*it->second.second);
      changed(r);
    }
    in_a.erase(it);
  }
  for (const auto& kv : in_a) changed(*kv.second.second);
}

class Differ {
 public:
  Differ(const Smdb& od, const SmdbIndex& oi, const Smdb& nd, const SmdbIndex& ni)
      : od_(od), oi_(oi), nd_(nd), ni_(ni) {}

  RouteDiff Run() {
    RouteDiff d;
    // What the rules cannot localize: recompute everything.
    if (od_.subnet.epoch != nd_.subnet.epoch || od_.partitions.epoch != nd_.partitions.epoch ||
        od_.pkey_blocks.epoch != nd_.pkey_blocks.epoch ||
        od_.prefix_routes.epoch != nd_.prefix_routes.epoch) {
      d.all = true;
      return d;
    }
    dirty_.assign(kLidSpace, false);
    CollectChangedPorts();
    MarkOwnedLids();
    MarkLftChanges();
    d.dirty = std::move(dirty_);
    for (bool b : d.dirty) d.dirty_count += b;
    return d;
  }

 private:
  void Port(const PortKey& k) { changed_.insert(k); }

  void CollectChangedPorts() {
    ForEachChanged(od_.ports, nd_.ports, [this](const SmdbPort& p) {
      Port({p.node_guid, p.port_num});
    });
    ForEachChanged(od_.links, nd_.links, [this](const SmdbLink& l) {
      Port({l.node_guid, l.port_num});
      Port({l.peer_node_guid, l.peer_port_num});
    });
    // A node record (type, Tavor quirk) or a switch record touches all its ports.
    std::set<uint64_t> nodes;
    ForEachChanged(od_.nodes, nd_.nodes,
                   [&nodes](const SmdbNode& n) { nodes.insert(n.node_guid); });
    ForEachChanged(od_.switches, nd_.switches,
                   [&nodes](const SmdbSwitch& s) { nodes.insert(s.node_guid); });
    // Switch port 0 carries the extended-speed capability the SA rates all
    // of the switch's ports with.
    for (const PortKey& k : std::set<PortKey>(changed_))
      if (k.second == 0) nodes.insert(k.first);
    for (const SmdbIndex* x : {&oi_, &ni_})
      for (const auto& n : x->nodes())
        if (nodes.count(n.guid))
          for (uint32_t i = 0; i < n.slot_count; ++i) Port({n.guid, static_cast<uint8_t>(i)});
    // A port's link peer reads it as its ingress: the peer's egress entries
    // must be checked too. Peers in either version.
    for (const PortKey& k : std::set<PortKey>(changed_)) {
      for (const SmdbIndex* x : {&oi_, &ni_}) {
        uint32_t p = Find(*x, k);
        if (p == SmdbIndex::kNone || x->port(p).peer == SmdbIndex::kNone) continue;
        const SmdbIndex::Port& peer = x->port(x->port(p).peer);
        changed_.insert({x->node_of(peer).guid, peer.port_num});
      }
    }
  }

  uint32_t Find(const SmdbIndex& x, const PortKey& k) {
    auto& guids = &x == &oi_ ? old_nodes_ : new_nodes_;
    if (guids.empty())
      for (uint32_t i = 0; i < x.nodes().size(); ++i) guids[x.nodes()[i].guid] = i;
    auto it = guids.find(k.first);
    return it == guids.end() ? SmdbIndex::kNone : x.PortOf(it->second, k.second);
  }

  void MarkRange(uint16_t base, uint8_t lmc) {
    for (uint32_t l = base; l < uint32_t{base} + (1u << lmc) && l < kLidSpace; ++l)
      dirty_[l] = true;
  }

  // LIDs owned by changed endpoint ports, and LID assignments that changed.
  void MarkOwnedLids() {
    for (const PortKey& k : changed_)
      for (const SmdbIndex* x : {&oi_, &ni_}) {
        uint32_t p = Find(*x, k);
        if (p != SmdbIndex::kNone && x->port(p).base_lid)
          MarkRange(x->port(p).base_lid, x->port(p).lmc);
      }
    ForEachChanged(od_.guid_lids, nd_.guid_lids,
                   [this](const SmdbGuidLid& g) { MarkRange(g.base_lid, g.lmc); });
  }

  // Every switch in either version: an LFT entry that differs, or that
  // points at a changed port in either version.
  void MarkLftChanges() {
    std::set<uint64_t> switches;
    for (const SmdbIndex* x : {&oi_, &ni_})
      for (const auto& n : x->nodes())
        if (n.type == kNodeSwitch) switches.insert(n.guid);
    for (uint64_t guid : switches) {
      uint32_t on = NodeIndex(oi_, old_nodes_, guid), nn = NodeIndex(ni_, new_nodes_, guid);
      uint32_t top = 0;
      if (on != SmdbIndex::kNone) top = std::max(top, oi_.nodes()[on].lft_size);
      if (nn != SmdbIndex::kNone) top = std::max(top, ni_.nodes()[nn].lft_size);
      top = std::min<uint32_t>(top, kLidSpace);
      std::vector<bool> hot(256, false);  // changed ports of this switch
      for (int p = 0; p < 256; ++p) hot[p] = changed_.count({guid, static_cast<uint8_t>(p)}) != 0;
      for (uint32_t lid = 1; lid < top; ++lid) {
        if (dirty_[lid]) continue;
        uint8_t a =
            on == SmdbIndex::kNone ? kLftNoPath : oi_.LftPort(on, static_cast<uint16_t>(lid));
        uint8_t b =
            nn == SmdbIndex::kNone ? kLftNoPath : ni_.LftPort(nn, static_cast<uint16_t>(lid));
        if (a != b || (a != kLftNoPath && hot[a]) || (b != kLftNoPath && hot[b]))
          dirty_[lid] = true;
      }
    }
  }

  uint32_t NodeIndex(const SmdbIndex& x, std::unordered_map<uint64_t, uint32_t>& guids,
                     uint64_t guid) {
    if (guids.empty())
      for (uint32_t i = 0; i < x.nodes().size(); ++i) guids[x.nodes()[i].guid] = i;
    auto it = guids.find(guid);
    return it == guids.end() ? SmdbIndex::kNone : it->second;
  }

  const Smdb& od_;
  const SmdbIndex& oi_;
  const Smdb& nd_;
  const SmdbIndex& ni_;
  std::set<PortKey> changed_;
  std::vector<bool> dirty_;
  std::unordered_map<uint64_t, uint32_t> old_nodes_, new_nodes_;
};

}  // namespace

RouteDiff DiffRoutes(const Smdb& old_db, const SmdbIndex& old_index, const Smdb& new_db,
                     const SmdbIndex& new_index) {
  return Differ(old_db, old_index, new_db, new_index).Run();
}

}  // namespace smdb
}  // namespace ssa
