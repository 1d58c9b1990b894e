// fed_soak.cc: see fed_soak.h.
#include "test/soak/fed_soak.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <memory>

#include "common/base/text_util.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_harness.h"
#include "test/soak/fed_relay.h"
#include "test/support/loopback.h"
#include "test/support/temp_dir.h"
#include "test/support/tool_output.h"

namespace ssa {
namespace soak {

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kPrefixA = 0xfec0000000000011ULL;
constexpr char kIbacmNode[] = "Hca6";
constexpr char kStockIbAcme[] = "/usr/bin/ib_acme";

std::string Fmt(const char* f, double v) {
  char b[64];
  snprintf(b, sizeof(b), f, v);
  return b;
}

class FedRunner {
 public:
  FedRunner(const FedSoakOptions& o, FedSoakResult* r) : o_(o), r_(r) {}
  Status Run();

 private:
  struct Peer {
    std::string letter;
    uint64_t prefix = 0;
    int port = 0;
    int relay_in = 0, relay_out = 0;  // A's link to it, its link to A
    int dial_in = 0, dial_out = 0;    // their ports: where A dials it, where it dials A
    std::string hosts, fed;
    std::vector<std::unique_ptr<test::TempDir>> lives;
    std::unique_ptr<test::TreeHarness> tree;
    std::map<int, uint64_t> guids;
    PeerHistory history;
  };

  double Now() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  void Log(const std::string& line) {
    std::string l = Fmt("%7.1f s  ", Now()) + line + "\n";
    r_->event_log += l;
    if (o_.progress) fputs(l.c_str(), o_.progress), fflush(o_.progress);
  }
  void Fail(const std::string& what) {
    if (r_->failures.size() < 30) r_->failures.push_back(what);
  }
  std::string Ip(size_t p, int i) const {
    return "10." + std::to_string(p + 2) + ".0." + std::to_string(i);
  }
  std::string Gid(size_t p, int i) {
    return test::PrefixedGidText(peers_[p].prefix, peers_[p].guids.at(i));
  }
  Status StartPeer(size_t p);
  Status StopPeer(size_t p);
  Status WriteHosts(size_t p, const PeerHosts& h);
  Status StartA();
  Status StartIbacm();
  // Asks A's ibacm for every entry a peer ever had; judges each answer.
  // `exact`: counts (returns) the answers that differ from the peers'
  // entries now, without judging.
  size_t Round(bool exact);
  Status Execute(const FedEvent& e);
  Status StopAll();

  FedSoakOptions o_;
  FedSoakResult* r_;
  test::TempDir dir_{"ssa-fedsoak."};
  Clock::time_point start_ = Clock::now();
  RelaySet relays_;
  std::vector<Peer> peers_;
  int port_a_ = 0;
  std::unique_ptr<test::TreeHarness> a_;
  std::unique_ptr<test::IbacmNode> ibacm_;
  std::vector<Interval> ibacm_down_;
};

Status FedRunner::WriteHosts(size_t p, const PeerHosts& h) {
  Peer& x = peers_[p];
  PeerHistory::Version v;
  v.from_s = Now();
  for (int i : h.nodes) {
    v.entries[x.letter + "node" + std::to_string(i)] = Gid(p, i);
    if (i != 2) v.entries[Ip(p, i)] = Gid(p, i);
  }
  v.entries[Ip(p, 2)] = Gid(p, h.moving_on);
  std::string text;
  for (const auto& e : v.entries) text += e.first + " " + e.second + "\n";
  Status st = test::WriteStringToFile(x.hosts + ".tmp", text);
  if (st.ok() && rename((x.hosts + ".tmp").c_str(), x.hosts.c_str()) != 0)
    st = Status::Error(errno, "rename " + x.hosts);
  if (st.ok()) x.history.versions.push_back(v);
  return st;
}

Status FedRunner::StartPeer(size_t p) {
  Peer& x = peers_[p];
  x.lives.push_back(std::make_unique<test::TempDir>("ssa-fedsoak-" + x.letter + "."));
  x.tree = std::make_unique<test::TreeHarness>(x.lives.back().get());
  test::TreeHarness::Options to;
  to.net_text = test::OneSwitchNet(3, "Sw", false);
  to.hcas = 3;
  to.osm_config = "subnet_prefix " + GuidText(x.prefix) + "\n";
  to.extra_plugin_options = "hosts_file=" + x.hosts + " federation_file=" + x.fed;
  Status st = x.tree->Start(to);
  if (!st.ok()) return st;
  for (int i = 1; i <= 3; ++i) x.guids[i] = x.tree->PortGuid("Hca" + std::to_string(i));
  return Status::Ok();
}

Status FedRunner::StopPeer(size_t p) {
  Peer& x = peers_[p];
  Status st = x.tree ? x.tree->Stop() : Status::Ok();
  x.tree.reset();
  if (st.ok()) x.lives.back()->Remove();
  return st;
}

Status FedRunner::StartA() {
  std::string routes = dir_.path() + "/prefix-routes.conf", hosts = dir_.path() + "/hosts-a";
  std::string text;
  for (const Peer& x : peers_) text += GuidText(x.prefix).substr(2) + " 0x0100000000000a01\n";
  Status st = test::WriteStringToFile(routes, text);
  if (!st.ok()) return st;
  a_ = std::make_unique<test::TreeHarness>(&dir_);
  test::TreeHarness::Options to;
  to.net_text = test::OneSwitchNet(6, "Switch1", true);  // R1: the way out
  to.hcas = 6;
  to.osm_config = "prefix_routes_file " + routes + "\nsubnet_prefix " + GuidText(kPrefixA) + "\n";
  to.extra_plugin_options =
      "hosts_file=" + hosts + " federation_file=" + dir_.path() + "/fed-a.conf";
  st = a_->Start(to);
  if (st.ok()) st = a_->StartIbssa("Hca2", "distribution");
  if (st.ok()) st = a_->StartIbssa("Hca3", "access");
  if (st.ok()) st = a_->StartIbssa("Hca4", "access");
  if (!st.ok()) return st;
  std::string gid6 = test::PrefixedGidText(kPrefixA, a_->PortGuid(kIbacmNode));
  return test::WriteStringToFile(hosts, "node6 " + gid6 + "\n10.1.0.6 " + gid6 + "\n");
}

Status FedRunner::StartIbacm() {
  test::IbacmNode::Options io;
  io.node = kIbacmNode;
  io.addr_cfg = "node6 ibsim0 1 default\n10.1.0.6 ibsim0 1 default\n";
  io.opts_cfg =
      "[core]\nlog_level = info\nprovider = ssa default\nsupport_ips_in_addr_cfg = yes\n"
      "[ssa]\nmad_timeout_ms = 300\nfallback = none\n";
  io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
  ibacm_ = std::make_unique<test::IbacmNode>(a_->fabric(), io);
  return ibacm_->Start();
}

size_t FedRunner::Round(bool exact) {
  size_t differ = 0;
  if (ibacm_ && !ibacm_->IsRunning()) {
    Fail("ibacm on " + std::string(kIbacmNode) + " exited by itself");
    ibacm_.reset();
  }
  if (!ibacm_) return 1;
  for (size_t p = 0; p < peers_.size(); ++p) {
    std::vector<std::string> keys;
    for (int i = 1; i <= 3; ++i) {
      keys.push_back(peers_[p].letter + "node" + std::to_string(i));
      keys.push_back(Ip(p, i));
    }
    for (const std::string& key : keys) {
      FedAnswer a;
      a.key = key;
      a.asked_s = Now();
      bool ip = key[0] >= '0' && key[0] <= '9';
      std::string out;
      int rc = -1;
      Status st = test::RunProgram({kStockIbAcme, "-S", ibacm_->socket_path(), "-f", ip ? "i" : "n",
                                    "-s", ip ? "10.1.0.6" : "node6", "-d", key},
                                   &out, &rc, std::chrono::seconds(10));
      a.answered_s = Now();
      size_t at = out.find("dgid: ");
      a.error = !st.ok() || rc != 0 || at == std::string::npos;
      if (!a.error) a.gid = out.substr(at + 6, out.find('\n', at) - at - 6);
      const PeerHistory& h = peers_[p].history;
      if (exact) {
        auto it = h.versions.back().entries.find(key);
        bool want = it != h.versions.back().entries.end();
        differ += want != !a.error || (want && it->second != a.gid);
        continue;
      }
      FedVerdict v = JudgeFedAnswer(h, ibacm_down_, o_.hold_s, o_.settle_s, a);
      ++r_->verdicts[FedVerdictName(v)];
      if (FedVerdictFails(v))
        Fail(Fmt("%.1f s: ", a.asked_s) + FedVerdictName(v) + ": " + key + " -> " +
             (a.error ? "error" : a.gid));
    }
  }
  return differ;
}

Status FedRunner::Execute(const FedEvent& e) {
  Log("#" + std::to_string(r_->events) + " " + e.Describe());
  ++r_->events;
  ++r_->events_by_kind[FedEventKindName(e.kind)];
  Peer* x = e.kind == FedEventKind::kIbacmRestart ? nullptr : &peers_[e.peer];
  switch (e.kind) {
    case FedEventKind::kLinkCut: {
      x->history.breaks.push_back({Now()});
      relays_.SetCut(x->relay_in, true);
      relays_.SetCut(x->relay_out, true);
      double until = Now() + e.for_s;
      while (Now() < until) Round(false);
      relays_.SetCut(x->relay_in, false);
      relays_.SetCut(x->relay_out, false);
      x->history.breaks.back().to_s = Now();
      Log("  link to " + x->letter + " restored");
      return Status::Ok();
    }
    case FedEventKind::kPeerRestart: {
      x->history.breaks.push_back({Now()});
      Status st = StopPeer(e.peer);
      // A peer that did not stop cleanly (a crash, a sanitizer report)
      // fails the run; the soak goes on with its next life.
      if (!st.ok()) Fail("peer " + x->letter + " did not stop cleanly: " + st.ToString());
      if (e.hosts_change) st = WriteHosts(e.peer, e.hosts);
      if (st.ok()) st = StartPeer(e.peer);
      x->history.breaks.back().to_s = Now();
      Log("  peer " + x->letter + " up again");
      return st;
    }
    case FedEventKind::kNodeLeaves:
    case FedEventKind::kAddressMoves: return WriteHosts(e.peer, e.hosts);
    case FedEventKind::kIbacmRestart: {
      ibacm_down_.push_back({Now()});
      if (ibacm_) {  // gone only when it exited by itself (a failure already)
        ibacm_->process()->Kill(SIGKILL);
        int status = 0;
        ibacm_->process()->Wait(std::chrono::seconds(10), &status);
      }
      Status st = StartIbacm();
      ibacm_down_.back().to_s = Now();
      return st;
    }
  }
  return Status::Ok();
}

Status FedRunner::StopAll() {
  auto judged = [&](const std::string& what, const Status& st) {
    if (!st.ok()) Fail(what + " did not stop cleanly: " + st.ToString());
  };
  if (ibacm_) judged("ibacm", ibacm_->Stop());
  ibacm_.reset();
  for (size_t p = 0; p < peers_.size(); ++p) judged("peer " + peers_[p].letter, StopPeer(p));
  if (a_) judged("subnet a", a_->Stop());
  a_.reset();
  relays_.Stop();
  return Status::Ok();
}

Status FedRunner::Run() {
  if (!dir_.status().ok()) return dir_.status();
  r_->seed = o_.seed;
  r_->duration_s = o_.duration_s;
  std::vector<int> ports;
  while (ports.size() < static_cast<size_t>(o_.peers) + 1) {
    int port = test::FreeLoopbackPort();
    if (port && std::find(ports.begin(), ports.end(), port) == ports.end()) ports.push_back(port);
  }
  port_a_ = ports[0];
  for (int p = 0; p < o_.peers; ++p) {
    Peer x;
    x.letter = std::string(1, static_cast<char>('b' + p));
    x.prefix = kPrefixA + 1 + p;
    x.port = ports[p + 1];
    x.hosts = dir_.path() + "/hosts-" + x.letter;
    x.fed = dir_.path() + "/fed-" + x.letter + ".conf";
    Status st = relays_.Add(x.port, &x.relay_in, &x.dial_in);
    if (st.ok()) st = relays_.Add(port_a_, &x.relay_out, &x.dial_out);
    if (!st.ok()) return st;
    peers_.push_back(std::move(x));
  }
  // Every pair of cores shares a key of its own; A's links go through the
  // relays, the peers' links to each other are direct.
  auto key_of = [&](char i, char j) {
    std::string path = dir_.path() + "/" + std::min(i, j) + std::max(i, j) + ".key";
    std::string key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddee";
    test::WriteStringToFile(path, key + std::min(i, j) + std::max(i, j) + "\n");
    chmod(path.c_str(), 0600);
    return path;
  };
  auto head = [&](int port) {
    return "listen 127.0.0.1:" + std::to_string(port) + "\nhold_s " + std::to_string(o_.hold_s) +
           "\n";
  };
  std::string fed_a = head(port_a_);
  for (const Peer& x : peers_) {
    fed_a += "peer " + x.letter + " 127.0.0.1:" + std::to_string(x.dial_in) + " " +
             GuidText(x.prefix) + " " + key_of('a', x.letter[0]) + "\n";
    std::string text = head(x.port) + "peer a 127.0.0.1:" + std::to_string(x.dial_out) + " " +
                       GuidText(kPrefixA) + " " + key_of('a', x.letter[0]) + "\n";
    for (const Peer& y : peers_)
      if (&y != &x)
        text += "peer " + y.letter + " 127.0.0.1:" + std::to_string(y.port) + " " +
                GuidText(y.prefix) + " " + key_of(x.letter[0], y.letter[0]) + "\n";
    Status st = test::WriteStringToFile(x.fed, text);
    if (!st.ok()) return st;
  }
  Status st = test::WriteStringToFile(dir_.path() + "/fed-a.conf", fed_a);
  if (st.ok()) st = relays_.Start();
  for (size_t p = 0; st.ok() && p < peers_.size(); ++p) {
    st = StartPeer(p);
    if (st.ok()) st = WriteHosts(p, PeerHosts());
  }
  if (st.ok()) st = StartA();
  if (st.ok()) st = StartIbacm();
  // node6 and 10.1.0.6, and each peer's three names and three IPs.
  const size_t n = 1 + 3 * peers_.size();
  if (st.ok()) st = ibacm_->WaitAddresses(n, n, std::chrono::seconds(60));
  if (!st.ok()) {
    StopAll();
    dir_.keep();
    return st;
  }
  // The run's clock: every peer's first version from its start.
  const Clock::time_point brought_up = Clock::now();
  start_ = brought_up;
  for (Peer& x : peers_) x.history.versions.front().from_s = 0;
  for (const FedEvent& e : MakeFedSchedule(o_)) {
    while (Now() < e.at_s) Round(false);
    st = Execute(e);
    if (!st.ok()) break;
  }
  while (st.ok() && Now() < o_.duration_s) Round(false);
  // Convergence: A serves exactly every peer's entries now.
  const double end = Now();
  while (st.ok() && Now() - end < o_.converge_limit_s) {
    if (Round(true) == 0) {
      r_->convergence_s = Now() - end;
      break;
    }
  }
  if (st.ok() && r_->convergence_s < 0)
    Fail(Fmt("A did not serve every peer's entries exactly within %.0f s of the end",
             o_.converge_limit_s));
  StopAll();
  r_->wall_s = Now();
  r_->passed = st.ok() && r_->failures.empty();
  if (!r_->passed) {
    dir_.keep();
    r_->run_dir = dir_.path();
  }
  return st;
}

}  // namespace

std::string FedSoakResult::Summary() const {
  std::string s;
  auto line = [&](const std::string& name, const std::string& value) {
    s += name + " = " + value + "\n";
  };
  line("result", passed ? "PASS" : "FAIL");
  line("mode", "federated");
  line("seed", std::to_string(seed));
  line("duration_s", Fmt("%.0f", duration_s));
  line("wall_s", Fmt("%.0f", wall_s));
  line("events", std::to_string(events));
  for (int k = 0; k < kFedEventKinds; ++k) {
    const char* kind = FedEventKindName(static_cast<FedEventKind>(k));
    auto it = events_by_kind.find(kind);
    line(std::string("events_") + kind,
         std::to_string(it == events_by_kind.end() ? 0 : it->second));
  }
  for (FedVerdict v :
       {FedVerdict::kFresh, FedVerdict::kHeld, FedVerdict::kExcusedError, FedVerdict::kWrong,
        FedVerdict::kServedWithdrawn, FedVerdict::kMissingSettled}) {
    auto it = verdicts.find(FedVerdictName(v));
    line(std::string("answers_") + FedVerdictName(v),
         std::to_string(it == verdicts.end() ? 0 : it->second));
  }
  line("convergence_s", convergence_s < 0 ? "none" : Fmt("%.1f", convergence_s));
  for (const std::string& f : failures) s += "failure: " + f + "\n";
  if (!run_dir.empty()) s += "kept: " + run_dir + "\n";
  return s;
}

Status RunFederatedSoak(const FedSoakOptions& options, FedSoakResult* result) {
  *result = FedSoakResult();
  FedRunner runner(options, result);
  return runner.Run();
}

}  // namespace soak
}  // namespace ssa
