// soak_runner.cc: the runner's helpers, its bring-up and the run as a
// whole (soak_runner.h).
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

const std::string kSnapshotTool = std::string(ABS_TOP_BUILDDIR) + "/test/soak/soak-sa-snapshot";

// What a sanitizer writes when it reports something.
const char* const kSanitizerMarkers[5] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                          "runtime error:", "WARNING: ThreadSanitizer",
                                          "SUMMARY: UndefinedBehaviorSanitizer"};

double Since(Time t0, Time t) { return std::chrono::duration<double>(t - t0).count(); }

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

bool ProcessLive(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(in, text);
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

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
  Status st;
  if (o_.torus_slices) {
    test::TorusOptions t;
    t.x = 4;
    t.y = 3;
    t.hcas_per_switch = 1;
    test::GeneratedNet net;
    st = test::TorusNet(t, &net);
    to.net_text = net.text;
    to.hcas = net.hcas;
    to.opensm_args = {"-R", "lash"};
  } else {
    st = TreeHarness::FatTree(12, 0, &to);
  }
  if (!st.ok()) return st;
  to.failover = true;
  to.extra_plugin_options = "log_level=info";
  if (o_.torus_slices) to.extra_plugin_options += " route_sl_smdb_rows=0";
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

// A change that meets a hung master (killed after 25 s) and then a stuck
// standby (restarted 60 s after that kill) settles some 90 s after it
// came: both stalls are the simulator's (doc/simulated-fabric.md) and are
// counted in sm_hangs, so they must not read as the fabric failing to
// settle (seed 1131 under ASan did, 2026-11-28).
bool Runner::PollForSms(std::chrono::milliseconds timeout, const std::function<bool()>& done) {
  for (;;) {
    const int hangs = r_->sm_hangs;
    if (PollFor(timeout, done)) return true;
    if (r_->sm_hangs == hangs) return false;
  }
}

Status Runner::Run() {
  ScheduleOptions so;
  so.seed = o_.seed;
  so.duration_s = o_.duration_s;
  so.long_outages = o_.long_outages;
  if (o_.torus_slices) layout_ = SoakLayout::Torus();
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
  if (c.unanswered)
    Fail(Printf("%" PRIu64 " requests unanswered by daemons not disrupted", c.unanswered));
  for (const std::string& p : r_->oracle_problems) Say("  " + p);
  for (const std::string& p : oracle_.unjudged_examples()) Say("  " + p);
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

}  // namespace run
}  // namespace soak
}  // namespace ssa
