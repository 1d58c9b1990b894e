// core_confirmation.h: when the core last confirmed that what a consumer
// holds is current (doc/ssa-tree.md, "A consumer cut off from the core").
//
// A consumer's PRDB is what the SA would answer only while the tree
// follows the SM. Every accepted join and renewal (every renew_s, a third
// of the lease) carries the core's epoch at that moment; so does each
// answer after an SM failover, from the new master's core. The consumer's
// PRDB carries its SMDB's epoch, and epochs never go back within one
// lineage (doc/ssa-tree.md, "Epochs that never go back"). So an answer at
// time R with core epoch E confirms the PRDB as current at R when
//   - the consumer holds epoch E then, or
//   - it holds less, and a PRDB of epoch E or later arrives afterwards
//     (the tree was catching up: the PRDB is current as of R, not later).
// An answer with E below what the consumer holds confirms nothing: that
// core numbers another lineage (a new master's core before it renumbers
// above its members' epochs).
//
// The ssa provider stops answering from a PRDB that has gone unconfirmed
// for longer than its bound (stale_after_s) while an SM runs: the core
// answers but the tree below it does not deliver, or a new master's core
// does not take the consumer in. Each confirmation keeps the SM LID it
// came through, so the consumer can tell "no SM at all" apart
// (Consumer::sm_silent_since_confirmed). Pure: the caller passes the
// times; any thread, one at a time.
#ifndef IBACM_SSA_COMMON_TREE_CORE_CONFIRMATION_H
#define IBACM_SSA_COMMON_TREE_CORE_CONFIRMATION_H

#include <chrono>
#include <cstdint>

namespace ssa {
namespace tree {

class CoreConfirmation {
 public:
  using Time = std::chrono::steady_clock::time_point;

  // An accepted join or renewal answered at `at` with the core's epoch;
  // `held`: the epoch of the PRDB the consumer holds then (0: none);
  // `sm_lid`: where the join went (the master SM's LID then).
  void OnCoreAnswer(Time at, uint64_t core_epoch, uint64_t held, uint16_t sm_lid = 0);
  // The consumer now holds a PRDB of epoch `held`.
  void OnHeld(uint64_t held);

  // Whether the core ever confirmed the PRDB held, and when last.
  bool confirmed() const { return confirmed_; }
  Time confirmed_at() const { return confirmed_at_; }
  // The master SM's LID of the confirming answer.
  uint16_t confirmed_sm_lid() const { return confirmed_sm_lid_; }
  // Seconds since then at `now` (a large number when never).
  double AgeSeconds(Time now) const;

 private:
  bool confirmed_ = false;
  Time confirmed_at_{};
  uint16_t confirmed_sm_lid_ = 0;
  // The newest answer that named an epoch the consumer did not hold yet.
  bool pending_ = false;
  Time pending_at_{};
  uint64_t pending_epoch_ = 0;
  uint16_t pending_sm_lid_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
