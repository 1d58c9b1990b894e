// route_diff.h: which path records can differ between two SMDB versions,
// so an access node recomputes only those (issue "incremental PRDB").
//
// A path (s, d) as the engine computes it (path_engine.h) reads: the LFT
// entries for d along the forward walk and for s along the reverse walk;
// every port it crosses (MTU, rates, state, link peer) and its switch's
// port 0 (extended-speed capability); the two ends' P_Key tables and node
// records; the subnet record and partition SLs. So, between old and new:
//   - a destination LID d is dirty when some switch's LFT entry for d
//     differs, or points (old or new) at a port that changed or whose link
//     peer changed (a port's peer is its ingress for the next switch), or
//     when the port owning d changed (or d changed owner);
//   - a consumer whose own LIDs are dirty needs all of its paths again
//     (every reverse walk ends at it), the others only the paths to dirty
//     destinations (IsDirty: the coarse rule);
//   - finer, per pair (PairMayDiffer, what the access node uses): a LID
//     is "owner-dirty" when its port, node or link changed or its
//     assignment moved (every path to or from it may differ), else
//     "route-dirty" when some switch's entry for it differs or points at a
//     changed port ("local change"). For a route-dirty LID x the diff keeps
//     the switches whose walk toward x reaches a local change (following
//     the new LFTs: where a walk meets no local change, old and new walks
//     are the same hop for hop). A pair (s, d) may differ only when s or d
//     is owner-dirty, or d is route-dirty and the walk from s's first
//     switch toward d meets a change, or s is route-dirty and the walk from
//     d's first switch toward s (the reverse path the engine also walks)
//     does;
//   - a change the rules above do not localize (subnet record, partitions,
//     P_Key tables, prefix routes, the set of router ports: the PRDB's
//     prefix rows, prefix_rows.h) makes everything dirty (`all`).
// Ports "changed" means any field of the port record, its node record or
// its link differs (a superset of what the engine reads: safe).
//
// Cost: proportional to what changed, not to the fabric's LIDs x switches.
// Tables are compared by one merge walk over their sorted records; a
// switch's LFT is scanned whole only when one of its ports changed (its
// entries pointing there are dirty), otherwise only the LFT blocks that
// differ are read; a route-dirty LID's reach is found backwards from the
// switches whose entry for it changed (the predecessors of a switch toward
// x are its linked switches whose entry for x leaves through that link),
// so it visits only the switches that do reach a change. PairsFrom() then
// lists a source's pairs from the dirty LIDs (and, for a route-dirty
// source, from the switches that reach its change), without walking every
// destination.
//
// Pure function over immutable inputs; any thread. The test
// (test/unit/route_diff_test.cc) checks against full recomputation that no
// path outside the dirty set changes.
#ifndef IBACM_SSA_COMMON_SMDB_ROUTE_DIFF_H
#define IBACM_SSA_COMMON_SMDB_ROUTE_DIFF_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"

namespace ssa {
namespace smdb {

struct RouteDiff {
  static constexpr uint32_t kNone = 0xFFFFFFFF;

  bool all = false;         // recompute everything
  std::vector<bool> dirty;  // by LID (size 0xC000): paths to it may differ
  size_t dirty_count = 0;   // LIDs set in `dirty`
  // Some LID of the old version left the subnet or now belongs to another
  // port. Its old records are keyed by the old port's GID, which no pair
  // PairsFrom() lists (it lists the new version's LIDs), so a patch would
  // keep them: a consumer would go on answering a path to a port that is
  // gone. A PRDB is then built whole (the chaos soak found this).
  bool lids_left = false;

  // The per-pair rule (see above). By LID (size 0xC000 unless `all`):
  std::vector<bool> owner_dirty;
  std::vector<uint32_t> route_slot;    // index into `reaches_change`, or kNone
  std::vector<uint32_t> first_switch;  // the new index's node a walk from the LID enters first
  // Per route-dirty LID: by node (new index), the walk from that switch
  // toward the LID reaches a local change.
  std::vector<std::vector<bool>> reaches_change;
  size_t owner_dirty_count = 0;
  size_t route_dirty_count = 0;

  // For PairsFrom (LIDs assigned in the new index only, ascending):
  std::vector<uint16_t> owner_lids;      // owner-dirty
  std::vector<uint16_t> route_lids;      // route-dirty (route_slot set)
  std::vector<uint16_t> no_switch_lids;  // first_switch kNone
  // Per route slot: the nodes set in reaches_change, ascending.
  std::vector<std::vector<uint32_t>> reach_nodes;
  // Assigned LIDs by first switch (CSR: LIDs of node n are
  // lids_by_switch[switch_start[n] .. switch_start[n + 1])).
  std::vector<uint32_t> switch_start;
  std::vector<uint16_t> lids_by_switch;

  bool IsDirty(uint16_t lid) const { return all || (lid < dirty.size() && dirty[lid]); }
  bool IsOwnerDirty(uint16_t lid) const {
    return all || (lid < owner_dirty.size() && owner_dirty[lid]);
  }
  // Whether the path slid -> dlid (either direction's walk) may differ.
  bool PairMayDiffer(uint16_t slid, uint16_t dlid) const {
    if (IsOwnerDirty(slid) || IsOwnerDirty(dlid)) return true;
    return WalkMeetsChange(slid, dlid) || WalkMeetsChange(dlid, slid);
  }
  // *dlids = every LID assigned in the new index for which
  // PairMayDiffer(slid, dlid), ascending, in time proportional to the
  // dirty LIDs and the answer. Only for a source that is not owner-dirty
  // (that one needs every destination) and without `all`.
  void PairsFrom(uint16_t slid, std::vector<uint16_t>* dlids) const;

 private:
  // The walk from `from`'s first switch toward `to` meets a change.
  bool WalkMeetsChange(uint16_t from, uint16_t to) const {
    if (to >= route_slot.size() || route_slot[to] == kNone) return false;
    uint32_t sw = from < first_switch.size() ? first_switch[from] : kNone;
    if (sw == kNone) return true;  // not a walk through switches: be safe
    const std::vector<bool>& r = reaches_change[route_slot[to]];
    return sw >= r.size() || r[sw];
  }
};

// `old_db`/`old_index` and `new_db`/`new_index` are two versions (the
// indexes built from them). `delta`, when given, is the SMDB delta that
// made new_db from old_db (an access node has it from the data channel):
// then only the LFT blocks it names are compared, instead of a merge walk
// over both versions' lft_blocks (at the full subnet, 2 x 171 MB read for
// the few hundred blocks a link change rewrites). A delta between other
// epochs, or one that does not read, is ignored. The result is the same.
RouteDiff DiffRoutes(const Smdb& old_db, const SmdbIndex& old_index, const Smdb& new_db,
                     const SmdbIndex& new_index, const std::string* delta = nullptr);

}  // namespace smdb
}  // namespace ssa

#endif
