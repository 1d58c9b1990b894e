// access_update.h: bench_tree's access_update_100_ms: one access node
// serving N consumers on one core, through three SMDB updates in a row
// (bench_tree.cc's file comment), and the SMDB deltas it applies.
#ifndef IBACM_SSA_TEST_BENCH_ACCESS_UPDATE_H
#define IBACM_SSA_TEST_BENCH_ACCESS_UPDATE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"
#include "common/tree/db_version.h"
#include "test/bench/smdb_pair_cache.h"

namespace ssa {
namespace bench {

// One update of one access node (see MeasureAccessUpdate).
struct AccessStep {
  double apply_ms = 0, prdbs_ms = 0, total_ms = 0;
  // The process's CPU time over the same span (this thread and the pool's
  // one worker): what the update costs the core, whatever else the machine
  // runs (on a shared machine the wall time also counts waiting for it).
  double cpu_ms = 0;
  uint64_t computed = 0, if_full = 0;
};
struct AccessUpdate {
  AccessStep first;   // the member's first update: its new versions in new memory
  AccessStep steady;  // its third: built in the versions the first released
  size_t consumers = 0;
  // Of its four SMDB indexes, those whose LFT bytes were caught up from a
  // recycled buffer and those written whole (PrdbService's counters).
  uint64_t index_lft_catch_ups = 0, index_lft_full_builds = 0;
  // Of the member's three SMDB deltas, those built in a recycled version
  // caught up from two before rather than copied whole (DbReplica's
  // counters): parsed tables and serialization.
  uint64_t smdb_catch_ups = 0, smdb_bytes_catch_ups = 0;
};

// A member's next SMDB delta applied, with the epochs and the digest its
// header names.
Status ApplySmdbDelta(tree::DbReplica<smdb::Smdb>* replica,
                      const std::shared_ptr<const std::string>& d);
// The deltas of the link coming back (the first SMDB's records at the next
// epoch) and going down again (the second's at the epoch after).
Status MoreSmdbDeltas(const SmdbPair& pair, std::vector<std::shared_ptr<const std::string>>* out);
// Three updates in a row; the first and the third are reported.
Status MeasureAccessUpdate(const SmdbPair& pair, size_t consumers, AccessUpdate* out);

}  // namespace bench
}  // namespace ssa

#endif
