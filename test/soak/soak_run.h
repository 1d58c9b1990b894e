// soak_run.h: the chaos soak with the SA as the oracle (issue 30;
// doc/soak.md). RunSoak brings up a whole SSA tree on a simulated fabric
// (test/sim/tree_harness.h: a master and a standby OpenSM with the plugin,
// a distribution node, two access nodes, three ibacm daemons with the ssa
// provider and `fallback = none`), then for the given duration executes
// the seed's events (soak_schedule.h) while clients resolve every LID
// through every daemon's acm.h socket and the oracle (soak_oracle.h)
// judges each answer against the SA's answers recorded for every state
// the core published. After the last event it measures how long the tree
// takes to converge (every daemon at the core's newest epoch, every
// answer equal to the SA's), stops every daemon cleanly and scans every
// log for sanitizer reports.
//
// Invariants (any violation fails the run; SoakResult::failures says
// which, with the event log to replay it):
//   - no wrong answer; errors for known destinations (fallback = none)
//     at most max_errors_known; no request left unanswered by a daemon
//     that was not killed or stopped;
//   - epochs never go backwards in any member's or daemon's life;
//   - no daemon exits unless killed on purpose; each one stopped at the
//     end exits 0; no sanitizer report in any log;
//   - every daemon's memory grows less than rss_limit_mb over its life;
//   - convergence within converge_limit_s of the last event.
//
// Runs on the calling thread (the fabric's rules: it must outlive the
// fabric's children), plus one client thread per daemon and one per burst.
#ifndef IBACM_SSA_TEST_SOAK_SOAK_RUN_H
#define IBACM_SSA_TEST_SOAK_SOAK_RUN_H

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/soak/soak_oracle.h"

namespace ssa {
namespace soak {

struct SoakOptions {
  uint64_t seed = 1;
  double duration_s = 60;
  // How late a once-correct answer may be (doc/soak.md says why 30 s).
  double stale_bound_s = 30;
  uint64_t max_errors_known = 0;
  double converge_limit_s = 60;  // fails beyond this; the goal is 10 s
  double rss_limit_mb = 64;
  int think_us = 2000;  // a client's pause between two requests
  // A failover's new SM gets a priority above the master's, so it takes
  // mastership from the running master at once (an SM handover) instead
  // of becoming its standby. Not in the default menu: see doc/soak.md,
  // "What the soak found".
  bool handover = false;
  // HCA links stay down 40-60 s, longer than the staleness bound (see
  // ScheduleOptions::long_outages).
  bool long_outages = false;
  // The fabric is a 4 x 3 torus routed by LASH, with the plugin's
  // route_sl_smdb_rows=0: the engine's SLs reach the access nodes only in
  // route-SL slices, and every answer's SL is checked against the SA's
  // (SoakLayout::Torus).
  bool torus_slices = false;
  FILE* progress = nullptr;  // progress lines and the event log as it goes
  double progress_every_s = 10;
};

struct SoakResult {
  bool passed = false;
  std::vector<std::string> failures;
  uint64_t seed = 0;
  double duration_s = 0;
  double wall_s = 0;  // bring-up to teardown
  int events = 0;
  std::map<std::string, int> events_by_kind;
  OracleCounts oracle;
  std::vector<std::string> oracle_problems;
  std::string stalest;  // the latest once-correct answer, with the SA's states
  // Of the answers judged, those libibssa_path gave from the shared-memory
  // tables (the rest of its answers came through the socket).
  uint64_t table_answers = 0;
  int bursts_judged = 0;
  uint64_t burst_requests = 0;
  int burst_failures = 0;
  double convergence_s = -1;  // -1: did not converge
  double max_rss_growth_mb = 0;
  std::string max_rss_growth_of;  // "ibacm Hca10 (pid 123, 1412 s)"
  std::string rss_report;         // one line per daemon instance that lived long enough
  int resweeps = 0;               // SIGHUPs for a sweep OpenSM did not make
  int sm_hangs = 0;               // masters that stopped sweeping and were failed over
  std::string sm_hang_stacks;     // their threads' stacks, for the record
  int epoch_regressions = 0;
  int unexpected_exits = 0;
  int sanitizer_reports = 0;
  uint64_t core_epoch = 0;  // the core's newest at the end
  std::string last_action;  // what convergence_s is measured from
  std::string event_log;    // the actions as executed, with their times
  std::string run_dir;      // kept when the run failed

  // `name = value` lines (events, resolves_checked, wrong_answers,
  // stale_answers, errors_known_destinations, convergence_s,
  // max_rss_growth_mb, ...), then the failures.
  std::string Summary() const;
};

// Only a harness problem (the fabric did not come up) is an error Status;
// an invariant that did not hold is a result with passed == false.
Status RunSoak(const SoakOptions& options, SoakResult* result);

}  // namespace soak
}  // namespace ssa

#endif
