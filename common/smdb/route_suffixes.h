// route_suffixes.h: for every switch and every LID, what the rest of the
// SA's path walk adds up to from that switch to that LID: reachable or
// not, the smallest MTU and rate on the way, the switch hops. With it a
// walk of any length costs one lookup once it reaches its first switch.
//
// Why: an access node's bring-up builds every consumer's whole PRDB, two
// walks (there and back) per record, and the walks were most of its CPU
// (issue 28). The table is the walk's result, not an approximation of it:
// the same steps as PathEngine::Walk (osm_sa_path_record.c's
// pr_rcv_get_path_parms), once per (switch, LID) instead of once per
// (source, destination). MTU and rate minimums combine in any grouping
// (both are minimums under a total order, and an earlier equal value
// wins either way), so a prefix's values folded with a suffix's are the
// walk's. route_suffixes_test.cc checks every pair of several fabrics
// against the walk without the table.
//
// What it cannot hold: SL2VL tables that drop SLs per (ingress, egress)
// pair (QoS), which depend on the ingress port; the engine does not build
// it then. Size: 2 bytes per (switch, LID) up to the highest LID, 12 per
// port (FirstStep) and 20 per switch port (Hop); Build declines beyond
// `max_entries`.
//
// Immutable once built: shared by the threads that use the engine.
#ifndef IBACM_SSA_COMMON_SMDB_ROUTE_SUFFIXES_H
#define IBACM_SSA_COMMON_SMDB_ROUTE_SUFFIXES_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/smdb/smdb_index.h"

namespace ssa {
namespace smdb {

// OpenSM gives up on paths longer than this many switch hops (MAX_HOPS).
constexpr int kMaxPathHops = 64;

// The port the SA's walk to `dlid`, owned by endpoint port `dst`, ends at:
// `dst` itself, or for a switch, the port its own LFT sends the LID to (port
// 0); kNone if that LFT has no entry.
inline uint32_t WalkEndPort(const SmdbIndex& x, uint32_t dst, uint16_t dlid) {
  const SmdbIndex::Port& d = x.port(dst);
  return x.node_of(d).type == kNodeSwitch ? x.LftEgress(d.node, dlid) : dst;
}

class RouteSuffixes {
 public:
  struct Suffix {
    uint8_t mtu = 0;   // the smallest MTU code from the switch's egress on
    uint8_t rate = 0;  // the lowest rate (CompareRates), the earliest of equals
    uint8_t hops = 0;  // switches from this one to the end, this one included
  };
  enum class Lookup { kReached, kNoRoute, kUnknown };

  // The table for every switch of `x` and every assigned LID; null when
  // switches x (highest LID + 1) exceeds `max_entries`, or when a port's
  // MTU or rate code does not fit the table's 16-bit entries.
  static std::unique_ptr<RouteSuffixes> Build(const SmdbIndex& x, size_t max_entries);

  // A CA port's first step folded: its link's peer (a switch's ingress
  // port), that switch's row, and the MTU and rate the walk holds once the
  // ingress port is counted (the port's own MTUCap and rate, then the
  // ingress port's). Whole-PRDB builds walk from every destination back to
  // the consumer: this is one read where the walk made three (the peer
  // port, its node, the node's row).
  struct FirstStep {
    uint32_t peer = SmdbIndex::kNone;
    uint32_t row = SmdbIndex::kNone;
    uint8_t mtu = 0, rate = 0;
  };
  // The first step of endpoint port `port`, or null: a switch port, a port
  // without a link, or one linked to a CA.
  const FirstStep* first_step(uint32_t port) const {
    return port < first_steps_.size() && first_steps_[port].row != SmdbIndex::kNone
               ? &first_steps_[port]
               : nullptr;
  }

  // From switch `node` having counted its ingress port: its LFT lookup for
  // `dlid` onwards. kUnknown for a node or LID the table does not cover.
  Lookup Get(uint32_t node, uint16_t dlid, Suffix* out) const {
    return GetRow(row_of(node), dlid, out);
  }
  // Switch `node`'s row, kNone for another node.
  uint32_t row_of(uint32_t node) const {
    return node < row_of_node_.size() ? row_of_node_[node] : SmdbIndex::kNone;
  }
  // The same by the switch's row (FirstStep::row).
  Lookup GetRow(uint32_t row, uint16_t dlid, Suffix* out) const {
    if (row == SmdbIndex::kNone || dlid >= columns_) return Lookup::kUnknown;
    return Decode(entries_[size_t{row} * columns_ + dlid], out);
  }
  // Every switch row's entry for `dlid` into out[0 .. switch_rows()), by
  // row, for Decode: the walks back to one LID from every destination of
  // a whole PRDB read one column, an entry per row a table row apart;
  // gathered once, they are one small array. kUnknown entries when the
  // table does not cover the LID.
  void GetColumn(uint16_t dlid, uint16_t* out) const {
    for (size_t r = 0; r < switch_nodes_.size(); ++r)
      out[r] = dlid < columns_ ? entries_[r * columns_ + dlid] : kUnset;
  }
  static Lookup Decode(uint16_t e, Suffix* out) {
    if (e == kUnset) return Lookup::kUnknown;
    if (e == kNoRouteEntry) return Lookup::kNoRoute;
    out->mtu = static_cast<uint8_t>(e >> 13);
    out->rate = static_cast<uint8_t>((e >> 7) & 0x3F);
    out->hops = static_cast<uint8_t>(e & 0x7F);
    return Lookup::kReached;
  }
  size_t entries() const { return entries_.size(); }
  size_t switch_rows() const { return switch_nodes_.size(); }

 private:
  // mtu (3 bits) | rate (6) | hops (7); hops <= kMaxPathHops, so the two
  // markers below are never a real entry.
  static constexpr uint16_t kUnset = 0xFFFE, kNoRouteEntry = 0xFFFF;
  // Build fills the table in tiles of this many LIDs (64 LFT bytes, 128
  // table bytes per switch).
  static constexpr uint16_t kTileLids = 64;
  struct Step {
    uint32_t row;
    uint8_t mtu, rate;  // this switch's egress port, then the next port's
  };
  // What the fill reuses from one start to the next.
  struct Scratch {
    std::vector<Step> chain;
    std::vector<uint32_t> stamp;  // per row: the fill that last passed it
    uint32_t stamp_now = 0;
  };
  // Where one LFT port number of a switch leads, with the walk's MTU and
  // rate for the step folded in: the fill's one read per step, where it
  // read the egress port, its peer and the peer's node (three structures,
  // most of the fill's cache misses).
  struct Hop {
    uint32_t egress = SmdbIndex::kNone;    // the port (kNone: no such port)
    uint32_t peer = SmdbIndex::kNone;      // its link's other end (kNone: none)
    uint32_t peer_row = SmdbIndex::kNone;  // the peer's switch row (kNone: not a switch)
    uint8_t mtu = 0, rate = 0;             // egress, then the peer as a switch's ingress
    uint8_t end_mtu = 0, end_rate = 0;     // egress, then the peer as the walk's end
    uint8_t self_mtu = 0, self_rate = 0;   // the egress port as the walk's end
  };
  RouteSuffixes() = default;
  uint16_t& at_row(uint32_t row, uint16_t dlid) { return entries_[size_t{row} * columns_ + dlid]; }
  void BuildHops(const SmdbIndex& x);
  // Row `row`'s LFT entry for `dlid` as a Hop; null: no entry, or a port
  // number the SMDB has no port for.
  const Hop* HopAt(const SmdbIndex& x, uint32_t row, uint16_t dlid) const {
    const uint8_t num = x.LftPort(switch_nodes_[row], dlid);
    const uint32_t slot = hop_start_[row] + num;
    return num != kLftNoPath && slot < hop_start_[row + 1] ? &hops_[slot] : nullptr;
  }
  static uint16_t Entry(uint8_t mtu, uint8_t rate, uint8_t hops) {
    return static_cast<uint16_t>(mtu << 13 | rate << 7 | hops);
  }
  struct Next {
    enum Kind { kNoRoute, kEnd, kSwitch } kind;
    uint32_t row = SmdbIndex::kNone;  // kSwitch: the next switch's row
    uint8_t mtu = 0, rate = 0;        // the step's (kEnd, kSwitch)
  };
  // Where a walk's step through `h` (null: no LFT entry) goes, for a walk
  // ending at port `end`: nowhere, the end (with the step's MTU and rate),
  // or the next switch's row. PathEngine::Walk's loop turn. In the header:
  // the fill's inner loop, which the compiler must see whole.
  static Next StepThrough(const Hop* h, uint32_t end) {
    if (!h || h->egress == SmdbIndex::kNone) return {Next::kNoRoute};
    // The end port counts with its own rate.
    if (h->egress == end) return {Next::kEnd, SmdbIndex::kNone, h->self_mtu, h->self_rate};
    if (h->peer == SmdbIndex::kNone) return {Next::kNoRoute};  // no link
    if (h->peer == end) return {Next::kEnd, SmdbIndex::kNone, h->end_mtu, h->end_rate};
    if (h->peer_row == SmdbIndex::kNone) return {Next::kNoRoute};  // a CA, not the end
    return {Next::kSwitch, h->peer_row, h->mtu, h->rate};
  }
  // `acc` with one more switch before it, whose step holds `mtu` and `rate`;
  // false past OpenSM's hop limit.
  static bool Prepend(uint8_t mtu, uint8_t rate, Suffix* acc) {
    acc->mtu = std::min(mtu, acc->mtu);
    acc->rate = LowerRate(rate, acc->rate);
    ++acc->hops;
    return acc->hops <= kMaxPathHops;
  }
  // `end`: WalkEndPort of dlid's owner, or kNone.
  void FillFrom(const SmdbIndex& x, uint32_t start_row, uint16_t dlid, uint32_t end,
                Scratch* scratch);

  std::vector<uint32_t> row_of_node_;  // switch nodes' rows, kNone for others
  std::vector<uint32_t> switch_nodes_;
  std::vector<Hop> hops_;               // by row, then LFT port number
  std::vector<uint32_t> hop_start_;     // a row's first Hop; one more for the end
  std::vector<FirstStep> first_steps_;  // by port index
  size_t columns_ = 0;                  // LIDs 0 .. columns_ - 1
  std::vector<uint16_t> entries_;
};

}  // namespace smdb
}  // namespace ssa

#endif
