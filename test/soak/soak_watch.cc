// soak_watch.cc: the runner watching: the SMs and who is master, the
// oracle's SA states, the daemons' logs, liveness and memory, progress.
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

void Runner::Poll() {
  PollSms();
  if (awaiting_takeover_ && !Master() && Since(master_killed_at_) >= 60 && !rescued_takeover_)
    RescueTakeover();
  if (hang_recovery_ && Master()) {
    hang_recovery_ = false;
    StartStandby();
  }
  SyncOracle();
  for (auto& m : members_) PollLogs(m.get());
  PollLiveness();
  if (Since(last_rss_) >= 2) PollRss();
  oracle_.CheckReady([this](int d, Time s, Time r) { return ExcuseFor(d, s, r); });
  if (o_.progress && Since(last_progress_) >= o_.progress_every_s) Progress();
}

void Runner::AddSm(const std::string& node, const std::string& log, size_t log_from,
                   const std::string& dump_dir, bool fabric_owned, pid_t pid, int priority) {
  SmProc sm;
  sm.node = node;
  sm.log.path = log;
  sm.log.parsed = log_from;
  sm.dump_dir = dump_dir;
  sm.fabric_owned = fabric_owned;
  sm.pid = pid;
  sm.priority = priority;
  sms_.push_back(sm);
  AddSmLife(node, pid);
}

SmProc* Runner::Standby() {
  for (size_t i = 0; i < sms_.size(); ++i)
    if (static_cast<int>(i) != master_ && sms_[i].alive() && sms_[i].state == SmProc::kStandby)
      return &sms_[i];
  return nullptr;
}

// Follows every live OpenSM's log: its state (DISCOVERING, STANDBY,
// MASTER) and its sweeps. The master is the one SM in MASTER state that
// has swept since it got there; while two claim it (a handover under way)
// there is none.
void Runner::PollSms() {
  for (SmProc& sm : sms_) {
    if (!sm.alive()) continue;
    std::string text = sm.log.NewLines();
    size_t line = 0;
    for (size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', line)) {
      std::string l = text.substr(line, nl - line);
      line = nl + 1;
      if (l.find("Entering MASTER state") != std::string::npos) {
        sm.state = SmProc::kMaster;
        sm.swept_as_master = false;
        sm.ups_at_master = sm.ups;
      } else if (l.find("Entering STANDBY state") != std::string::npos) {
        sm.state = SmProc::kStandby;
      } else if (l.find("Entering DISCOVERING state") != std::string::npos) {
        sm.state = SmProc::kDiscovering;
      } else if (l.find("SUBNET UP") != std::string::npos) {
        ++sm.ups;
        if (sm.state == SmProc::kMaster) sm.swept_as_master = true;
      }
    }
  }
  int master = -1, masters = 0;
  for (size_t i = 0; i < sms_.size(); ++i) {
    if (!sms_[i].alive() || sms_[i].state != SmProc::kMaster) continue;
    ++masters;
    if (sms_[i].swept_as_master) master = static_cast<int>(i);
  }
  if (masters != 1) master = -1;
  if (master == master_) return;
  int was = master_;
  master_ = master;
  if (master < 0) {
    if (was >= 0 && sms_[static_cast<size_t>(was)].alive())
      Log("the master SM on " + sms_[static_cast<size_t>(was)].node + " is no longer the only one");
    return;
  }
  const SmProc& m = sms_[static_cast<size_t>(master)];
  if (awaiting_takeover_)
    Log(Printf("the SM on %s took over as master, %.1f s after the kill", m.node.c_str(),
               Since(master_killed_at_)));
  else if (was >= 0 || r_->events > 0)
    Log(Printf("the SM on %s is the master now (priority %d)", m.node.c_str(), m.priority));
  awaiting_takeover_ = false;
}

OracleKey Runner::ReadKey() {
  OracleKey k;
  SmProc* m = Master();
  if (!m) return k;
  k.master = m->node + "#" + std::to_string(m->pid);
  k.ups = m->ups;
  std::vector<uint64_t> v = test::ListVersions(m->dump_dir);
  k.epoch = v.empty() ? 0 : v.back();
  return k;
}

bool Runner::MissedStates(const OracleKey& k) const {
  if (last_key_.master.empty()) return false;
  if (k.master == last_key_.master) return k.ups > last_key_.ups + 1;
  // Another master: the old one's sweeps after the last recorded state,
  // and the new one's before this one, were never recorded.
  for (const SmProc& sm : sms_) {
    const std::string key = sm.node + "#" + std::to_string(sm.pid);
    if (key == last_key_.master && sm.ups > last_key_.ups) return true;
    if (key == k.master && k.ups - sm.ups_at_master > 1) return true;
  }
  return false;
}

uint64_t Runner::CoreEpoch() {
  if (!Master()) return 0;
  std::vector<uint64_t> v = test::ListVersions(Master()->dump_dir);
  return v.empty() ? 0 : v.back();
}

Status Runner::TakeSnapshot(SaAnswers* out) {
  out->clear();
  auto list = [](const std::vector<uint16_t>& v) {
    std::string s;
    for (uint16_t l : v) s += (s.empty() ? "" : ",") + std::to_string(l);
    return s;
  };
  std::string text;
  int rc = -1;
  Status st = tree_->fabric()->Run(layout_.oracle,
                                   {kSnapshotTool, "--slids", list(slids_), "--dlids", list(lids_)},
                                   &text, &rc, 60s);
  if (!st.ok()) return st;
  if (rc != 0)
    return Status::Error(EIO, "soak-sa-snapshot: exit " + std::to_string(rc) + ":\n" + text);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    unsigned s = 0, d = 0;
    char kind[16] = {0};
    int used = 0;
    if (sscanf(line.c_str(), "%u %u %15s %n", &s, &d, kind, &used) < 3) continue;
    SaAnswer a;
    if (!strcmp(kind, "path")) {
      std::string hex = line.substr(static_cast<size_t>(used));
      if (hex.size() < 2 * sizeof(a.record)) return Status::Error(EIO, "short record: " + line);
      uint8_t* p = reinterpret_cast<uint8_t*>(&a.record);
      for (size_t i = 0; i < sizeof(a.record); ++i)
        p[i] = static_cast<uint8_t>(strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16));
      a.path = true;
    } else if (strcmp(kind, "none") != 0) {
      return Status::Error(EIO, "SA snapshot: " + line);
    }
    (*out)[PairKey(static_cast<uint16_t>(s), static_cast<uint16_t>(d))] = a;
  }
  if (out->size() != slids_.size() * lids_.size())
    return Status::Error(EIO, "SA snapshot: " + std::to_string(out->size()) + " pairs of " +
                                  std::to_string(slids_.size() * lids_.size()));
  return Status::Ok();
}

void Runner::BeginChange() {
  if (change_pending_) return;  // the earliest start counts
  change_pending_ = true;
  change_start_ = Clock::now();
  change_key_ = Master() ? ReadKey() : last_key_;
  change_swept_at_ = Time::max();
  resweep_sent_ = false;
}

// Brings the oracle up to date (see doc/soak.md, "The oracle"): after a
// change, once the master swept and published, the SA's answers are
// recorded; while nothing changes, the oracle is complete up to now.
void Runner::SyncOracle() {
  if (!Master() || !oracle_.has_snapshot()) return;
  Time t_read = Clock::now();
  OracleKey k = ReadKey();
  if (change_pending_) {
    bool swept = k.master != change_key_.master || k.ups > change_key_.ups;
    // OpenSM sometimes handles no trap for a link change (one that comes
    // too soon after another from the same switch); the harness runs it
    // without periodic sweeps (-s 0), so nothing would correct it until
    // the next trap. SIGHUP makes a heavy sweep: what the periodic sweep
    // of a production SM would do.
    if (!swept && !resweep_sent_ && Since(change_start_) >= 5) {
      resweep_sent_ = true;
      ++r_->resweeps;
      Log("no sweep 5 s after the change: SIGHUP to the master SM on " + Master()->node +
          " for a heavy sweep");
      kill(Master()->pid, SIGHUP);
    }
    // Still no sweep: the master hangs (see RecoverHungMaster).
    if (!swept && Since(change_start_) >= 25) {
      RecoverHungMaster("no sweep 25 s after a change, SIGHUP or not");
      return;
    }
    if (!swept) return;
    if (change_swept_at_ == Time::max()) change_swept_at_ = t_read;
    bool published = k.master != change_key_.master || k.epoch > change_key_.epoch;
    // A sweep that changed nothing publishes nothing: give it 5 s.
    if (!published && Since(change_swept_at_) < 5) return;
  } else if (k == last_key_) {
    oracle_.SetCompleteUntil(t_read);
    last_confirmed_ = t_read;
    return;
  }
  if (Since(last_snapshot_try_) < 0.2) return;
  last_snapshot_try_ = Clock::now();
  Time change_start = change_pending_ ? change_start_ : last_confirmed_;
  SaAnswers answers;
  Status st = TakeSnapshot(&answers);
  OracleKey after = ReadKey();
  if (!st.ok() && snapshot_failing_since_ == Time::max()) snapshot_failing_since_ = t_read;
  if (st.ok()) snapshot_failing_since_ = Time::max();
  if (!st.ok() && Since(snapshot_failing_since_) >= 30) {
    RecoverHungMaster("its SA has answered no snapshot for 30 s");
    return;
  }
  if (!st.ok()) {
    // The SA may be between masters; the next round tries again.
    if (!change_pending_) {
      change_pending_ = true;
      change_start_ = change_start;
      change_key_ = last_key_;
      change_swept_at_ = t_read;
    }
    Say("  (SA snapshot failed, retrying: " + st.ToString() + ")");
    return;
  }
  if (after != k) {
    if (!change_pending_) {
      change_pending_ = true;
      change_start_ = change_start;
      change_key_ = last_key_;
      change_swept_at_ = t_read;
    }
    return;  // it moved under us: again
  }
  std::string label = Master()->node + " epoch " + std::to_string(k.epoch);
  const bool missed = MissedStates(k);
  if (missed)
    Log(
        Printf("the SA held states no snapshot saw before %s; answers in between that match no "
               "recorded state are not judged",
               label.c_str()));
  if (oracle_.AddSnapshot(change_start, t_read, label, answers, missed))
    Log(Printf("SA state %zu recorded (%s)", oracle_.counts().snapshots, label.c_str()));
  oracle_.SetCompleteUntil(t_read);
  last_confirmed_ = t_read;
  last_key_ = k;
  change_pending_ = false;
}

void Runner::PollLogs(Member* m) {
  if (m->lives.empty()) return;
  Instance& life = m->lives.back();
  std::string text = life.log.NewLines();
  if (text.empty()) return;
  // ibacm: the provider's line, once the view answers; ibssa: the SMDB.
  const std::string needle = m->ibssa() ? "SMDB epoch " : ": PRDB epoch ";
  for (uint64_t e : EpochsInPlace(text, needle)) {
    if (e < life.last_epoch) {
      ++r_->epoch_regressions;
      Fail(Printf("%s %s (pid %d) went back from epoch %" PRIu64 " to %" PRIu64, m->role.c_str(),
                  m->node.c_str(), life.pid, life.last_epoch, e));
    }
    life.last_epoch = std::max(life.last_epoch, e);
    if (life.first_epoch == Time::max()) life.first_epoch = Clock::now();
  }
}

void Runner::PollLiveness() {
  for (auto& m : members_) {
    if (m->state != Member::kRunning && m->state != Member::kStopped) continue;
    SimProcess* p = m->ibssa() ? tree_->process(m->node) : m->ibacm->process();
    if (p && p->IsRunning()) continue;
    ++r_->unexpected_exits;
    m->state = Member::kDead;
    Fail(Printf("%s on %s (pid %d) exited on its own: %s; its log ends:\n%s", m->role.c_str(),
                m->node.c_str(), m->lives.back().pid,
                p ? ShellStatus(p->wait_status()).c_str() : "?",
                test::TailOfFile(m->lives.back().log.path, 3000).c_str()));
  }
  for (SmProc& sm : sms_) {
    if (!sm.alive() || ProcessLive(sm.pid)) continue;
    sm.dead = true;
    ++r_->unexpected_exits;
    Fail("OpenSM on " + sm.node + " (pid " + std::to_string(sm.pid) +
         ") exited on its own; its log ends:\n" + test::TailOfFile(sm.log.path, 3000));
  }
  if (!ProcessLive(tree_->fabric()->ibsim_pid())) {
    ++r_->unexpected_exits;
    Fail("ibsim exited");
    done_ = true;
  }
}

void Runner::SampleRss(Instance* life) {
  long kib = test::ProcessRssKib(life->pid);
  if (kib <= 0) return;
  // The baseline: once it holds an epoch and has run 20 s (start-up
  // allocations, the first transfers and the allocator's arenas).
  if (life->rss_base == 0) {
    if (life->first_epoch != Time::max() && Since(life->start) >= 20) {
      life->rss_base = life->rss_max = kib;
      life->rss_base_at = life->rss_last_at = Clock::now();
    }
    return;
  }
  life->rss_max = std::max(life->rss_max, kib);
  life->rss_last_at = Clock::now();
}

void Runner::PollRss() {
  last_rss_ = Clock::now();
  for (auto& m : members_)
    if (m->state == Member::kRunning && !m->lives.empty()) SampleRss(&m->lives.back());
  for (Instance& life : sm_lives_)
    if (ProcessLive(life.pid)) SampleRss(&life);
}

Excuse Runner::ExcuseFor(int daemon, Time sent, Time received) const {
  Excuse e;
  for (const auto& m : members_) {
    if (m->daemon != daemon) continue;
    for (const Interval& i : m->disrupted)
      if (i.from <= received && i.to >= sent) e.disrupted = true;
    const Instance* life = nullptr;
    for (const Instance& l : m->lives)
      if (l.start <= sent) life = &l;
    // An answer sent before the first life's first epoch, or in a later
    // life before its first: the daemon had no PRDB yet.
    if (!life || sent < life->first_epoch) e.starting = true;
  }
  return e;
}

void Runner::Progress() {
  last_progress_ = Clock::now();
  const OracleCounts& c = oracle_.counts();
  Say(Printf("[%8.1f s] progress: events %d, resolves checked %" PRIu64 " (sent %" PRIu64
             "), wrong %" PRIu64 ", stale %" PRIu64 " (max %.1f s), errors %" PRIu64 " (+%" PRIu64
             " starting, %" PRIu64 " refused unconfirmed), unanswered %" PRIu64 " (+%" PRIu64
             " excused), SA states %zu (unjudged %" PRIu64 "), core %s epoch %" PRIu64 "%s",
             Since(t0_), r_->events, c.checked, totals_.sent.load(), c.wrong, c.stale,
             c.max_stale_s, c.errors_known, c.errors_startup, c.refused_unconfirmed, c.unanswered,
             c.unanswered_excused, c.snapshots, c.unjudged, MasterName().c_str(), CoreEpoch(),
             Master() ? "" : " (no master)"));
}

}  // namespace run
}  // namespace soak
}  // namespace ssa
