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
//     destinations;
//   - a change the rules above do not localize (subnet record, partitions,
//     P_Key tables, prefix routes) makes everything dirty (`all`).
// Ports "changed" means any field of the port record, its node record or
// its link differs (a superset of what the engine reads: safe).
//
// Pure function over immutable inputs; any thread. The test
// (test/unit/route_diff_test.cc) checks against full recomputation that no
// path outside the dirty set changes.
#ifndef IBACM_SSA_COMMON_SMDB_ROUTE_DIFF_H
#define IBACM_SSA_COMMON_SMDB_ROUTE_DIFF_H

#include <cstdint>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"

namespace ssa {
namespace smdb {

struct RouteDiff {
  bool all = false;         // recompute everything
  std::vector<bool> dirty;  // by LID (size 0xC000): paths to it may differ
  size_t dirty_count = 0;   // LIDs set in `dirty`

  bool IsDirty(uint16_t lid) const { return all || (lid < dirty.size() && dirty[lid]); }
};

// `old_db`/`old_index` and `new_db`/`new_index` are two versions (the
// indexes built from them).
RouteDiff DiffRoutes(const Smdb& old_db, const SmdbIndex& old_index, const Smdb& new_db,
                     const SmdbIndex& new_index);

}  // namespace smdb
}  // namespace ssa

#endif
