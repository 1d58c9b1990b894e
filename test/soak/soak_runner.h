// soak_runner.h: the chaos soak's runner, inside (soak_run.h is its
// interface): the daemons' lives as the runner tracks them, and the Runner,
// whose methods are spread by subsystem over soak_runner.cc (bring-up and
// the run), soak_watch.cc (watching the SMs, logs, processes, memory and
// the oracle), soak_events.cc (the faults it injects) and soak_finish.cc
// (convergence, stopping, the sanitizer scan).
#ifndef IBACM_SSA_TEST_SOAK_SOAK_RUNNER_H
#define IBACM_SSA_TEST_SOAK_SOAK_RUNNER_H

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test/sim/acm_load.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/tree_harness.h"
#include "test/soak/soak_clients.h"
#include "test/soak/soak_oracle.h"
#include "test/soak/soak_run.h"
#include "test/soak/soak_schedule.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace soak {
namespace run {

using namespace std::chrono_literals;
using test::IbacmNode;
using test::SimProcess;
using test::TreeHarness;

// The oracle's SA client, run as a fabric node.
extern const std::string kSnapshotTool;
// What a sanitizer writes when it reports something.
extern const char* const kSanitizerMarkers[5];

double Since(Time t0, Time t = Clock::now());
std::string Printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
size_t FileSize(const std::string& path);
// Whether `pid` is a live (not zombie) process.
bool ProcessLive(pid_t pid);
// The epochs of "<kind> epoch N in place" lines in `text`.
std::vector<uint64_t> EpochsInPlace(const std::string& text, const std::string& needle);
std::string ShellStatus(int wait_status);

// A growing log read as it grows: each call returns the whole lines
// appended since the last one.
struct LogTail {
  std::string path;
  size_t parsed = 0;  // where the next read starts
  std::string partial;
  std::string NewLines() {
    size_t size = FileSize(path);
    if (size <= parsed) return "";
    std::ifstream in(path);
    in.seekg(static_cast<std::streamoff>(parsed));
    std::string chunk(size - parsed, '\0');
    in.read(&chunk[0], static_cast<std::streamsize>(chunk.size()));
    chunk.resize(static_cast<size_t>(in.gcount()));
    parsed += chunk.size();
    std::string text = partial + chunk;
    size_t cut = text.rfind('\n');
    partial = cut == std::string::npos ? text : text.substr(cut + 1);
    return cut == std::string::npos ? "" : text.substr(0, cut + 1);
  }
};

struct Interval {
  Time from, to;
};

// One life of a daemon process.
struct Instance {
  std::string label;  // "ibacm Hca5", "OpenSM Hca1"
  Time start;
  Time first_epoch = Time::max();  // its first epoch in place
  LogTail log;                     // from where this life's part starts
  uint64_t last_epoch = 0;
  pid_t pid = 0;
  long rss_base = 0, rss_max = 0;
  Time rss_base_at, rss_last_at;
};

struct Member {
  std::string node;
  std::string role;  // distribution, access, ibacm
  int daemon = -1;   // ibacm: its index for the clients and the oracle
  enum State { kRunning, kKilled, kStopped, kDead } state = kRunning;
  std::vector<Instance> lives;
  std::vector<Interval> disrupted;  // killed or stopped on purpose
  std::unique_ptr<IbacmNode> ibacm;
  uint16_t lid = 0;
  bool ibssa() const { return role != "ibacm"; }
};

// One OpenSM life, as its log tells it.
struct SmProc {
  std::string node, dump_dir;
  LogTail log;
  bool fabric_owned = false;
  pid_t pid = 0;
  int priority = 0;
  bool killed = false;  // on purpose
  bool dead = false;    // on its own
  enum State { kStarting, kDiscovering, kStandby, kMaster } state = kStarting;
  int ups = 0;                   // SUBNET UP lines of this life
  int ups_at_master = 0;         // ups when it last became master
  bool swept_as_master = false;  // a SUBNET UP since it last became master
  bool alive() const { return !killed && !dead; }
};

struct OracleKey {
  std::string master;
  int ups = -1;
  uint64_t epoch = 0;
  bool operator==(const OracleKey& o) const {
    return master == o.master && ups == o.ups && epoch == o.epoch;
  }
  bool operator!=(const OracleKey& o) const { return !(*this == o); }
};

struct Burst {
  std::unique_ptr<test::AcmLoadThread> load;
  Time start;
};

class Runner {
 public:
  Runner(const SoakOptions& o, SoakResult* r)
      : o_(o),
        r_(r),
        oracle_(std::chrono::milliseconds(static_cast<long>(o.stale_bound_s * 1000))) {}
  ~Runner() { StopClients(); }

  Status Run();

 private:
  void Say(const std::string& line) {
    if (o_.progress) {
      fprintf(o_.progress, "%s\n", line.c_str());
      fflush(o_.progress);
    }
  }
  void Fail(const std::string& why) {
    r_->failures.push_back(why);
    Say("FAILURE: " + why);
  }
  void Log(const std::string& line) {
    std::string l = Printf("[%8.1f s] ", Since(t0_)) + line;
    r_->event_log += l + "\n";
    Say(l);
  }

  Status BringUp();
  Status StartMember(Member* m, const std::string& faults);
  void StopClients();
  void Execute(const Action& a);
  void KillMember(Member* m, int sig);
  void RestartMember(Member* m, const std::string& faults);
  void LinkChange(const Action& a);
  void KillMaster();
  // Kills the master now (no waiting); false without a standby to take over.
  bool KillMasterNow();
  void RecoverHungMaster(const std::string& why);
  void RescueTakeover();
  void StartStandby();
  void BurstStart(const Action& a);
  void BurstEnd(const Action& a);
  // One round of watching: SMs, the oracle, logs, processes, memory,
  // judging, progress.
  void Poll();
  // Polls (pacing 50 ms) until `done` or `timeout`; false at the timeout.
  bool PollFor(std::chrono::milliseconds timeout, const std::function<bool()>& done);
  // PollFor for what the SMs must bring about (a sweep, a master and a
  // standby): each simulator stall handled meanwhile (sm_hangs: a hung
  // master killed, a stuck standby restarted) gives it `timeout` again.
  bool PollForSms(std::chrono::milliseconds timeout, const std::function<bool()>& done);
  void PollSms();
  void AddSm(const std::string& node, const std::string& log, size_t log_from,
             const std::string& dump_dir, bool fabric_owned, pid_t pid, int priority);
  SmProc* Master() { return master_ >= 0 ? &sms_[static_cast<size_t>(master_)] : nullptr; }
  SmProc* Standby();
  std::string MasterName() { return Master() ? Master()->node : "(none)"; }
  void SyncOracle();
  OracleKey ReadKey();
  // Whether the SA held states the oracle did not record between last_key_
  // and `k` (soak_oracle.h, "Unrecorded states").
  bool MissedStates(const OracleKey& k) const;
  Status TakeSnapshot(SaAnswers* out);
  void BeginChange();
  void PollLogs(Member* m);
  void PollLiveness();
  void PollRss();
  void SampleRss(Instance* life);
  void AddSmLife(const std::string& node, pid_t pid) {
    Instance life;
    life.label = "OpenSM " + node;
    life.start = life.first_epoch = Clock::now();
    life.pid = pid;
    sm_lives_.push_back(life);
  }
  void Progress();
  Excuse ExcuseFor(int daemon, Time sent, Time received) const;
  Member* FindMember(const std::string& node);
  uint64_t CoreEpoch();
  bool Converged(std::string* why);
  void Finish();
  void StopDaemons();
  void ScanForSanitizerReports(const std::string& dir);

  SoakOptions o_;
  SoakResult* r_;
  SoakLayout layout_;
  Schedule schedule_;
  test::TempDir dir_;
  std::unique_ptr<TreeHarness> tree_;
  Time t0_ = Clock::now();
  std::vector<std::unique_ptr<Member>> members_;
  std::vector<uint16_t> lids_;  // every LID, and one nobody has
  std::vector<uint16_t> slids_;

  // SMs: every life, and which one is the master (-1: none, or two).
  std::vector<SmProc> sms_;
  std::vector<Instance> sm_lives_;  // every OpenSM started, for their memory
  int master_ = -1;
  bool awaiting_takeover_ = false;
  Time master_killed_at_;
  std::string dead_master_node_;

  // The oracle and what it last saw.
  Oracle oracle_;
  OracleKey last_key_;
  bool change_pending_ = false;
  Time change_start_;
  OracleKey change_key_;
  Time change_swept_at_ = Time::max();
  bool resweep_sent_ = false;
  Time snapshot_failing_since_ = Time::max();
  bool hang_recovery_ = false;     // a hung master was killed: a new standby once one took over
  bool rescued_takeover_ = false;  // this failover's stuck standby was restarted
  Time last_confirmed_;
  Time last_snapshot_try_;

  // Clients.
  std::atomic<bool> stop_clients_{false};
  std::vector<std::thread> clients_;
  ClientTotals totals_;
  std::map<std::string, Burst> bursts_;

  Time last_rss_, last_progress_;
  std::vector<bool> counted_;  // events whose first action ran
  bool done_ = false;
};

}  // namespace run
}  // namespace soak
}  // namespace ssa

#endif
