// soak_finish.cc: the runner's end: convergence after the last event,
// the daemons stopped cleanly, the sanitizer scan of every log.
#include "test/soak/soak_runner.h"

#include <dirent.h>
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
#include "common/base/big_endian.h"
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
      query.slid = ToBe16(m->lid);
      query.dlid = ToBe16(d);
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
    Status st = m->ibacm ? m->ibacm->Stop(20s)
                         : test::StopDaemon(tree_->process(m->node), m->role + " on " + m->node,
                                            m->lives.back().log.path, 20s);
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

}  // namespace run
}  // namespace soak
}  // namespace ssa
