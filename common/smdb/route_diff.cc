// route_diff.cc: see route_diff.h.
#include "common/smdb/route_diff.h"

#include <bitset>
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
    owner_ = dirty_;
    MarkLftChanges();
    MapNodes();
    // LIDs that are route-dirty but not owner-dirty get their per-switch
    // reach; a switch's own LID whose own entry changed escalates (every
    // walk toward it reads that entry first, WalkEnd in the engine).
    d.route_slot.assign(kLidSpace, RouteDiff::kNone);
    for (uint32_t lid = 1; lid < kLidSpace; ++lid) {
      if (!dirty_[lid] || owner_[lid]) continue;
      uint32_t p = ni_.PortByLid(static_cast<uint16_t>(lid));
      if (p != SmdbIndex::kNone && ni_.node_of(ni_.port(p)).type == kNodeSwitch &&
          LocalChange(ni_.port(p).node, static_cast<uint16_t>(lid))) {
        owner_[lid] = true;
        continue;
      }
      d.route_slot[lid] = static_cast<uint32_t>(d.reaches_change.size());
      d.reaches_change.push_back(Reach(static_cast<uint16_t>(lid)));
    }
    d.first_switch.assign(kLidSpace, RouteDiff::kNone);
    for (uint16_t lid : ni_.assigned_lids()) d.first_switch[lid] = FirstSwitch(lid);
    d.dirty = std::move(dirty_);
    for (bool b : d.dirty) d.dirty_count += b;
    d.owner_dirty = std::move(owner_);
    for (bool b : d.owner_dirty) d.owner_dirty_count += b;
    d.route_dirty_count = d.reaches_change.size();
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

  // The new index's nodes: their old counterparts and changed ports.
  void MapNodes() {
    new_to_old_.assign(ni_.nodes().size(), SmdbIndex::kNone);
    hot_.assign(ni_.nodes().size(), std::bitset<256>());
    for (uint32_t i = 0; i < ni_.nodes().size(); ++i)
      new_to_old_[i] = NodeIndex(oi_, old_nodes_, ni_.nodes()[i].guid);
    for (const PortKey& k : changed_) {
      uint32_t n = NodeIndex(ni_, new_nodes_, k.first);
      if (n != SmdbIndex::kNone) hot_[n].set(k.second);
    }
  }

  // Switch `node` (new index) reads something changed for `lid`: its entry
  // differs from the old one, or points (old or new) at a changed port.
  bool LocalChange(uint32_t node, uint16_t lid) const {
    uint32_t on = new_to_old_[node];
    uint8_t a = on == SmdbIndex::kNone ? kLftNoPath : oi_.LftPort(on, lid);
    uint8_t b = ni_.LftPort(node, lid);
    return a != b || (a != kLftNoPath && hot_[node][a]) || (b != kLftNoPath && hot_[node][b]);
  }

  // The next switch a walk toward `lid` enters from switch `node` (new
  // index), or kNone where the walk ends (or fails) there.
  uint32_t NextSwitch(uint32_t node, uint16_t lid) const {
    uint8_t out = ni_.LftPort(node, lid);
    if (out == kLftNoPath) return SmdbIndex::kNone;
    uint32_t p = ni_.PortOf(node, out);
    if (p == SmdbIndex::kNone || ni_.port(p).peer == SmdbIndex::kNone) return SmdbIndex::kNone;
    const SmdbIndex::Port& in = ni_.port(ni_.port(p).peer);
    return ni_.node_of(in).type == kNodeSwitch ? in.node : SmdbIndex::kNone;
  }

  // By node: the walk from that switch toward `lid` meets a local change.
  // The LFTs make a functional graph (one next switch each): each chain is
  // followed once and its nodes take its outcome; a cycle without a change
  // is the same in both versions (and fails alike).
  std::vector<bool> Reach(uint16_t lid) {
    enum : uint8_t { kUnknown, kOnChain, kClean, kChanged };
    std::vector<uint8_t> state(ni_.nodes().size(), kUnknown);
    std::vector<uint32_t> chain;
    for (uint32_t start = 0; start < ni_.nodes().size(); ++start) {
      if (ni_.nodes()[start].type != kNodeSwitch || state[start] != kUnknown) continue;
      chain.clear();
      uint8_t outcome = kClean;
      for (uint32_t n = start; n != SmdbIndex::kNone;) {
        if (state[n] == kClean || state[n] == kChanged) {
          outcome = state[n];
          break;
        }
        if (state[n] == kOnChain) break;  // a cycle of unchanged entries
        if (LocalChange(n, lid)) {
          state[n] = kChanged;
          outcome = kChanged;
          break;
        }
        state[n] = kOnChain;
        chain.push_back(n);
        n = NextSwitch(n, lid);
      }
      for (uint32_t n : chain) state[n] = outcome;
    }
    std::vector<bool> reach(ni_.nodes().size(), false);
    for (size_t i = 0; i < state.size(); ++i) reach[i] = state[i] == kChanged;
    return reach;
  }

  // The switch (new index) a walk from `lid` reads the LFT of first: its
  // own for a switch's LID, else its port's link peer's.
  uint32_t FirstSwitch(uint16_t lid) const {
    uint32_t p = ni_.PortByLid(lid);
    if (p == SmdbIndex::kNone) return RouteDiff::kNone;
    const SmdbIndex::Port& port = ni_.port(p);
    if (ni_.node_of(port).type == kNodeSwitch) return port.node;
    if (port.peer == SmdbIndex::kNone) return RouteDiff::kNone;
    const SmdbIndex::Port& peer = ni_.port(port.peer);
    return ni_.node_of(peer).type == kNodeSwitch ? peer.node : RouteDiff::kNone;
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
  std::vector<bool> dirty_, owner_;
  std::unordered_map<uint64_t, uint32_t> old_nodes_, new_nodes_;
  std::vector<uint32_t> new_to_old_;       // by new node
  std::vector<std::bitset<256>> hot_;      // by new node: its changed ports
};

}  // namespace

RouteDiff DiffRoutes(const Smdb& old_db, const SmdbIndex& old_index, const Smdb& new_db,
                     const SmdbIndex& new_index) {
  return Differ(old_db, old_index, new_db, new_index).Run();
}

}  // namespace smdb
}  // namespace ssa
