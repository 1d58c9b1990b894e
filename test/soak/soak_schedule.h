// soak_schedule.h: the chaos soak's event sequence (issue 30), a pure
// function of the seed and the duration: the same seed replays the same
// events, in the same order, on the same targets, with the same durations
// and fault specs.
//
// An event is one item of the menu; it is made of actions at times from
// the soak's start (kill at t, restart at t + d). The runner executes the
// actions in order, never before their time; an action that must wait
// (a link change while the previous one is still being swept) delays the
// ones after it, but never changes the order or what they do.
//
// The generator keeps the fabric in shapes the tree is meant to survive:
// a target takes one event at a time; at most one switch uplink is down
// (two could cut the fat tree in two: partitions are not in the menu);
// one SM failover at a time (and 30 s of calm for the SMs after it); the
// first events cover every kind of the menu
// once (in a seeded order), so any run of a dozen events exercises it all.
//
// Pure functions and values; any thread.
#ifndef IBACM_SSA_TEST_SOAK_SOAK_SCHEDULE_H
#define IBACM_SSA_TEST_SOAK_SOAK_SCHEDULE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssa {
namespace soak {

enum class EventKind {
  kLinkDownUp,     // a link down for a while, then up
  kPortFlap,       // a switch uplink port down and up, several times in a row
  kKillRestart,    // a member (ibssa or ibacm) SIGKILLed, restarted later
  kStopCont,       // a member SIGSTOPped, SIGCONTinued later
  kFailover,       // the master SM SIGKILLed; the standby takes over; a new standby
  kFaultyRestart,  // an ibssa restarted with MAD or data-channel faults, later clean
  kClientBurst,    // a burst of extra clients on one ibacm
};
constexpr int kEventKinds = 7;
const char* EventKindName(EventKind kind);  // "link_down_up", ...

enum class ActionKind {
  kLinkDown,  // target: "Hca6" (the HCA's link) or "L1:7" (a switch port)
  kLinkUp,
  kKill,     // target: a member's node
  kRestart,  // target: a member's node, started again without faults
  kStop,
  kCont,
  kKillMaster,     // the master SM
  kStartStandby,   // a new standby SM where the killed master ran
  kRestartFaulty,  // target: an ibssa node; arg: its fault option line
  kBurstStart,     // target: an ibacm node; arg: the number of clients
  kBurstEnd,
};
const char* ActionKindName(ActionKind kind);

struct Action {
  double at_s = 0;  // from the soak's start
  int event = 0;    // index into Schedule::events
  ActionKind kind = ActionKind::kKill;
  std::string target;
  std::string arg;
};

struct Event {
  EventKind kind = EventKind::kKillRestart;
  double at_s = 0;
  double end_s = 0;  // when its last action is due
  std::string target;
  std::string detail;  // "for 4.2 s", the fault spec, ...
};

// The tree the schedule is made for: who runs where (the runner starts
// exactly these).
struct SoakLayout {
  std::string sm_a = "Hca1";   // the fabric's OpenSM (first master)
  std::string sm_b = "Hca12";  // the first standby
  std::string distribution = "Hca2";
  std::vector<std::string> access = {"Hca3", "Hca8"};
  std::vector<std::string> ibacm = {"Hca5", "Hca7", "Hca10"};
  // ibacm daemons never killed or restarted (only stopped, given bursts):
  // their memory is measured over the whole run.
  std::vector<std::string> long_lived = {"Hca10"};
  std::string oracle = "Hca4";  // where the SA snapshots are taken from
  // Links that may go down: HCAs that run nothing, and switch uplinks.
  std::vector<std::string> hca_links = {"Hca6", "Hca9", "Hca11"};
  std::vector<std::string> uplinks = {"L1:7", "L1:8", "L2:7", "L2:8"};
  std::vector<std::string> Members() const;  // distribution, access, ibacm
  bool IsIbssa(const std::string& node) const;
  // The same nodes on soak's torus (SoakOptions::torus_slices): a 4 x 3
  // torus, one HCA per switch (Hca1..Hca12), whose switch-to-switch ports
  // are the uplinks that may go down (TorusNet: HCA port 1, then +i, -i,
  // +j, -j).
  static SoakLayout Torus();
};

struct ScheduleOptions {
  uint64_t seed = 1;
  double duration_s = 60;  // no event starts after this
  double first_s = 2;      // the first event
  double min_gap_s = 1;    // between event starts
  double max_gap_s = 4;
  // Each failover's new standby needs a priority below the master's
  // (soak_run.cc): 11 levels, two failovers each.
  int max_failovers = 20;
  // An HCA link stays down 40-60 s instead of 2-10 s: longer than the
  // oracle's staleness bound, so a path the tree keeps to a port that
  // left counts as wrong instead of stale. Not in the default menu: see
  // doc/soak.md, "What the soak found".
  bool long_outages = false;
};

struct Schedule {
  std::vector<Event> events;
  std::vector<Action> actions;  // by time (ties: in the order made)
  // One line per action: "  12.3 s  #4 kill Hca3 (kill_restart)".
  std::string Describe() const;
};

Schedule MakeSchedule(const ScheduleOptions& options, const SoakLayout& layout);

}  // namespace soak
}  // namespace ssa

#endif
