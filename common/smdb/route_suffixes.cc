// route_suffixes.cc: see route_suffixes.h.
#include "common/smdb/route_suffixes.h"

#include <algorithm>

namespace ssa {
namespace smdb {
std::unique_ptr<RouteSuffixes> RouteSuffixes::Build(const SmdbIndex& x, size_t max_entries) {
  for (const SmdbIndex::Port& p : x.ports())
    if (p.mtu_cap > 7 || p.rate > 0x3F || p.rate_own > 0x3F) return nullptr;
  std::unique_ptr<RouteSuffixes> t(new RouteSuffixes());
  t->row_of_node_.assign(x.nodes().size(), SmdbIndex::kNone);
  for (uint32_t n = 0; n < x.nodes().size(); ++n) {
    if (x.nodes()[n].type != kNodeSwitch) continue;
    t->row_of_node_[n] = static_cast<uint32_t>(t->switch_nodes_.size());
    t->switch_nodes_.push_back(n);
  }
  t->columns_ = x.assigned_lids().empty() ? 0 : size_t{x.assigned_lids().back()} + 1;
  const size_t rows = t->switch_nodes_.size();
  if (rows == 0 || rows * t->columns_ > max_entries) return nullptr;
  t->entries_.assign(rows * t->columns_, kUnset);
  // Each CA port's first step (PathEngine::Walk's first loop turn).
  t->first_steps_.resize(x.ports().size());
  for (uint32_t i = 0; i < x.ports().size(); ++i) {
    const SmdbIndex::Port& p = x.ports()[i];
    if (x.node_of(p).type == kNodeSwitch || p.peer == SmdbIndex::kNone) continue;
    const SmdbIndex::Port& in = x.port(p.peer);
    if (x.node_of(in).type != kNodeSwitch) continue;
    FirstStep& f = t->first_steps_[i];
    f.peer = p.peer;
    f.row = t->row_of_node_[in.node];
    f.mtu = std::min(p.mtu_cap, in.mtu_cap);
    f.rate = LowerRate(p.rate_own, in.rate);
  }
  // Where each LID's walks end, once.
  std::vector<uint32_t> ends(t->columns_, SmdbIndex::kNone);
  for (uint16_t dlid : x.assigned_lids()) {
    uint32_t dst = x.PortByLid(dlid);
    if (dst != SmdbIndex::kNone) ends[dlid] = WalkEndPort(x, dst, dlid);
  }
  // In tiles of kTileLids LIDs, each tile row by row: a walk's steps read
  // other switches' LFT and table entries at the same LID, and within a
  // tile those are a cache line or two per switch, all in cache. (Row by
  // row over every LID, each step's read landed in a row out of cache,
  // 0.4 s at 10,000 HCAs; column by column, every read did: 152 s at
  // 48,748 LIDs.)
  t->BuildHops(x);
  Scratch scratch;
  scratch.stamp.assign(rows, 0);
  const std::vector<uint16_t>& lids = x.assigned_lids();
  for (size_t first = 0; first < lids.size();) {
    size_t last = first;
    while (last < lids.size() && lids[last] < (lids[first] / kTileLids + 1) * kTileLids) ++last;
    for (uint32_t row = 0; row < rows; ++row)
      for (size_t i = first; i < last; ++i)
        if (t->at_row(row, lids[i]) == kUnset)
          t->FillFrom(x, row, lids[i], ends[lids[i]], &scratch);
    first = last;
  }
  return t;
}

// One Hop per (switch, port number), each folding what a walk's step
// reads of the egress port and its peer (PathEngine::Walk's loop turn).
void RouteSuffixes::BuildHops(const SmdbIndex& x) {
  hop_start_.assign(1, 0);
  for (uint32_t node : switch_nodes_) {
    const uint32_t slots = x.nodes()[node].slot_count;
    for (uint32_t num = 0; num < slots; ++num) {
      Hop h;
      h.egress = x.PortOf(node, num);
      if (h.egress != SmdbIndex::kNone) {
        const SmdbIndex::Port& e = x.port(h.egress);
        h.self_mtu = e.mtu_cap;
        h.self_rate = LowerRate(e.rate, e.rate_own);
        h.peer = e.peer;
        if (h.peer != SmdbIndex::kNone) {
          const SmdbIndex::Port& n = x.port(h.peer);
          h.peer_row = row_of_node_[n.node];
          h.mtu = h.end_mtu = std::min(e.mtu_cap, n.mtu_cap);
          h.rate = LowerRate(e.rate, n.rate);
          h.end_rate = LowerRate(e.rate, n.rate_own);
        }
      }
      hops_.push_back(h);
    }
    hop_start_.push_back(static_cast<uint32_t>(hops_.size()));
  }
}

// The suffix from `start` to `dlid`, and on the way every switch's it
// passes: the walk's steps are followed (each step: this switch's egress
// port, then the next port: the end, or the next switch's ingress) until
// the end, a failure, a loop, or a switch already known; the chain's
// entries are then filled from its end backwards.
void RouteSuffixes::FillFrom(const SmdbIndex& x, uint32_t start_row, uint16_t dlid, uint32_t end,
                             Scratch* scratch) {
  auto at = [this, dlid](uint32_t row) -> uint16_t& { return at_row(row, dlid); };
  if (end == SmdbIndex::kNone) {  // the walk fails before its first step
    at(start_row) = kNoRouteEntry;
    return;
  }
  // Most fills are one step: to the end, or to a switch whose entry is
  // known (the tile's rows fill in order). Those skip the chain.
  const Next first = StepThrough(HopAt(x, start_row, dlid), end);
  if (first.kind != Next::kSwitch) {
    at(start_row) = first.kind == Next::kEnd ? Entry(first.mtu, first.rate, 1) : kNoRouteEntry;
    return;
  }
  if (const uint16_t known = at(first.row); known != kUnset) {
    Suffix rest;
    at(start_row) =
        Decode(known, &rest) == Lookup::kReached && Prepend(first.mtu, first.rate, &rest)
            ? Entry(rest.mtu, rest.rate, rest.hops)
            : kNoRouteEntry;
    return;
  }
  std::vector<Step>& chain = scratch->chain;
  std::vector<uint32_t>* stamp = &scratch->stamp;
  uint32_t* stamp_now = &scratch->stamp_now;
  chain.clear();
  if (++*stamp_now == 0) {  // wrapped: old stamps could match again
    std::fill(stamp->begin(), stamp->end(), 0);
    *stamp_now = 1;
  }
  uint16_t tail = kUnset;  // the known entry the chain continues into
  bool terminal = false;   // the chain's last step reaches the end
  for (uint32_t row = start_row;;) {
    if (at(row) != kUnset) {
      tail = at(row);
      break;
    }
    if ((*stamp)[row] == *stamp_now) {  // an LFT loop: the walk runs out of hops
      tail = kNoRouteEntry;
      break;
    }
    (*stamp)[row] = *stamp_now;
    const Next n = StepThrough(HopAt(x, row, dlid), end);
    chain.push_back(Step{row, n.mtu, n.rate});
    if (n.kind == Next::kNoRoute) {
      tail = kNoRouteEntry;
      break;
    }
    if (n.kind == Next::kEnd) {
      terminal = true;
      break;
    }
    row = n.row;
  }
  bool reached = terminal || tail != kNoRouteEntry;
  Suffix acc;
  if (reached && !terminal) Decode(tail, &acc);
  for (size_t i = chain.size(); i-- > 0;) {
    const Step& s = chain[i];
    if (reached && terminal && i + 1 == chain.size()) {
      acc.mtu = s.mtu;
      acc.rate = s.rate;
      acc.hops = 1;
    } else if (reached) {
      reached = Prepend(s.mtu, s.rate, &acc);  // past the limit: every switch before it too
    }
    at(s.row) = reached ? Entry(acc.mtu, acc.rate, acc.hops) : kNoRouteEntry;
  }
}

}  // namespace smdb
}  // namespace ssa
