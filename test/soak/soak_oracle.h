// soak_oracle.h: the chaos soak's judge (issue 30). It holds the SA's
// answers recorded for each state of the fabric the core published (a
// snapshot: every (SLID, DLID) pair the clients ask, as the SA answered
// it), and classifies every answer a daemon gave against them.
//
// Time and validity. A snapshot is valid from the moment the change that
// led to it began (nothing could have it earlier) until the next snapshot
// that differs was recorded (nothing newer existed before). An answer sent
// at S and received at R is
//   - fresh  when it equals a snapshot valid at some time in [S, R];
//   - stale  when it equals one valid at some time in [S - bound, S): a
//            once-correct answer, at most `bound` late;
//   - wrong  otherwise (a path no SA state within the bound ever had).
// Equal means the fields ib_acme compares (util/ib_acme/path_compare.h);
// "no path" (ENODATA, or EDESTADDR) equals the SA's ERR_NO_RECORDS.
// An error for a destination the SA had a path to in every state within
// the bound counts apart: during the daemon's start (before its first
// PRDB, fallback = none) as a startup error, later as an error for a
// known destination. A daemon that refuses because its core has not
// confirmed its PRDB for longer than its bound (ENOTCONN, ibacm_ssa(7)
// stale_after_s) says it cannot vouch for the answer: counted apart
// (refused_unconfirmed), neither right nor wrong. A starting daemon's "no path" that only an older
// state shares is a startup error too, not a stale answer. A request that got no answer at all (the
// connection broke, or timed out) is excused while the daemon was killed or stopped on purpose, and
// counted as unanswered otherwise.
//
// Checking waits until the oracle is complete for the answer's time: every
// state valid then is recorded (SetCompleteUntil); so an answer from an
// epoch the oracle has not recorded yet is judged once it has.
//
// Unrecorded states. A snapshot takes time (a process, a query per pair),
// so a state the SA held for less than that (the master swept again
// before the snapshot was read) is never recorded; with LASH, whose SLs
// are drawn anew at every routing, such a state's answers match no other.
// The runner knows when that happened (the master swept more than once
// since the last recorded state) and says so when it adds the next one;
// an answer given within that interval that matches no recorded state is
// then unjudged (counted and reported), not wrong.
//
// Thread-safety: Submit from any thread; everything else from one thread
// (the runner's). Internally one mutex guards the queue.
#ifndef IBACM_SSA_TEST_SOAK_SOAK_ORACLE_H
#define IBACM_SSA_TEST_SOAK_SOAK_ORACLE_H

#include <infiniband/sa.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace ssa {
namespace soak {

using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;

// One pair as the SA answered it.
struct SaAnswer {
  bool path = false;  // false: no record
  ibv_path_record record{};
};
inline uint32_t PairKey(uint16_t slid, uint16_t dlid) {
  return (static_cast<uint32_t>(slid) << 16) | dlid;
}
using SaAnswers = std::map<uint32_t, SaAnswer>;  // PairKey -> answer

// One answer a daemon gave (or did not give).
struct DaemonAnswer {
  enum Kind : uint8_t {
    kPath,      // a path record
    kNoPath,    // ENODATA or EDESTADDR
    kRefused,   // ENOTCONN: the daemon's PRDB went unconfirmed by its core
                // past its bound (stale_after_s), so it would not vouch
    kError,     // another ACM status
    kNoAnswer,  // the connection broke or the request timed out
  };
  int daemon = 0;
  uint16_t slid = 0, dlid = 0;
  Kind kind = kNoAnswer;
  uint8_t status = 0;
  const char* client = "";  // which client asked ("socket", "tables"): for the report
  int error = 0;            // kNoAnswer: the errno the client saw, for the report
  Time sent, received;
  ibv_path_record record{};
};

// Per daemon, when errors and missing answers are excused.
struct Excuse {
  bool starting = false;   // before its first PRDB since it (re)started
  bool disrupted = false;  // killed, stopped or restarting on purpose
};
using ExcuseFn = std::function<Excuse(int daemon, Time sent, Time received)>;

struct OracleCounts {
  uint64_t checked = 0;  // answers judged (not counting kNoAnswer)
  uint64_t fresh = 0;
  uint64_t stale = 0;
  uint64_t wrong = 0;
  uint64_t errors_known = 0;         // an error for a known destination, after startup
  uint64_t errors_startup = 0;       // ... before the daemon's first PRDB
  uint64_t refused_unconfirmed = 0;  // kRefused: a clean "cannot vouch", not an error
  uint64_t unanswered = 0;           // no answer, daemon not disrupted
  uint64_t unanswered_excused = 0;
  uint64_t unjudged = 0;  // given while a state went unrecorded, matching no recorded one
  double max_stale_s = 0;
  size_t snapshots = 0;        // distinct SA states recorded
  size_t unrecorded_gaps = 0;  // intervals in which states went unrecorded
};

class Oracle {
 public:
  explicit Oracle(std::chrono::milliseconds stale_bound) : bound_(stale_bound) {}

  // A new SA state, recorded at `recorded`, possibly reached by a change
  // that began at `change_start`. Returns false (and records nothing new)
  // when it equals the current one. `label` names it in reports.
  // `unrecorded`: the SA held other states between change_start and
  // recorded that were never recorded (see "Unrecorded states").
  bool AddSnapshot(Time change_start, Time recorded, const std::string& label,
                   const SaAnswers& answers, bool unrecorded = false);
  // Every SA state valid up to `t` is recorded.
  void SetCompleteUntil(Time t);
  Time complete_until() const { return complete_until_; }
  bool has_snapshot() const { return !snaps_.empty(); }
  // The current state's answer for a pair (nullptr if none).
  const SaAnswer* Current(uint16_t slid, uint16_t dlid) const;
  const std::string& current_label() const;

  void Submit(const DaemonAnswer& answer);
  // Judges every submitted answer received by complete_until().
  void CheckReady(const ExcuseFn& excuse);
  size_t pending() const;

  const OracleCounts& counts() const { return counts_; }
  // The first problems (wrong answers, errors, unanswered), one line each.
  const std::vector<std::string>& problems() const { return problems_; }
  // The first unjudged answers, as a problem line would say them.
  const std::vector<std::string>& unjudged_examples() const { return unjudged_examples_; }
  // The latest of the stale answers, as a problem line would say it.
  const std::string& stalest() const { return stalest_; }
  // Names of the daemons, by index, for the reports.
  void set_names(std::vector<std::string> names) { names_ = std::move(names); }

  // "no path" or the record's fields.
  static std::string Describe(const SaAnswer& a);
  static bool Same(const SaAnswer& a, const SaAnswer& b);

 private:
  struct Snapshot {
    Time from, to;  // to: Time::max() while current
    Time recorded;
    std::string label, first_label;
    int merged = 0;  // equal states recorded after it (epochs that changed no answer)
    SaAnswers answers;
  };
  void Judge(const DaemonAnswer& a, const ExcuseFn& excuse);
  void Problem(const std::string& what);
  std::string SaHistory(uint32_t pair, Time sent) const;

  std::chrono::milliseconds bound_;
  std::vector<Snapshot> snaps_;
  struct Gap {
    Time from, to;
  };
  std::vector<Gap> gaps_;  // where states went unrecorded, oldest first
  bool InGap(Time sent, Time received) const;
  Time complete_until_{};
  Time origin_{};  // the first snapshot's time, for reports
  OracleCounts counts_;
  std::vector<std::string> problems_;
  std::vector<std::string> unjudged_examples_;
  std::string stalest_;
  std::vector<std::string> names_;
  mutable std::mutex mu_;
  std::deque<DaemonAnswer> queue_;  // guarded by mu_
};

}  // namespace soak
}  // namespace ssa

#endif
