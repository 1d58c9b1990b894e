// fed_schedule.h: the federated soak's events and its judge (doc/soak.md,
// "Federated mode"). Subnet A (with the tree and ibacm) is federated with
// one or two peers (B, C); the events are federation-specific, drawn from
// the seed alone (the same seed replays the same events), one at a time:
//   - link_cut: the federation link between A and a peer cut, restored
//     after a time shorter than hold_s (A holds the peer's entries, then
//     resyncs) or longer (A withdraws them, then resyncs);
//   - peer_restart: a peer's subnet (its OpenSM and core) stopped and
//     started again, sometimes with a node gone or back meanwhile;
//   - node_leaves: a node leaves a peer's hosts file, or comes back;
//   - address_moves: a peer's moving address (10.<r+2>.0.2) goes to
//     another of its nodes;
//   - ibacm_restart: A's ibacm SIGKILLed and started again.
//
// The judge takes what A's ibacm answered for a peer's name or IPv4
// address at a time, and the peer's history (the hosts file's versions,
// the link's breaks) and says whether A was allowed to answer it:
//   - an answer (a GID) must be one the peer announced within the settle
//     time L before it, or the one held since a break that is not yet
//     hold_s + L old; after that, the break still on, A must answer
//     nothing of the peer (served_withdrawn);
//   - an error is a failure (missing_settled) only once settled: the link
//     up, the peer's file unchanged and A's ibacm running for L, the
//     name or address in the peer's file.
//
// Pure values and functions; any thread.
#ifndef IBACM_SSA_TEST_SOAK_FED_SCHEDULE_H
#define IBACM_SSA_TEST_SOAK_FED_SCHEDULE_H

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ssa {
namespace soak {

enum class FedEventKind { kLinkCut, kPeerRestart, kNodeLeaves, kAddressMoves, kIbacmRestart };
constexpr int kFedEventKinds = 5;
const char* FedEventKindName(FedEventKind kind);  // "link_cut", ...

// A peer's hosts file: its nodes present (of 1..3) and which one has the
// moving address.
struct PeerHosts {
  std::vector<int> nodes = {1, 2, 3};
  int moving_on = 2;
  bool operator==(const PeerHosts& o) const { return nodes == o.nodes && moving_on == o.moving_on; }
};

struct FedEvent {
  FedEventKind kind = FedEventKind::kLinkCut;
  double at_s = 0;         // not before
  double for_s = 0;        // link_cut: how long the link stays cut
  int peer = 0;            // 0: B, 1: C (not for ibacm_restart)
  bool past_hold = false;  // link_cut: longer than hold_s
  PeerHosts hosts;         // the peer's file after the event (node_leaves,
                           // address_moves; peer_restart: written while down)
  bool hosts_change = false;
  std::string Describe() const;
};

struct FedScheduleOptions {
  uint64_t seed = 1;
  double duration_s = 40;  // no event starts after this
  int peers = 1;
  int hold_s = 3;
  double settle_s = 10;  // L: see the judge
};

// The events by time; the first kFedEventKinds cover every kind once in a
// seeded order, and the first link cut lasts past hold_s (a short run
// sees a withdrawal and the resync after it).
std::vector<FedEvent> MakeFedSchedule(const FedScheduleOptions& o);

// What the judge knows of one peer, as the soak made it happen.
struct PeerHistory {
  struct Version {
    double from_s;
    std::map<std::string, std::string> entries;  // "bnode1", "10.2.0.1" -> GID text
  };
  std::vector<Version> versions;  // by time; the first from 0
  struct Break {
    double from_s;
    double to_s = std::numeric_limits<double>::infinity();  // still on
  };
  std::vector<Break> breaks;
};

struct Interval {
  double from_s;
  double to_s = std::numeric_limits<double>::infinity();
};

struct FedAnswer {
  double asked_s = 0, answered_s = 0;
  std::string key;  // "bnode1", "10.2.0.3"
  bool error = false;
  std::string gid;  // when !error
};

enum class FedVerdict {
  kFresh,            // the peer's entry now (or its absence, answered as an error)
  kHeld,             // an older entry the rules allow (settling, or held in a break)
  kExcusedError,     // an error while not settled
  kWrong,            // a GID the peer never announced for it within the bounds
  kServedWithdrawn,  // a GID while A had to have withdrawn the peer's entries
  kMissingSettled,   // an error for an entry the peer announces, settled
};
const char* FedVerdictName(FedVerdict v);
bool FedVerdictFails(FedVerdict v);

FedVerdict JudgeFedAnswer(const PeerHistory& peer, const std::vector<Interval>& ibacm_down,
                          double hold_s, double settle_s, const FedAnswer& a);

}  // namespace soak
}  // namespace ssa

#endif
