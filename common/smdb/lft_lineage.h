// lft_lineage.h: what a builder of SMDB indexes knows of how the LFT
// blocks moved between the SMDB versions it indexed, so that an index can
// bring an LFT buffer released by an earlier index up to date by
// rewriting only the blocks that changed (SmdbIndex::Build).
//
// Why not epochs: after an SM failover a new core numbers its versions
// afresh, and the same epoch can name other content (doc/ssa-tree.md,
// "Epochs that never go back"). A buffer is named instead by a serial that
// Add() hands out, unique in the process (never reused, never shared
// between two lineages), so a buffer can only be matched to the version it
// was built from.
//
// Between two versions the lineage knows the changed blocks only when the
// newer one came with the delta that made it, and that delta's base is
// the version added just before: same global epoch and same digest (CRC32
// of the whole serialization) as the one the previous version's own delta
// promised. That is the check by which a replica accepted the delta in the
// first place (smdb_delta.h: ApplyDelta refuses another base), so the index
// trusts no more than the SMDB it indexes already does. A version that came
// without a delta, with one that does not read, or with one from another
// base breaks the chain: nothing before it can be caught up past it.
//
// The delta's lft_blocks section names every block it removes or puts; a
// block it does not name is the same record in both versions (the replica
// checked the result's digest), so its LFT bytes are the same.
//
// Thread-safe: Add() in version order (the loop thread), ChangedBlocks()
// from any thread (the index builds on workers).
#ifndef IBACM_SSA_COMMON_SMDB_LFT_LINEAGE_H
#define IBACM_SSA_COMMON_SMDB_LFT_LINEAGE_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "common/base/mutex.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace smdb {

class LftLineage {
 public:
  // (switch node GUID, LFT block number).
  using Block = std::pair<uint64_t, uint16_t>;

  // Remembers the last `depth` versions: an index recycles the buffer of
  // the version two before it (prdb_service.cc), so a few are enough.
  explicit LftLineage(size_t depth = 4) : depth_(depth < 2 ? 2 : depth) {}
  LftLineage(const LftLineage&) = delete;
  LftLineage& operator=(const LftLineage&) = delete;

  // The next version to index, in the order versions come: `db`, made by
  // `delta` (null: came whole, or unknown). Returns its serial (never 0).
  uint64_t Add(const Smdb& db, const std::string* delta);

  // True when every version after `from` up to `to` is chained to the one
  // before (see the file comment); *blocks is then the union of the blocks
  // their deltas name, sorted, unique (empty when `from` == `to`). False
  // when either is forgotten or unknown here, or `from` came after `to`.
  bool ChangedBlocks(uint64_t from, uint64_t to, std::vector<Block>* blocks) const;

 private:
  struct Version {
    uint64_t serial = 0;
    uint64_t epoch = 0;
    bool has_digest = false;  // known from the delta that made it
    uint32_t digest = 0;
    bool chained = false;       // its delta's base is the version before
    std::vector<Block> blocks;  // the blocks that delta names
  };

  const size_t depth_;
  mutable Mutex mutex_;
  std::deque<Version> versions_ GUARDED_BY(mutex_);  // oldest first
};

}  // namespace smdb
}  // namespace ssa

#endif
