// epoch_watch.h: does a joining member hold a database of another core?
//
// Epochs identify database versions only within one core's history (one
// dump directory). After an SM failover the new master's plugin starts
// from its own directory, maybe from nothing; its epochs could repeat or
// fall below what members hold from the old core, and a member would take
// a different database under an epoch it already had, or see epochs go
// backwards. Joins carry each member's epochs and digests (ssa_mad.h); a
// member holding a higher epoch than the core, or the same epoch with
// another digest, holds another core's database, and the core must
// continue its epochs after it (CoreServerOptions::on_epochs_ahead).
//
// Consumers hold PRDBs, whose digests say nothing about the SMDB: only
// their SMDB epoch numbers count. Epochs more than kMaxEpochJump above the
// core's are ignored, so that one member cannot push them to the end of
// the range.
//
// Pure logic; the core's loop thread.
#ifndef IBACM_SSA_COMMON_TREE_EPOCH_WATCH_H
#define IBACM_SSA_COMMON_TREE_EPOCH_WATCH_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

constexpr uint64_t kMaxEpochJump = 1ull << 40;

class EpochWatch {
 public:
  // What the core serves now.
  void SetSmdb(uint64_t epoch, uint32_t digest) { smdb_ = {epoch, digest}; }
  void SetAddr(uint64_t epoch, uint32_t digest) { addr_ = {epoch, digest}; }

  // True when `r` shows a database of another core not reported before;
  // *smdb and *addr then get the highest such epochs so far (0: none), and
  // `notes` one line per finding (also for ignored claims), for the log.
  bool Consider(const JoinRequest& r, uint64_t* smdb, uint64_t* addr,
                std::vector<std::string>* notes);

 private:
  struct Held {
    uint64_t epoch = 0;
    uint32_t digest = 0;
  };
  bool Check(const char* what, uint64_t guid, uint64_t theirs, const uint32_t* digest,
             const Held& ours, uint64_t* ahead, std::vector<std::string>* notes);

  Held smdb_, addr_;
  uint64_t smdb_ahead_ = 0, addr_ahead_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
