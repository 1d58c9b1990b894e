// soak_events.cc: the faults the runner injects: kills, stops, restarts
// with faults, link changes, SM failovers, client bursts.
#include "test/soak/soak_runner.h"

#include <dirent.h>
#include <endian.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdarg>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "test/sim/acm_load.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_harness.h"
#include "test/soak/soak_clients.h"
#include "test/soak/soak_schedule.h"

namespace ssa {
namespace soak {
namespace run {

void Runner::KillMember(Member* m, int sig) {
  SimProcess* p = m->ibssa() ? tree_->process(m->node) : m->ibacm->process();
  if (!p || m->state == Member::kDead) return;
  Interval i{Clock::now(), Time::max()};
  m->disrupted.push_back(i);
  Status st = p->Kill(sig);
  if (!st.ok()) Fail(m->node + ": " + st.ToString());
  if (sig == SIGKILL) {
    int status = 0;
    st = p->Wait(10s, &status);
    if (!st.ok()) Fail(m->node + " did not die of SIGKILL: " + st.ToString());
    m->state = Member::kKilled;
  } else {
    m->state = Member::kStopped;
  }
}

void Runner::RestartMember(Member* m, const std::string& faults) {
  if (m->state == Member::kDead) return;
  if (m->state == Member::kRunning) {
    // A clean restart: SIGTERM, and it must exit 0.
    m->disrupted.push_back({Clock::now(), Time::max()});
    SimProcess* p = m->ibssa() ? tree_->process(m->node) : m->ibacm->process();
    int status = -1;
    Status st = p->Kill(SIGTERM);
    if (st.ok()) st = p->Wait(20s, &status);
    if (!st.ok() || status != 0)
      Fail(Printf("%s on %s did not stop cleanly on SIGTERM (%s, exit %d)", m->role.c_str(),
                  m->node.c_str(), st.ToString().c_str(), status));
  }
  Status st = StartMember(m, faults);
  if (!m->disrupted.empty()) m->disrupted.back().to = Clock::now() + 1s;
  if (!st.ok()) {
    ++r_->unexpected_exits;
    m->state = Member::kDead;
    Fail("restarting " + m->node + ": " + st.ToString());
  }
}

void Runner::LinkChange(const Action& a) {
  // One change per sweep (OpenSM misses a link event that comes while it
  // still sweeps the last one), and the oracle records each state.
  if (Master() && change_pending_ && !PollForSms(60s, [&] { return !change_pending_; }))
    Fail(
        "the fabric did not settle within 60 s after a change or the last SM stall handled "
        "(master " +
        MasterName() + ")");
  BeginChange();
  std::string node = a.target;
  int port = 0;
  size_t colon = a.target.find(':');
  if (colon != std::string::npos) {
    node = a.target.substr(0, colon);
    port = atoi(a.target.c_str() + colon + 1);
  }
  Status st = a.kind == ActionKind::kLinkDown ? tree_->fabric()->LinkDown(node, port)
                                              : tree_->fabric()->LinkUp(node, port);
  if (!st.ok()) Fail("link " + a.target + ": " + st.ToString());
}

void Runner::KillMaster() {
  // A master and a standby, or the kill leaves the fabric without an SM.
  if (!PollForSms(60s, [&] { return Master() && Standby(); })) {
    Fail("no master and standby SM to fail over between (master " + MasterName() + ")");
    return;
  }
  KillMasterNow();
}

bool Runner::KillMasterNow() {
  SmProc* m = Master();
  if (!m || !Standby()) return false;
  BeginChange();
  master_killed_at_ = Clock::now();
  dead_master_node_ = m->node;
  Status st;
  if (m->fabric_owned) {
    st = tree_->fabric()->KillSm(SIGKILL);
  } else {
    SimProcess* p = tree_->process(m->node);
    st = p->Kill(SIGKILL);
    int status = 0;
    if (st.ok()) st = p->Wait(10s, &status);
    // The standby takes over only once the dead master's ibsim client is
    // released (doc/simulated-fabric.md).
    if (st.ok()) st = tree_->fabric()->ReleaseDeadClients();
  }
  if (!st.ok()) Fail("killing the master OpenSM: " + st.ToString());
  m->killed = true;
  master_ = -1;
  awaiting_takeover_ = true;
  rescued_takeover_ = false;
  return true;
}

// A standby that has not taken over 60 s after the master died is stuck in
// DISCOVERING the same way (an SMP it sent toward the dead master before
// the dead client was released, never answered nor timed out: the
// takeover hangs, doc/simulated-fabric.md; seen under ASan). Restarted,
// with the dead master's client gone, it comes up as the master.
void Runner::RescueTakeover() {
  rescued_takeover_ = true;
  SmProc* stuck = nullptr;
  for (SmProc& sm : sms_)
    if (sm.alive()) stuck = &sm;
  if (!stuck) return;
  std::string node = stuck->node;
  int priority = stuck->priority;
  Log("the standby on " + node + " has not taken over 60 s after the kill: restarting it");
  r_->sm_hang_stacks += test::ThreadStacks(stuck->pid) + "\n";
  ++r_->sm_hangs;
  SimProcess* p = tree_->process(node);
  int status = 0;
  Status st = p->Kill(SIGKILL);
  if (st.ok()) st = p->Wait(10s, &status);
  if (st.ok()) st = tree_->fabric()->ReleaseDeadClients();
  stuck->killed = true;
  std::string log = stuck->log.path;
  size_t from = FileSize(log);
  if (st.ok()) st = tree_->StartStandbySm(node, priority, /*wait=*/false);
  if (!st.ok()) {
    Fail("restarting the stuck standby on " + node + ": " + st.ToString());
    return;
  }
  AddSm(node, log, from, tree_->standby().dump_dir(), false, tree_->process(node)->pid(), priority);
}

// A master whose state manager waits for an SMP that neither completes nor
// times out (umad2sim has no send timeouts: doc/simulated-fabric.md) never
// sweeps again, and its SA stops answering; seen once in a 30-minute run,
// right after a new standby started (gdb: osm_state_mgr_process waiting in
// wait_for_pending_transactions). Not the tree's doing, and nothing in the
// fabric would end it: the runner fails the master over as an operator
// would, and counts it.
void Runner::RecoverHungMaster(const std::string& why) {
  SmProc* m = Master();
  if (!m) return;
  std::string node = m->node;
  std::string stacks = test::ThreadStacks(m->pid);
  if (!KillMasterNow()) {
    Fail("the master SM on " + node + " hangs (" + why + ") and there is no standby\n" + stacks);
    done_ = true;
    return;
  }
  ++r_->sm_hangs;
  Log("the master SM on " + node + " hangs (" + why + "): killed, the standby takes over");
  r_->sm_hang_stacks += stacks + "\n";
  hang_recovery_ = true;
}

void Runner::StartStandby() {
  if (dead_master_node_.empty()) return;
  // Under load a takeover has taken over 30 s (tree_fault_sim_test).
  if (!PollFor(180s, [&] { return Master() != nullptr; })) {
    std::string logs;
    for (const SmProc& sm : sms_)
      if (sm.alive()) logs += "\n" + sm.node + ":\n" + test::TailOfFile(sm.log.path, 2000);
    Fail("no SM took over within 180 s of the master's death" + logs);
    done_ = true;
    return;
  }
  // The new SM must be "lower" than the master (OpenSM: priority, then the
  // higher GUID), or it takes the master's place at once: a handover,
  // which is not this event.
  const SmProc& m = *Master();
  std::string node = dead_master_node_;
  dead_master_node_.clear();
  int priority = tree_->PortGuid(node) > tree_->PortGuid(m.node) ? m.priority : m.priority - 1;
  if (o_.handover) {
    // Greater by the GUID at the same priority: OpenSM on ibsim takes
    // over at once (the new SM enters MASTER, the master then STANDBY).
    // By a higher priority it negotiates a handover that hangs on ibsim
    // (the new SM stays DISCOVERING, the master stops sweeping).
    priority =
        tree_->PortGuid(node) < tree_->PortGuid(m.node) ? m.priority : std::min(15, m.priority + 1);
    BeginChange();  // the new master routes anew
  }
  if (priority < 0) {
    Log("no new standby: every SM priority below the master's is used");
    return;
  }
  std::string log = dir_.path() + "/" + node + "-opensm/opensm.log";
  size_t from = FileSize(log);
  Status st = tree_->StartStandbySm(node, priority, /*wait=*/false);
  if (!st.ok()) {
    Fail("starting a standby OpenSM on " + node + ": " + st.ToString());
    return;
  }
  // (Before AddSm: `m` refers into sms_, which AddSm may reallocate.)
  Log(Printf("  a new SM on %s with priority %d (the master's is %d)%s", node.c_str(), priority,
             m.priority, o_.handover ? ": a handover" : ""));
  AddSm(node, log, from, tree_->standby().dump_dir(), false, tree_->process(node)->pid(), priority);
}

void Runner::BurstStart(const Action& a) {
  Member* m = FindMember(a.target);
  if (!m || !m->ibacm) return;
  test::AcmLoadOptions lo;
  lo.socket = m->ibacm->socket_path();
  lo.clients = atoi(a.arg.c_str());
  lo.source.flags = acm::kEpFlagSource;
  lo.source.SetName("node" + m->node.substr(3));
  for (size_t i = 0; i + 1 < lids_.size(); ++i) {
    acm::EpAddr d;
    d.flags = acm::kEpFlagDest;
    d.type = acm::kAddrLid;
    d.SetLid(lids_[i]);
    lo.destinations.push_back(d);
  }
  // Its own end, not BurstEnd's: acm_load drains for `drain` after the
  // duration, so a burst told to stop while its daemon is SIGSTOPped
  // would wait for that daemon until the duration's end, and the daemon
  // is continued only by this thread.
  const Event& e = schedule_.events[static_cast<size_t>(a.event)];
  lo.duration = std::chrono::milliseconds(static_cast<long>((e.end_s - e.at_s) * 1000));
  lo.drain = 3s;
  lo.think = 10ms;
  Burst b;
  b.start = Clock::now();
  b.load = std::make_unique<test::AcmLoadThread>(lo);
  bursts_[a.target] = std::move(b);
}

void Runner::BurstEnd(const Action& a) {
  auto it = bursts_.find(a.target);
  if (it == bursts_.end()) return;
  test::AcmLoadResult r;
  Status st = it->second.load->Finish(true, &r);
  Time start = it->second.start;
  bursts_.erase(it);
  Member* m = FindMember(a.target);
  bool disrupted = false;
  for (const Interval& i : m->disrupted)
    if (i.from <= Clock::now() && i.to >= start) disrupted = true;
  r_->burst_requests += r.sent;
  Log("  burst on " + a.target + ": " + (st.ok() ? r.Describe() : st.ToString()) +
      (disrupted ? " (the daemon was disrupted: not judged)" : ""));
  if (disrupted) return;
  ++r_->bursts_judged;
  if (!st.ok() || r.answered != r.sent || r.lost || r.closed || r.unexpected || r.malformed) {
    ++r_->burst_failures;
    Fail("a client burst on " + a.target +
         " lost answers: " + (st.ok() ? r.Describe() : st.ToString()));
  }
}

void Runner::Execute(const Action& a) {
  const Event& e = schedule_.events[static_cast<size_t>(a.event)];
  r_->last_action = Printf("#%d %s %s%s%s (%s%s%s)", a.event, ActionKindName(a.kind),
                           a.target.c_str(), a.arg.empty() ? "" : " ", a.arg.c_str(),
                           EventKindName(e.kind), e.detail.empty() ? "" : ", ", e.detail.c_str());
  Log(r_->last_action);
  if (!counted_[static_cast<size_t>(a.event)]) {  // an event counts at its first action
    counted_[static_cast<size_t>(a.event)] = true;
    ++r_->events;
    ++r_->events_by_kind[EventKindName(e.kind)];
  }
  switch (a.kind) {
    case ActionKind::kLinkDown:
    case ActionKind::kLinkUp: LinkChange(a); break;
    case ActionKind::kKill: KillMember(FindMember(a.target), SIGKILL); break;
    case ActionKind::kStop: KillMember(FindMember(a.target), SIGSTOP); break;
    case ActionKind::kCont: {
      Member* m = FindMember(a.target);
      if (m->state != Member::kStopped) break;
      SimProcess* p = m->ibssa() ? tree_->process(m->node) : m->ibacm->process();
      Status st = p->Kill(SIGCONT);
      if (!st.ok()) Fail(m->node + ": SIGCONT: " + st.ToString());
      m->state = Member::kRunning;
      m->disrupted.back().to = Clock::now() + 1s;
      break;
    }
    case ActionKind::kRestart: RestartMember(FindMember(a.target), ""); break;
    case ActionKind::kRestartFaulty: RestartMember(FindMember(a.target), a.arg); break;
    case ActionKind::kKillMaster: KillMaster(); break;
    case ActionKind::kStartStandby: StartStandby(); break;
    case ActionKind::kBurstStart: BurstStart(a); break;
    case ActionKind::kBurstEnd: BurstEnd(a); break;
  }
}

}  // namespace run
}  // namespace soak
}  // namespace ssa
