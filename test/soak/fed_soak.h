// fed_soak.h: the chaos soak's federated mode (issue 48; doc/soak.md,
// "Federated mode"). RunFederatedSoak brings up subnet A (a fabric, an
// OpenSM with the plugin as core, a distribution and two access nodes,
// ibacm with the ssa provider and `fallback = none` on Hca6, a router and
// prefix routes to the others) and one or two peer subnets (a fabric and
// an OpenSM with the plugin each), every pair of cores federated; A's
// links to its peers go through relays the soak can cut (fed_relay.h).
// Then for the given duration it executes the seed's events
// (fed_schedule.h) while it resolves every name and IPv4 address of every
// peer through A's ibacm with the stock ib_acme, and judges each answer
// against the peer's history (JudgeFedAnswer). After the last event it
// measures how long A takes to serve exactly every peer's current
// entries, then stops everything.
//
// Invariants (any violation fails the run):
//   - no wrong answer, no entry served after it had to be withdrawn, no
//     error for an entry the peer announces once settled (fed_schedule.h);
//   - convergence within converge_limit_s of the end;
//   - every daemon stopped at the end exits 0, none exits by itself
//     (TreeHarness::Stop and IbacmNode::Stop judge, as the soak does).
//
// Runs on the calling thread (the fabric's rules), plus the relays'.
#ifndef IBACM_SSA_TEST_SOAK_FED_SOAK_H
#define IBACM_SSA_TEST_SOAK_FED_SOAK_H

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/soak/fed_schedule.h"

namespace ssa {
namespace soak {

// The schedule's options (seed, duration, peers, hold_s, settle_s) and the
// run's own; the run's default duration is shorter than the schedule's.
// settle_s is how long A may take to show a change of a peer (the peer
// rereads its hosts file every 2 s, A's link redials within 5 s, then the
// tree).
struct FedSoakOptions : FedScheduleOptions {
  FedSoakOptions() { duration_s = 30; }
  double converge_limit_s = 30;
  FILE* progress = nullptr;
};

struct FedSoakResult {
  bool passed = false;
  std::vector<std::string> failures;
  uint64_t seed = 0;
  double duration_s = 0, wall_s = 0;
  int events = 0;
  std::map<std::string, int> events_by_kind;
  std::map<std::string, uint64_t> verdicts;  // by FedVerdictName
  double convergence_s = -1;
  std::string event_log;
  std::string run_dir;  // A's run directory (the peers' are inside), kept when the run failed
  std::string Summary() const;
};

// Only a harness problem (a fabric did not come up) is an error Status.
Status RunFederatedSoak(const FedSoakOptions& options, FedSoakResult* result);

}  // namespace soak
}  // namespace ssa

#endif
