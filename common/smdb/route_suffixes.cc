// route_suffixes.cc: see route_suffixes.h.
#include "common/smdb/route_suffixes.h"

#include <algorithm>

namespace ssa {
namespace smdb {
namespace {

// The walk keeps the earlier of two equal rates: `later` replaces
// `earlier` only when strictly lower.
uint8_t LowerRate(uint8_t earlier, uint8_t later) {
  return CompareRates(earlier, later) > 0 ? later : earlier;
}

}  // namespace

uint32_t WalkEndPort(const SmdbIndex& x, uint32_t dst, uint16_t dlid) {
  const SmdbIndex::Port& d = x.port(dst);
  if (x.node_of(d).type != kNodeSwitch) return dst;
  uint8_t out = x.LftPort(d.node, dlid);
  return out == kLftNoPath ? SmdbIndex::kNone : x.PortOf(d.node, out);
}

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
  std::vector<uint32_t> stamp(x.nodes().size(), 0);
  uint32_t stamp_now = 0;
  for (uint16_t dlid : x.assigned_lids()) t->FillColumn(x, dlid, &stamp, &stamp_now);
  return t;
}

// Every switch's suffix to `dlid`. From each switch not yet known, the
// walk's steps are followed (each step: this switch's egress port, then
// the next port: the end, or the next switch's ingress) until the end, a
// failure, a loop, or a switch already known; the chain's entries are then
// filled from its end backwards.
void RouteSuffixes::FillColumn(const SmdbIndex& x, uint16_t dlid, std::vector<uint32_t>* stamp,
                               uint32_t* stamp_now) {
  const uint32_t dst = x.PortByLid(dlid);
  const uint32_t end = dst == SmdbIndex::kNone ? SmdbIndex::kNone : WalkEndPort(x, dst, dlid);
  auto at = [this, dlid](uint32_t node) -> uint16_t& {
    return entries_[size_t{row_of_node_[node]} * columns_ + dlid];
  };
  struct Step {
    uint32_t node;
    uint8_t mtu, rate;  // this switch's egress port, then the next port's
  };
  std::vector<Step> chain;
  for (uint32_t start : switch_nodes_) {
    if (at(start) != kUnset) continue;
    if (end == SmdbIndex::kNone) {  // the walk fails before its first step
      at(start) = kNoRouteEntry;
      continue;
    }
    chain.clear();
    ++*stamp_now;
    uint16_t tail = kUnset;  // the known entry the chain continues into
    bool terminal = false;   // the chain's last step reaches the end
    for (uint32_t node = start;;) {
      if (at(node) != kUnset) {
        tail = at(node);
        break;
      }
      if ((*stamp)[node] == *stamp_now) {  // an LFT loop: the walk runs out of hops
        tail = kNoRouteEntry;
        break;
      }
      (*stamp)[node] = *stamp_now;
      Step s{node, 0, 0};
      chain.push_back(s);
      uint8_t out = x.LftPort(node, dlid);
      uint32_t egress = out == kLftNoPath ? SmdbIndex::kNone : x.PortOf(node, out);
      if (egress == SmdbIndex::kNone) {
        tail = kNoRouteEntry;
        break;
      }
      const SmdbIndex::Port& e = x.port(egress);
      chain.back().mtu = e.mtu_cap;
      chain.back().rate = e.rate;
      uint32_t next = egress == end ? end : e.peer;
      if (next == SmdbIndex::kNone) {  // no link
        tail = kNoRouteEntry;
        break;
      }
      const SmdbIndex::Port& n = x.port(next);
      if (next == end) {  // the end port counts with its own rate
        chain.back().mtu = std::min(chain.back().mtu, n.mtu_cap);
        chain.back().rate = LowerRate(chain.back().rate, n.rate_own);
        terminal = true;
        break;
      }
      if (x.node_of(n).type != kNodeSwitch) {  // a CA that is not the end
        tail = kNoRouteEntry;
        break;
      }
      chain.back().mtu = std::min(chain.back().mtu, n.mtu_cap);
      chain.back().rate = LowerRate(chain.back().rate, n.rate);
      node = n.node;
    }
    bool reached = terminal || tail != kNoRouteEntry;
    Suffix acc;
    if (reached && !terminal) {
      acc.mtu = static_cast<uint8_t>(tail >> 13);
      acc.rate = static_cast<uint8_t>((tail >> 7) & 0x3F);
      acc.hops = static_cast<uint8_t>(tail & 0x7F);
    }
    for (size_t i = chain.size(); i-- > 0;) {
      const Step& s = chain[i];
      if (reached && terminal && i + 1 == chain.size()) {
        acc.mtu = s.mtu;
        acc.rate = s.rate;
        acc.hops = 1;
      } else if (reached) {
        acc.mtu = std::min(s.mtu, acc.mtu);
        acc.rate = LowerRate(s.rate, acc.rate);
        ++acc.hops;
        if (acc.hops > kMaxPathHops) reached = false;  // and every switch before it
      }
      at(s.node) = reached ? static_cast<uint16_t>(acc.mtu << 13 | acc.rate << 7 | acc.hops)
                           : kNoRouteEntry;
    }
  }
}

}  // namespace smdb
}  // namespace ssa
