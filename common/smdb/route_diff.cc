// route_diff.cc: see route_diff.h.
#include "common/smdb/route_diff.h"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <set>
#include <string>
#include <utility>

#include "common/base/big_endian.h"
#include "common/smdb/prefix_rows.h"
#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_delta.h"

namespace ssa {
namespace smdb {
namespace {

constexpr size_t kLidSpace = 0xC000;  // unicast LIDs
using PortKey = std::pair<uint64_t, uint8_t>;

// Calls changed(record) for every record of `a` or `b` whose key is in
// only one of them or whose bytes differ, in one merge walk over the two
// tables (sorted by key, as Parse and SortRecords leave them). Returns
// false, having called nothing more, if either table is not in strict key
// order (a hand-built database): the caller then treats everything as
// changed.
// Records are compared in memory (CompareKeys, RecordsEqual), in the
// order of their encodings: at the full subnet the LFT tables alone are 2
// x 171 MB, which encoding every record to compare it doubled.
template <class R, class F>
bool ForEachChanged(const DbTable<R>& a, const DbTable<R>& b, F&& changed) {
  size_t i = 0, j = 0;
  const size_t na = a.records.size(), nb = b.records.size();
  // Steps one side to its next record; false when the keys are not
  // strictly increasing (the caller then treats everything as changed).
  auto step = [](const DbTable<R>& t, size_t* k) {
    ++*k;
    return *k >= t.records.size() || CompareKeys(t.records[*k - 1], t.records[*k]) < 0;
  };
  auto next_a = [&] { return step(a, &i); };
  auto next_b = [&] { return step(b, &j); };
  while (i < na || j < nb) {
    int c = i >= na ? 1 : j >= nb ? -1 : CompareKeys(a.records[i], b.records[j]);
    if (c < 0) {
      changed(a.records[i]);
      if (!next_a()) return false;
    } else if (c > 0) {
      changed(b.records[j]);
      if (!next_b()) return false;
    } else {
      if (!RecordsEqual(a.records[i], b.records[j])) {
        changed(a.records[i]);
        changed(b.records[j]);
      }
      if (!next_a() || !next_b()) return false;
    }
  }
  return true;
}

// Node index by GUID for one SmdbIndex (its nodes mirror the Smdb's nodes
// table: sorted after Parse; sorted here otherwise).
class NodeMap {
 public:
  explicit NodeMap(const SmdbIndex& x) {
    by_guid_.reserve(x.nodes().size());
    for (uint32_t i = 0; i < x.nodes().size(); ++i) by_guid_.emplace_back(x.nodes()[i].guid, i);
    if (!std::is_sorted(by_guid_.begin(), by_guid_.end()))
      std::sort(by_guid_.begin(), by_guid_.end());
  }
  uint32_t Find(uint64_t guid) const {
    auto it = std::lower_bound(by_guid_.begin(), by_guid_.end(), std::make_pair(guid, uint32_t{0}));
    return it != by_guid_.end() && it->first == guid ? it->second : SmdbIndex::kNone;
  }

 private:
  std::vector<std::pair<uint64_t, uint32_t>> by_guid_;
};

class Differ {
 public:
  Differ(const Smdb& od, const SmdbIndex& oi, const Smdb& nd, const SmdbIndex& ni,
         const std::string* delta)
      : od_(od), oi_(oi), nd_(nd), ni_(ni), delta_(delta), old_nodes_(oi), new_nodes_(ni) {}

  // A QoS policy change may change any path's SL, MTU, rate or P_Key, and
  // the engine's path SLs any path's SL.
  bool QosChanged() const {
    return od_.qos_levels.epoch != nd_.qos_levels.epoch ||
           od_.qos_groups.epoch != nd_.qos_groups.epoch ||
           od_.qos_group_ports.epoch != nd_.qos_group_ports.epoch ||
           od_.qos_rules.epoch != nd_.qos_rules.epoch ||
           od_.qos_rule_groups.epoch != nd_.qos_rule_groups.epoch ||
           od_.qos_ranges.epoch != nd_.qos_ranges.epoch ||
           od_.route_sls.epoch != nd_.route_sls.epoch ||
           od_.route_sl_hints.epoch != nd_.route_sl_hints.epoch ||
           od_.sl2vl_drops.epoch != nd_.sl2vl_drops.epoch;
  }

  // The phases, each below: what cannot be localized; the changed ports
  // and the LIDs they own (owner-dirty); the LFT entries that changed
  // (route-dirty, and the local changes); each route-dirty LID's reach;
  // the first switches and the lists PairsFrom reads.
  RouteDiff Run() {
    if (Unlocalized()) return Everything();
    dirty_.assign(kLidSpace, false);
    // Unsorted tables: no merge walk, no localizing.
    if (!CollectChangedPorts() || !MarkOwnedLids()) return Everything();
    owner_ = dirty_;
    if (!MarkLftChanges()) return Everything();
    RouteDiff d;
    d.route_slot.assign(kLidSpace, RouteDiff::kNone);
    BuildReverseLinks();
    FindReaches(&d);
    AddUnreachedLids(&d);
    IndexFirstSwitches(&d);
    ListDirtyLids(&d);
    return d;
  }

 private:
  static RouteDiff Everything() {
    RouteDiff d;
    d.all = true;
    return d;
  }

  // A change the rules cannot localize: every path is recomputed.
  bool Unlocalized() const {
    return od_.subnet.epoch != nd_.subnet.epoch || od_.partitions.epoch != nd_.partitions.epoch ||
           od_.pkey_blocks.epoch != nd_.pkey_blocks.epoch ||
           od_.prefix_routes.epoch != nd_.prefix_routes.epoch || QosChanged() ||
           RouterPortsDiffer(od_, nd_);  // the prefix rows' choice (prefix_rows.h)
  }

  // LIDs that are route-dirty but not owner-dirty get their per-switch
  // reach; a switch's own LID whose own entry changed escalates (every
  // walk toward it reads that entry first, WalkEndPort).
  void FindReaches(RouteDiff* d) {
    for (size_t i = 0; i < local_.size();) {
      uint16_t lid = local_[i].first;
      size_t j = i;
      while (j < local_.size() && local_[j].first == lid) ++j;
      if (!owner_[lid]) {
        uint32_t p = ni_.PortByLid(lid);
        bool escalate = false;
        if (p != SmdbIndex::kNone && ni_.node_of(ni_.port(p)).type == kNodeSwitch)
          for (size_t k = i; k < j; ++k) escalate |= local_[k].second == ni_.port(p).node;
        if (escalate) {
          owner_[lid] = true;
        } else {
          d->route_slot[lid] = static_cast<uint32_t>(d->reaches_change.size());
          d->reaches_change.emplace_back();
          d->reach_nodes.emplace_back();
          Reach(lid, i, j, &d->reaches_change.back(), &d->reach_nodes.back());
        }
      }
      i = j;
    }
  }

  // A route-dirty LID with no switch whose entry changed (only a switch
  // of the old version read it): no walk in the new version reaches a
  // change.
  void AddUnreachedLids(RouteDiff* d) {
    for (uint32_t lid = 1; lid < kLidSpace; ++lid) {
      if (!dirty_[lid] || owner_[lid] || d->route_slot[lid] != RouteDiff::kNone) continue;
      d->route_slot[lid] = static_cast<uint32_t>(d->reaches_change.size());
      d->reaches_change.emplace_back(ni_.nodes().size(), false);
      d->reach_nodes.emplace_back();
    }
  }

  // Each assigned LID's first switch, and the LIDs grouped by it.
  void IndexFirstSwitches(RouteDiff* d) const {
    d->first_switch.assign(kLidSpace, RouteDiff::kNone);
    d->switch_start.assign(ni_.nodes().size() + 1, 0);
    for (uint16_t lid : ni_.assigned_lids()) {
      uint32_t sw = FirstSwitch(lid);
      d->first_switch[lid] = sw;
      if (sw == RouteDiff::kNone)
        d->no_switch_lids.push_back(lid);
      else
        ++d->switch_start[sw + 1];
    }
    for (size_t n = 0; n < ni_.nodes().size(); ++n) d->switch_start[n + 1] += d->switch_start[n];
    d->lids_by_switch.resize(d->switch_start.back());
    std::vector<uint32_t> at(d->switch_start.begin(), d->switch_start.end() - 1);
    for (uint16_t lid : ni_.assigned_lids())
      if (d->first_switch[lid] != RouteDiff::kNone)
        d->lids_by_switch[at[d->first_switch[lid]]++] = lid;
  }

  // The dirty LIDs as lists and counts; the diff takes the bitmaps over.
  void ListDirtyLids(RouteDiff* d) {
    for (uint16_t lid : oi_.assigned_lids()) {
      uint32_t np = ni_.PortByLid(lid);
      if (np == SmdbIndex::kNone ||
          ni_.port(np).port_guid != oi_.port(oi_.PortByLid(lid)).port_guid) {
        d->lids_left = true;
        break;
      }
    }
    for (uint16_t lid : ni_.assigned_lids()) {
      if (owner_[lid])
        d->owner_lids.push_back(lid);
      else if (d->route_slot[lid] != RouteDiff::kNone)
        d->route_lids.push_back(lid);
    }
    d->dirty = std::move(dirty_);
    for (bool b : d->dirty) d->dirty_count += b;
    d->owner_dirty = std::move(owner_);
    for (bool b : d->owner_dirty) d->owner_dirty_count += b;
    d->route_dirty_count = d->reaches_change.size();
  }

  void Port(const PortKey& k) { changed_.insert(k); }

  bool CollectChangedPorts() {
    bool ok = ForEachChanged(od_.ports, nd_.ports, [this](const SmdbPort& p) {
      Port({p.node_guid, p.port_num});
    });
    ok = ok && ForEachChanged(od_.links, nd_.links, [this](const SmdbLink& l) {
           Port({l.node_guid, l.port_num});
           Port({l.peer_node_guid, l.peer_port_num});
         });
    // A node record (type, Tavor quirk) or a switch record touches all its ports.
    std::set<uint64_t> nodes;
    ok = ok && ForEachChanged(od_.nodes, nd_.nodes,
                              [&nodes](const SmdbNode& n) { nodes.insert(n.node_guid); });
    ok = ok && ForEachChanged(od_.switches, nd_.switches,
                              [&nodes](const SmdbSwitch& s) { nodes.insert(s.node_guid); });
    if (!ok) return false;
    // Switch port 0 carries the extended-speed capability the SA rates all
    // of the switch's ports with.
    for (const PortKey& k : changed_)
      if (k.second == 0) nodes.insert(k.first);
    for (uint64_t guid : nodes)
      for (const SmdbIndex* x : {&oi_, &ni_}) {
        uint32_t n = (x == &oi_ ? old_nodes_ : new_nodes_).Find(guid);
        if (n == SmdbIndex::kNone) continue;
        for (uint32_t i = 0; i < x->nodes()[n].slot_count; ++i)
          Port({guid, static_cast<uint8_t>(i)});
      }
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
    return true;
  }

  uint32_t Find(const SmdbIndex& x, const PortKey& k) const {
    uint32_t n = (&x == &oi_ ? old_nodes_ : new_nodes_).Find(k.first);
    return n == SmdbIndex::kNone ? SmdbIndex::kNone : x.PortOf(n, k.second);
  }

  void MarkRange(uint16_t base, uint8_t lmc) {
    for (uint32_t l = base; l < uint32_t{base} + (1u << lmc) && l < kLidSpace; ++l)
      dirty_[l] = true;
  }

  // LIDs owned by changed endpoint ports, and LID assignments that changed.
  bool MarkOwnedLids() {
    for (const PortKey& k : changed_)
      for (const SmdbIndex* x : {&oi_, &ni_}) {
        uint32_t p = Find(*x, k);
        if (p != SmdbIndex::kNone && x->port(p).base_lid)
          MarkRange(x->port(p).base_lid, x->port(p).lmc);
      }
    return ForEachChanged(od_.guid_lids, nd_.guid_lids,
                          [this](const SmdbGuidLid& g) { MarkRange(g.base_lid, g.lmc); });
  }

  // One switch's entry for `lid`: a (old, kNone if the switch is new) and
  // b (new, kNone if gone) are its node indexes. Marks the LID dirty when
  // the entry differs or points at a changed port, and notes the local
  // change for the reach when the switch is in the new version.
  void CheckEntry(uint32_t on, uint32_t nn, const std::bitset<256>* hot, uint16_t lid) {
    uint8_t a = on == SmdbIndex::kNone ? kLftNoPath : oi_.LftPort(on, lid);
    uint8_t b = nn == SmdbIndex::kNone ? kLftNoPath : ni_.LftPort(nn, lid);
    if (a != b || (hot && ((a != kLftNoPath && (*hot)[a]) || (b != kLftNoPath && (*hot)[b])))) {
      dirty_[lid] = true;
      if (nn != SmdbIndex::kNone) local_.emplace_back(lid, nn);
    }
  }

  // Every switch in either version: an LFT entry that differs, or that
  // points at a changed port in either version. A switch with a changed
  // port (or present in one version only) has its whole LFT compared; the
  // others only the entries of the LFT blocks that differ.
  bool MarkLftChanges() {
    const std::set<uint64_t> whole = SwitchesComparedWhole();
    for (uint64_t guid : whole) CompareWholeLft(guid);
    if (!CompareChangedBlocks(whole)) return false;
    std::sort(local_.begin(), local_.end());
    local_.erase(std::unique(local_.begin(), local_.end()), local_.end());
    return true;
  }

  // The switches with a changed port, or in one version only.
  std::set<uint64_t> SwitchesComparedWhole() const {
    std::set<uint64_t> whole;
    for (const PortKey& k : changed_) whole.insert(k.first);
    for (const SmdbIndex* x : {&oi_, &ni_}) {
      const NodeMap& other = x == &oi_ ? new_nodes_ : old_nodes_;
      for (const auto& n : x->nodes())
        if (n.type == kNodeSwitch && other.Find(n.guid) == SmdbIndex::kNone) whole.insert(n.guid);
    }
    return whole;
  }

  // Every entry of one switch's LFT (either version's, the longer).
  void CompareWholeLft(uint64_t guid) {
    uint32_t on = old_nodes_.Find(guid), nn = new_nodes_.Find(guid);
    bool sw_old = on != SmdbIndex::kNone && oi_.nodes()[on].type == kNodeSwitch;
    bool sw_new = nn != SmdbIndex::kNone && ni_.nodes()[nn].type == kNodeSwitch;
    if (!sw_old && !sw_new) return;
    uint32_t top = 0;
    if (on != SmdbIndex::kNone) top = std::max(top, oi_.nodes()[on].lft_size);
    if (nn != SmdbIndex::kNone) top = std::max(top, ni_.nodes()[nn].lft_size);
    top = std::min<uint32_t>(top, kLidSpace);
    std::bitset<256> hot;  // changed ports of this switch
    for (auto it = changed_.lower_bound({guid, 0}); it != changed_.end() && it->first == guid; ++it)
      hot.set(it->second);
    for (uint32_t lid = 1; lid < top; ++lid) CheckEntry(on, nn, &hot, static_cast<uint16_t>(lid));
  }

  // The other switches: same node in both versions, no changed port, the
  // same switch record (else its ports would be changed): their entries
  // differ only inside LFT blocks that differ.
  bool CompareChangedBlocks(const std::set<uint64_t>& whole) {
    std::set<std::pair<uint64_t, uint16_t>> blocks;
    if (!BlocksTheDeltaNames(whole, &blocks)) {
      bool ok = ForEachChanged(od_.lft_blocks, nd_.lft_blocks, [&](const SmdbLftBlock& b) {
        if (!whole.count(b.node_guid)) blocks.insert({b.node_guid, b.block});
      });
      if (!ok) return false;
    }
    for (const auto& b : blocks) {
      uint32_t on = old_nodes_.Find(b.first), nn = new_nodes_.Find(b.first);
      uint32_t first = uint32_t{b.second} * kLftBlockSize;
      for (uint32_t k = 0; k < kLftBlockSize && first + k < kLidSpace; ++k)
        if (first + k != 0) CheckEntry(on, nn, nullptr, static_cast<uint16_t>(first + k));
    }
    return true;
  }

  // The LFT blocks the delta from the old version to the new one removes
  // or puts: every block that differs, without reading the unchanged ones
  // of both versions. False (the caller merge-walks both tables) without a
  // delta, or for one that does not read or is not old -> new.
  bool BlocksTheDeltaNames(const std::set<uint64_t>& whole,
                           std::set<std::pair<uint64_t, uint16_t>>* blocks) const {
    if (!delta_) return false;
    DeltaTableKeys k;
    std::vector<std::pair<uint64_t, uint16_t>> named;
    if (!ReadDeltaLftBlocks(*delta_, &k, &named).ok() || k.base_epoch != od_.global_epoch ||
        k.new_epoch != nd_.global_epoch)
      return false;
    for (const auto& b : named)
      if (!whole.count(b.first)) blocks->insert(b);
    return true;
  }

  // rev_[n]: the switch ports whose link leads into switch n (new index).
  void BuildReverseLinks() {
    rev_start_.assign(ni_.nodes().size() + 1, 0);
    auto into = [this](uint32_t p) -> uint32_t {
      const SmdbIndex::Port& port = ni_.port(p);
      if (ni_.node_of(port).type != kNodeSwitch || port.peer == SmdbIndex::kNone)
        return SmdbIndex::kNone;
      const SmdbIndex::Port& in = ni_.port(port.peer);
      return ni_.node_of(in).type == kNodeSwitch ? in.node : SmdbIndex::kNone;
    };
    for (uint32_t p = 0; p < ni_.ports().size(); ++p) {
      uint32_t n = into(p);
      if (n != SmdbIndex::kNone) ++rev_start_[n + 1];
    }
    for (size_t n = 0; n < ni_.nodes().size(); ++n) rev_start_[n + 1] += rev_start_[n];
    rev_.resize(rev_start_.back());
    std::vector<uint32_t> at(rev_start_.begin(), rev_start_.end() - 1);
    for (uint32_t p = 0; p < ni_.ports().size(); ++p) {
      uint32_t n = into(p);
      if (n != SmdbIndex::kNone) rev_[at[n]++] = p;
    }
  }

  // By node: the walk from that switch toward `lid` meets a local change.
  // The LFTs make a functional graph (one next switch each, NextSwitch in
  // the engine's terms); the switches that reach a change are found
  // backwards from the changed ones, local_[begin, end): a switch n
  // precedes m when n's entry for `lid` leaves through a port linked into
  // m. A cycle without a change is never reached (and is the same in both
  // versions).
  void Reach(uint16_t lid, size_t begin, size_t end, std::vector<bool>* reach,
             std::vector<uint32_t>* nodes) {
    reach->assign(ni_.nodes().size(), false);
    nodes->clear();
    for (size_t k = begin; k < end; ++k) {
      uint32_t n = local_[k].second;
      if (ni_.nodes()[n].type != kNodeSwitch || (*reach)[n]) continue;
      (*reach)[n] = true;
      nodes->push_back(n);
    }
    for (size_t q = 0; q < nodes->size(); ++q) {
      uint32_t m = (*nodes)[q];
      for (uint32_t r = rev_start_[m]; r < rev_start_[m + 1]; ++r) {
        const SmdbIndex::Port& p = ni_.port(rev_[r]);
        if ((*reach)[p.node] || ni_.LftPort(p.node, lid) != p.port_num) continue;
        (*reach)[p.node] = true;
        nodes->push_back(p.node);
      }
    }
    std::sort(nodes->begin(), nodes->end());
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

  const Smdb& od_;
  const SmdbIndex& oi_;
  const Smdb& nd_;
  const SmdbIndex& ni_;
  const std::string* delta_;  // old -> new, or null
  NodeMap old_nodes_, new_nodes_;
  std::set<PortKey> changed_;
  std::vector<bool> dirty_, owner_;
  std::vector<std::pair<uint16_t, uint32_t>> local_;  // (LID, new switch) local changes
  std::vector<uint32_t> rev_start_, rev_;             // BuildReverseLinks
};

}  // namespace

void RouteDiff::PairsFrom(uint16_t slid, std::vector<uint16_t>* dlids) const {
  dlids->clear();
  // Either end owner-dirty.
  dlids->insert(dlids->end(), owner_lids.begin(), owner_lids.end());
  // The walk from slid's first switch toward a route-dirty destination.
  uint32_t sw = slid < first_switch.size() ? first_switch[slid] : kNone;
  for (uint16_t d : route_lids) {
    const std::vector<bool>& r = reaches_change[route_slot[d]];
    if (sw == kNone || sw >= r.size() || r[sw]) dlids->push_back(d);
  }
  // slid route-dirty: the reverse walks, from every destination's first
  // switch toward slid, that meet a change.
  if (slid < route_slot.size() && route_slot[slid] != kNone) {
    dlids->insert(dlids->end(), no_switch_lids.begin(), no_switch_lids.end());
    for (uint32_t n : reach_nodes[route_slot[slid]])
      if (n + 1 < switch_start.size())
        dlids->insert(dlids->end(), lids_by_switch.begin() + switch_start[n],
                      lids_by_switch.begin() + switch_start[n + 1]);
    std::sort(dlids->begin(), dlids->end());
    dlids->erase(std::unique(dlids->begin(), dlids->end()), dlids->end());
    return;
  }
  std::sort(dlids->begin(), dlids->end());
  dlids->erase(std::unique(dlids->begin(), dlids->end()), dlids->end());
}

RouteDiff DiffRoutes(const Smdb& old_db, const SmdbIndex& old_index, const Smdb& new_db,
                     const SmdbIndex& new_index, const std::string* delta) {
  return Differ(old_db, old_index, new_db, new_index, delta).Run();
}

}  // namespace smdb
}  // namespace ssa
