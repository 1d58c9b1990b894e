// soak_run.cc: the chaos soak's runner (see soak_run.h and doc/soak.md).
#include "test/soak/soak_run.h"

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

namespace {

using namespace std::chrono_literals;
using test::IbacmNode;
using test::SimProcess;
using test::TreeHarness;

const std::string kSnapshotTool = std::string(ABS_TOP_BUILDDIR) + "/test/soak/soak-sa-snapshot";

double Since(Time t0, Time t = Clock::now()) { return std::chrono::duration<double>(t - t0).count(); }

std::string Printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* format, ...) {
  char b[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(b, sizeof(b), format, ap);
  va_end(ap);
  return b;
}

size_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

// Whether `pid` is a live (not zombie) process.
bool ProcessLive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// The epochs of "<kind> epoch N in place" lines in `text`.
std::vector<uint64_t> EpochsInPlace(const std::string& text, const std::string& needle) {
  std::vector<uint64_t> out;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    char* end = nullptr;
    uint64_t e = strtoull(text.c_str() + at + needle.size(), &end, 10);
    if (strncmp(end, " in place", 9) == 0) out.push_back(e);
  }
  return out;
}

std::string ShellStatus(int wait_status) {
  if (WIFEXITED(wait_status)) return "exit " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) return std::string("signal ") + strsignal(WTERMSIG(wait_status));
  return "status " + std::to_string(wait_status);
}

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

// What a sanitizer writes when it reports something.
const char* const kSanitizerMarkers[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                         "runtime error:", "WARNING: ThreadSanitizer",
                                         "SUMMARY: UndefinedBehaviorSanitizer"};

struct Interval {
  Time from, to;
};

// One life of a daemon process.
struct Instance {
  std::string label;  // "ibacm Hca5", "OpenSM Hca1"
  Time start;
  Time first_epoch = Time::max();  // its first epoch in place
  LogTail log;  // from where this life's part starts
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
      : o_(o), r_(r), oracle_(std::chrono::milliseconds(static_cast<long>(o.stale_bound_s * 1000))) {}
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
  void PollSms();
  void AddSm(const std::string& node, const std::string& log, size_t log_from,
             const std::string& dump_dir, bool fabric_owned, pid_t pid, int priority);
  SmProc* Master() { return master_ >= 0 ? &sms_[static_cast<size_t>(master_)] : nullptr; }
  SmProc* Standby();
  std::string MasterName() { return Master() ? Master()->node : "(none)"; }
  void SyncOracle();
  OracleKey ReadKey();
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
  bool hang_recovery_ = false;
  bool rescued_takeover_ = false;  // this failover's stuck standby was restarted  // a hung master was killed: a new standby once one took over
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

Member* Runner::FindMember(const std::string& node) {
  for (auto& m : members_)
    if (m->node == node) return m.get();
  return nullptr;
}

Status Runner::StartMember(Member* m, const std::string& faults) {
  Instance life;
  life.label = m->role + " " + m->node;
  life.start = Clock::now();
  Status st;
  if (m->ibssa()) {
    life.log.path = dir_.path() + "/" + m->node + "/ibssa.log";
    life.log.parsed = FileSize(life.log.path);
    // ibssa logs "SMDB epoch N in place" at info; debug would fill the
    // disk over a long run.
    // A restart waits not until it joins (during an SM failover that
    // waits for the new master) but until it handles SIGTERM: a restart
    // right after this one must find a daemon that stops cleanly.
    st = tree_->StartIbssa(m->node, m->role, "log_level = info\n" + faults + "\n",
                           m->lives.empty() ? "joined the tree" : "ibssa starting");
    if (tree_->process(m->node)) life.pid = tree_->process(m->node)->pid();
  } else {
    IbacmNode::Options io;
    io.node = m->node;
    std::string n = m->node.substr(3);
    io.addr_cfg = "node" + n + " ibsim0 1 default\n";
    io.opts_cfg =
        "[core]\nlog_level = info\nprovider = ssa default\n"
        "[ssa]\nmad_timeout_ms = 300\nfallback = none\n";
    io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
    m->ibacm = std::make_unique<IbacmNode>(tree_->fabric(), io);
    life.log.path = m->ibacm->log_path();
    life.log.parsed = FileSize(life.log.path);
    st = m->ibacm->Start(60s);
    if (m->ibacm->process()) life.pid = m->ibacm->process()->pid();
  }
  m->lives.push_back(life);
  m->state = Member::kRunning;
  return st.WithContext(m->role + " on " + m->node);
}

Status Runner::BringUp() {
  Say(Printf("soak: seed %" PRIu64 ", %.0f s of events, staleness bound %.0f s; bringing up the "
             "tree in %s",
             o_.seed, o_.duration_s, o_.stale_bound_s, dir_.path().c_str()));
  tree_ = std::make_unique<TreeHarness>(&dir_);
  TreeHarness::Options to;
  Status st = TreeHarness::FatTree(12, 0, &to);
  if (!st.ok()) return st;
  to.failover = true;
  to.extra_plugin_options = "log_level=info";
  st = tree_->Start(to);
  if (!st.ok()) return st.WithContext("the fabric with the plugin");
  AddSm(layout_.sm_a, tree_->fabric()->osm_log_path(), 0, tree_->plugin().dump_dir(), true,
        tree_->fabric()->opensm_pid(), 10);
  Say(Printf("  fabric up (%.1f s): OpenSM with the plugin on %s", Since(t0_),
             layout_.sm_a.c_str()));
  // The same priority and a higher GUID: a standby, not a new master.
  std::string log = dir_.path() + "/" + layout_.sm_b + "-opensm/opensm.log";
  size_t from = FileSize(log);
  st = tree_->StartStandbySm(layout_.sm_b, 10);
  if (!st.ok()) return st;
  AddSm(layout_.sm_b, log, from, tree_->standby().dump_dir(), false,
        tree_->process(layout_.sm_b)->pid(), 10);
  PollSms();
  if (!Master()) return Status::Error(EIO, "no master SM after the standby started");
  Say(Printf("  standby OpenSM on %s (%.1f s)", layout_.sm_b.c_str(), Since(t0_)));

  auto add = [&](const std::string& node, const std::string& role) {
    auto m = std::make_unique<Member>();
    m->node = node;
    m->role = role;
    m->lid = tree_->Lid(node);
    members_.push_back(std::move(m));
    return members_.back().get();
  };
  std::vector<Member*> order = {add(layout_.distribution, "distribution")};
  for (const std::string& a : layout_.access) order.push_back(add(a, "access"));
  for (const std::string& c : layout_.ibacm) {
    Member* m = add(c, "ibacm");
    m->daemon = static_cast<int>(slids_.size());
    slids_.push_back(m->lid);
    order.push_back(m);
  }
  for (Member* m : order) {
    st = StartMember(m, "");
    if (!st.ok()) return st;
    Say(Printf("  %s on %s started (%.1f s)", m->role.c_str(), m->node.c_str(), Since(t0_)));
  }
  // Every daemon holds the core's epoch before the clamour starts.
  uint64_t epoch = tree_->smdb().global_epoch;
  bool all = PollFor(120s, [&] {
    for (auto& m : members_)
      if (m->lives.back().last_epoch < epoch) return false;
    return true;
  });
  if (!all) {
    std::string behind;
    for (auto& m : members_)
      behind += " " + m->node + "(" + std::to_string(m->lives.back().last_epoch) + ")";
    return Status::Error(ETIMEDOUT, "the daemons did not reach the core's epoch " +
                                        std::to_string(epoch) + ":" + behind);
  }
  for (const auto& g : tree_->smdb().guid_lids.records)
    if (g.guid == g.port_guid) lids_.push_back(g.base_lid);
  std::sort(lids_.begin(), lids_.end());
  lids_.push_back(static_cast<uint16_t>(lids_.back() + 1));  // nobody's: "no path" everywhere
  // The first SA state.
  last_key_ = ReadKey();
  SaAnswers answers;
  st = TakeSnapshot(&answers);
  if (!st.ok()) return st.WithContext("the first SA snapshot");
  Time now = Clock::now();
  oracle_.AddSnapshot(now, now, "epoch " + std::to_string(last_key_.epoch), answers);
  oracle_.SetCompleteUntil(now);
  last_confirmed_ = now;
  Say(Printf("  every daemon at epoch %" PRIu64 "; SA snapshot of %zu pairs; %zu LIDs (%.1f s)",
             epoch, answers.size(), lids_.size() - 1, Since(t0_)));
  std::vector<std::string> names;
  for (auto& m : members_)
    if (m->daemon >= 0) names.push_back("ibacm " + m->node);
  oracle_.set_names(names);
  for (auto& m : members_) {
    if (m->daemon < 0) continue;
    ClientSpec spec{m->daemon, m->ibacm->socket_path(), m->lid, lids_, o_.think_us};
    clients_.emplace_back(SocketClientLoop, spec, &stop_clients_, &oracle_, &totals_);
    clients_.emplace_back(TableClientLoop, spec, &stop_clients_, &oracle_, &totals_);
  }
  return Status::Ok();
}

void Runner::StopClients() {
  stop_clients_ = true;
  for (std::thread& t : clients_)
    if (t.joinable()) t.join();
  clients_.clear();
  r_->table_answers = totals_.table_answers.load();
  for (auto& b : bursts_) {
    test::AcmLoadResult r;
    if (b.second.load) b.second.load->Finish(true, &r);
  }
  bursts_.clear();
}

bool Runner::PollFor(std::chrono::milliseconds timeout, const std::function<bool()>& done) {
  auto end = Clock::now() + timeout;
  for (;;) {
    Poll();
    if (done()) return true;
    if (Clock::now() >= end) return false;
    std::this_thread::sleep_for(50ms);
  }
}

// ---- Watching.

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
  oracle_.CheckReady(
      [this](int d, Time s, Time r) { return ExcuseFor(d, s, r); });
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
  Status st = tree_->fabric()->Run(
      layout_.oracle, {kSnapshotTool, "--slids", list(slids_), "--dlids", list(lids_)}, &text,
      &rc, 60s);
  if (!st.ok()) return st;
  if (rc != 0) return Status::Error(EIO, "soak-sa-snapshot: exit " + std::to_string(rc) + ":\n" + text);
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
  if (oracle_.AddSnapshot(change_start, t_read, label, answers))
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
                m->node.c_str(), m->lives.back().pid, p ? ShellStatus(p->wait_status()).c_str() : "?",
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
             "), wrong %" PRIu64 ", stale %" PRIu64 " (max %.1f s), errors %" PRIu64
             " (+%" PRIu64 " starting), unanswered %" PRIu64 " (+%" PRIu64
             " excused), SA states %zu, core %s epoch %" PRIu64 "%s",
             Since(t0_), r_->events, c.checked, totals_.sent.load(), c.wrong, c.stale, c.max_stale_s,
             c.errors_known, c.errors_startup, c.unanswered, c.unanswered_excused, c.snapshots,
             MasterName().c_str(), CoreEpoch(), Master() ? "" : " (no master)"));
}

// ---- Events.

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
  if (Master() && change_pending_ && !PollFor(60s, [&] { return !change_pending_; }))
    Fail("the fabric did not settle within 60 s after a change (master " + MasterName() + ")");
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
  if (!PollFor(60s, [&] { return Master() && Standby(); })) {
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
    priority = tree_->PortGuid(node) < tree_->PortGuid(m.node) ? m.priority
                                                                : std::min(15, m.priority + 1);
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
    Fail("a client burst on " + a.target + " lost answers: " +
         (st.ok() ? r.Describe() : st.ToString()));
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

// ---- The end.

bool Runner::Converged(std::string* why) {
  why->clear();
  if (!Master()) {
    *why = "no master SM";
    return false;
  }
  if (change_pending_) {
    *why = "the SA's newest state is not recorded yet";
    return false;
  }
  uint64_t core = CoreEpoch();
  for (auto& m : members_) {
    if (m->state != Member::kRunning) continue;
    if (m->lives.back().last_epoch != core)
      *why += Printf(" %s at %" PRIu64, m->node.c_str(), m->lives.back().last_epoch);
  }
  if (!why->empty()) {
    *why = "core at epoch " + std::to_string(core) + ":" + *why;
    return false;
  }
  // Every daemon answers every pair as the SA does now.
  for (auto& m : members_) {
    if (m->daemon < 0 || m->state != Member::kRunning) continue;
    AcmClient client;
    client.set_timeout_ms(5000);
    if (!client.Connect(m->ibacm->socket_path()).ok()) {
      *why = m->node + ": cannot connect";
      return false;
    }
    for (uint16_t d : lids_) {
      ibv_path_record query;
      memset(&query, 0, sizeof(query));
      query.slid = htobe16(m->lid);
      query.dlid = htobe16(d);
      query.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
      acm::EpAddr entry;
      entry.SetPath(query);
      acm::ResolveResponse resp;
      if (!client.Resolve({entry}, &resp).ok()) {
        *why = m->node + ": no answer";
        return false;
      }
      SaAnswer got;
      got.path = resp.hdr.status == acm::kStatusSuccess && !resp.paths.empty();
      if (got.path) got.record = resp.paths[0].path;
      const SaAnswer* sa = oracle_.Current(m->lid, d);
      if (!sa || !Oracle::Same(got, *sa)) {
        *why = Printf("%s: %u -> %u answers %s, the SA %s", m->node.c_str(), m->lid, d,
                      Oracle::Describe(got).c_str(), sa ? Oracle::Describe(*sa).c_str() : "?");
        return false;
      }
    }
  }
  return true;
}

void Runner::StopDaemons() {
  for (auto& m : members_) {
    if (m->state == Member::kStopped) {
      SimProcess* p = m->ibssa() ? tree_->process(m->node) : m->ibacm->process();
      p->Kill(SIGCONT);
      m->state = Member::kRunning;
    }
    if (m->state != Member::kRunning) continue;
    int status = -1;
    Status st;
    if (m->ibacm) {
      st = m->ibacm->Stop(20s);
    } else {
      SimProcess* p = tree_->process(m->node);
      st = p->Kill(SIGTERM);
      if (st.ok()) st = p->Wait(20s, &status);
      if (st.ok() && status != 0)
        st = Status::Error(EIO, "exit status " + std::to_string(status));
    }
    if (!st.ok()) Fail(m->role + " on " + m->node + " did not stop cleanly: " + st.ToString());
  }
  for (SmProc& sm : sms_) {
    if (!sm.alive() || sm.fabric_owned) continue;  // the fabric stops its own
    SimProcess* p = tree_->process(sm.node);
    if (!p || p->pid() != sm.pid) continue;
    int status = -1;
    Status st = p->Kill(SIGTERM);
    if (st.ok()) st = p->Wait(30s, &status);
    if (!st.ok() || status != 0)
      Fail("OpenSM on " + sm.node + " did not stop cleanly: " +
           (st.ok() ? "exit " + std::to_string(status) : st.ToString()));
    sm.killed = true;
  }
}

void Runner::ScanForSanitizerReports(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string path = dir + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (name != "dump") ScanForSanitizerReports(path);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (name.find("log") == std::string::npos && name.find(".out") == std::string::npos) continue;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      for (const char* marker : kSanitizerMarkers) {
        if (line.find(marker) == std::string::npos) continue;
        ++r_->sanitizer_reports;
        Fail("sanitizer report in " + path + ": " + line + "\n" + test::TailOfFile(path, 4000));
        break;
      }
    }
  }
  closedir(d);
}

void Runner::Finish() {
  // Convergence after the last event.
  Time last = Clock::now();
  Say(Printf("[%8.1f s] events done; waiting for every daemon to converge", Since(t0_)));
  std::string why;
  double limit = std::max(o_.converge_limit_s, 10.0);
  Time deadline = last + std::chrono::milliseconds(static_cast<long>(limit * 1000));
  bool ok = false;
  while (!done_) {
    Poll();
    if (Converged(&why)) {
      ok = true;
      break;
    }
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(100ms);
  }
  if (ok) {
    r_->convergence_s = Since(last);
    Log(Printf("converged %.1f s after the last event: every daemon at epoch %" PRIu64
               ", every answer the SA's",
               r_->convergence_s, CoreEpoch()));
  } else {
    Fail(Printf("no convergence within %.0f s of the last event: %s", limit, why.c_str()));
  }
  r_->core_epoch = CoreEpoch();
  // The last answers are judged with the last state.
  StopClients();
  SyncOracle();
  PollFor(30s, [&] { return oracle_.pending() == 0 || change_pending_ || !Master(); });
  if (oracle_.pending())
    Fail(Printf("%zu answers could not be judged (no SA state for their time)", oracle_.pending()));
  PollRss();
  // Memory: growth over each life that lasted long enough to say.
  std::vector<std::pair<const Instance*, bool>> lives;  // (life, its daemon's only one)
  for (auto& m : members_)
    for (const Instance& life : m->lives) lives.push_back({&life, m->lives.size() == 1});
  for (const Instance& life : sm_lives_) lives.push_back({&life, sm_lives_.size() <= 2});
  for (const auto& l : lives) {
    const Instance& life = *l.first;
    if (life.rss_base == 0) continue;
    double mb = static_cast<double>(life.rss_max - life.rss_base) / 1024;
    double lived = Since(life.rss_base_at, life.rss_last_at);
    if (lived < 30 && !l.second) continue;
    r_->rss_report += Printf("  %-20s pid %-7d %7ld -> %7ld KiB (max) over %.0f s\n",
                             life.label.c_str(), life.pid, life.rss_base, life.rss_max, lived);
    if (mb > r_->max_rss_growth_mb) {
      r_->max_rss_growth_mb = mb;
      r_->max_rss_growth_of = Printf("%s (pid %d, %.0f s)", life.label.c_str(), life.pid, lived);
    }
  }
  if (r_->max_rss_growth_mb > o_.rss_limit_mb)
    Fail(Printf("%s grew by %.1f MB (limit %.0f MB)", r_->max_rss_growth_of.c_str(),
                r_->max_rss_growth_mb, o_.rss_limit_mb));
  StopDaemons();
  ScanForSanitizerReports(tree_->fabric()->run_dir());
  ScanForSanitizerReports(dir_.path());
}

Status Runner::Run() {
  ScheduleOptions so;
  so.seed = o_.seed;
  so.duration_s = o_.duration_s;
  so.long_outages = o_.long_outages;
  schedule_ = MakeSchedule(so, layout_);
  counted_.assign(schedule_.events.size(), false);
  r_->seed = o_.seed;
  r_->duration_s = o_.duration_s;
  Status st = BringUp();
  if (!st.ok()) {
    dir_.keep();
    if (tree_) tree_->set_failed();
    r_->run_dir = dir_.path();
    StopClients();
    return st;
  }
  // The schedule's clock starts now.
  Time start = Clock::now();
  Say(Printf("[%8.1f s] %zu events, %zu actions; the events begin", Since(t0_),
             schedule_.events.size(), schedule_.actions.size()));
  for (const Action& a : schedule_.actions) {
    Time due = start + std::chrono::milliseconds(static_cast<long>(a.at_s * 1000));
    while (!done_ && Clock::now() < due) {
      Poll();
      std::this_thread::sleep_for(50ms);
    }
    if (done_) break;
    Execute(a);
    Poll();
  }
  if (!done_) Finish();
  const OracleCounts& c = oracle_.counts();
  r_->oracle = c;
  r_->oracle_problems = oracle_.problems();
  if (c.wrong) Fail(Printf("%" PRIu64 " wrong answers", c.wrong));
  if (c.errors_known > o_.max_errors_known)
    Fail(Printf("%" PRIu64 " errors for known destinations (bound %" PRIu64 ")", c.errors_known,
                o_.max_errors_known));
  if (c.unanswered) Fail(Printf("%" PRIu64 " requests unanswered by daemons not disrupted", c.unanswered));
  for (const std::string& p : r_->oracle_problems) Say("  " + p);
  r_->stalest = oracle_.stalest();
  if (!r_->stalest.empty()) Say("  the stalest answer: " + r_->stalest);
  r_->passed = r_->failures.empty();
  r_->wall_s = Since(t0_);
  if (!r_->passed) {
    dir_.keep();
    tree_->set_failed();
    r_->run_dir = dir_.path();
  }
  st = tree_->Stop();
  if (!st.ok()) {
    Fail("stopping the fabric: " + st.ToString());
    r_->passed = false;
  }
  tree_.reset();
  return Status::Ok();
}

}  // namespace

std::string SoakResult::Summary() const {
  std::string s;
  auto line = [&](const std::string& name, const std::string& value) {
    s += name + " = " + value + "\n";
  };
  line("result", passed ? "PASS" : "FAIL");
  line("seed", std::to_string(seed));
  line("duration_s", Printf("%.0f", duration_s));
  line("wall_s", Printf("%.0f", wall_s));
  line("events", std::to_string(events));
  for (const char* kind : {"link_down_up", "port_flap", "kill_restart", "stop_cont",
                           "sm_failover", "faulty_restart", "client_burst"}) {
    auto it = events_by_kind.find(kind);
    line(std::string("events_") + kind, std::to_string(it == events_by_kind.end() ? 0 : it->second));
  }
  line("sa_states", std::to_string(oracle.snapshots));
  line("sm_resweeps", std::to_string(resweeps));
  line("sm_hangs", std::to_string(sm_hangs));
  line("resolves_checked", std::to_string(oracle.checked));
  line("fresh_answers", std::to_string(oracle.fresh));
  line("wrong_answers", std::to_string(oracle.wrong));
  line("stale_answers", std::to_string(oracle.stale));
  line("max_stale_s", Printf("%.1f", oracle.max_stale_s));
  line("errors_known_destinations", std::to_string(oracle.errors_known));
  line("errors_before_first_prdb", std::to_string(oracle.errors_startup));
  line("unanswered", std::to_string(oracle.unanswered));
  line("unanswered_daemon_disrupted", std::to_string(oracle.unanswered_excused));
  line("table_answers", std::to_string(table_answers));
  line("burst_requests", std::to_string(burst_requests));
  line("bursts_failed", std::to_string(burst_failures) + " of " + std::to_string(bursts_judged));
  line("epoch_regressions", std::to_string(epoch_regressions));
  line("unexpected_exits", std::to_string(unexpected_exits));
  line("sanitizer_reports", std::to_string(sanitizer_reports));
  line("core_epoch", std::to_string(core_epoch));
  line("convergence_s", convergence_s < 0 ? "none" : Printf("%.1f", convergence_s));
  line("last_event", last_action.empty() ? "-" : last_action);
  line("max_rss_growth_mb", Printf("%.1f", max_rss_growth_mb));
  line("max_rss_growth_of", max_rss_growth_of.empty() ? "-" : max_rss_growth_of);
  for (const std::string& f : failures) s += "failure: " + f + "\n";
  if (!run_dir.empty()) s += "kept: " + run_dir + "\n";
  return s;
}

Status RunSoak(const SoakOptions& options, SoakResult* result) {
  *result = SoakResult();
#if defined(__SANITIZE_ADDRESS__)
  // Freed memory waits in ASan's quarantine (256 MB by default) before
  // reuse, so every daemon's RSS would grow by that much: a small one
  // keeps the memory check meaningful (the harness passes ASAN_OPTIONS on).
  const char* asan = getenv("ASAN_OPTIONS");
  if (!asan || !strstr(asan, "quarantine_size_mb")) {
    std::string v = std::string(asan && *asan ? asan : "");
    setenv("ASAN_OPTIONS", (v + (v.empty() ? "" : ":") + "quarantine_size_mb=16").c_str(), 1);
  }
#endif
  Runner runner(options, result);
  return runner.Run();
}

}  // namespace soak
}  // namespace ssa
