// bench_fallback: the SA load of the ssa provider's fallback when a whole
// fabric loses its tree at once (issue 46, finding 8): SA path queries per
// second from N consumers in the first minute after the tree goes away,
// without the bound (fallback_sa_rate = 0, fallback_jitter_s = 0: the
// behaviour before it) and with it (the defaults, or --rate/--burst/
// --jitter/--wait), next to what OpenSM's SA serves (--sa-qps, measured by
// bench_engine on this machine; doc/performance.md).
//
// N ibacm daemons with a tree each do not fit on this machine (two cores;
// bench_tree runs a few hundred consumers' children), so each consumer is
// the real ssa provider in this process, on its own fake core
// (test/support/fake_core.h) and a virtual clock shared by all, stepped a
// millisecond-exact 10 ms at a time: its timers fire when due, its SA
// queries are counted in the second they are sent and answered (a valid
// record, cacheable) one step later. Its port joins no tree: each request
// it gets goes to its fallback, as after the tree went away. Before that
// moment the consumer's PRDB answers: each node's moment is t = 0 without
// the bound, or its draw within fallback_jitter_s with it (the provider's
// own FallbackJitter, as Confirmation::Check uses it).
//
// The demand: every node's applications resolve --req-rate paths a second
// (default 20), each to one of --dests destinations (default 2000, the
// peers of the node's jobs) drawn at random; the embedded sa provider's
// cache answers a destination it has asked for before.
//
//   make bench && test/bench/bench_fallback [--nodes N] [--seconds S] [--req-rate R]
//       [--dests D] [--rate Q] [--burst B] [--jitter S] [--wait MS] [--sa-qps Q]
#include <arpa/inet.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "providers/ssa/fallback_jitter.h"
#include "providers/ssa/ssa_provider.h"
#include "test/support/fake_core.h"
#include "test/support/sa_reply.h"

namespace {

namespace mad = ssa::mad;
using ssa::ssa_provider::FallbackJitter;
using ssa::ssa_provider::SsaProvider;

constexpr uint64_t kStepMs = 10;

// A fake core on the shared virtual clock: timers with their due time,
// SA queries counted and answered a step after they are sent.
class BenchCore : public ssa::test::FakeCore {
 public:
  explicit BenchCore(const uint64_t* now_ms, std::vector<uint64_t>* per_second)
      : now_ms_(now_ms), per_second_(per_second) {}
  struct Due {
    uint64_t at;
    ssa_timer_fn fn;
    void* arg;
    uint64_t id;
    bool live;
  };
  std::vector<Due> due;
  std::vector<Sent> to_answer;

  void Step() {
    std::vector<Sent> answer;
    answer.swap(to_answer);
    for (Sent& s : answer) Reply(s);
    for (size_t i = 0; i < due.size();) {
      if (!due[i].live) {
        due.erase(due.begin() + static_cast<long>(i));
        continue;
      }
      if (due[i].at > *now_ms_) {
        ++i;
        continue;
      }
      Due d = due[i];
      due.erase(due.begin() + static_cast<long>(i));
      d.fn(d.arg);
    }
  }

 protected:
  int SaSend(ssa_core_port_t*, const uint8_t* m, size_t len, ssa_sa_done_fn done,
             void* arg) override {
    size_t second = *now_ms_ / 1000;
    if (second < per_second_->size()) ++(*per_second_)[second];
    Sent s;
    s.mad.assign(m, m + len);
    s.done = done;
    s.arg = arg;
    to_answer.push_back(std::move(s));
    return 0;
  }
  uint64_t TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg) override {
    due.push_back({*now_ms_ + delay_ms, fn, arg, ++next_timer_, true});
    return next_timer_;
  }
  int TimerCancel(uint64_t id) override {
    for (Due& d : due)
      if (d.id == id) d.live = false;
    return 0;
  }
  void Log(int, const std::string&) override {}

 private:
  void Reply(const Sent& s) {
    mad::PathRecord asked;
    mad::DecodePathRecord(s.mad.data() + mad::kSaDataOffset, mad::kPathRecordSize, &asked);
    mad::PathRecord r;
    memcpy(r.sgid, asked.sgid, 16);
    r.dlid = asked.dlid;
    r.slid = 5;
    r.pkey = asked.pkey;
    ssa::test::TypicalPathFields(&r);
    uint8_t m[mad::kMadSize] = {};
    ssa::test::EncodeSaPathReply(r, 0, m);
    s.done(s.arg, 0, m, sizeof(m));
  }

  const uint64_t* now_ms_;
  std::vector<uint64_t>* per_second_;
  uint64_t next_timer_ = 0;
};

struct Node {
  std::unique_ptr<BenchCore> core;
  std::unique_ptr<SsaProvider> prov;
  ssa::sa::SaDevice* dev = nullptr;
  ssa::sa::SaPort* port = nullptr;
  ssa::sa::SaEndpoint* ep = nullptr;
  ssa::sa::SaAddress* addr = nullptr;
  uint16_t pkeys[1] = {0xffff};
  uint64_t falls_back_ms = 0;  // its PRDB answers until then
  double owed = 0;             // requests due, fractional
  uint64_t next_id = 1;
};

struct Config {
  int nodes = 1000;
  int seconds = 60;
  double req_rate = 20;
  int dests = 2000;
  std::string rate = "2", burst = "10", jitter = "15", wait = "5000";
  double sa_qps = 0;
};

struct Result {
  std::vector<uint64_t> per_second;
  uint64_t requests = 0, from_prdb = 0, ok = 0, timed_out = 0, other = 0;
};

Result Run(const Config& c, bool bounded) {
  Result res;
  res.per_second.assign(static_cast<size_t>(c.seconds), 0);
  uint64_t now_ms = 0;
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::string, std::string>> opts;
  if (bounded)
    opts = {{"fallback_sa_rate", c.rate},
            {"fallback_sa_burst", c.burst},
            {"fallback_jitter_s", c.jitter},
            {"fallback_wait_ms", c.wait}};
  else
    opts = {{"fallback_sa_rate", "0"}, {"fallback_jitter_s", "0"}};
  const int window_s = bounded ? atoi(c.jitter.c_str()) : 0;
  FallbackJitter jitter(std::chrono::seconds(window_s), 11);
  std::vector<Node> nodes(static_cast<size_t>(c.nodes));
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node& n = nodes[i];
    n.core = std::make_unique<BenchCore>(&now_ms, &res.per_second);
    n.core->SetOptions("bench.cfg", 1, opts);
    n.prov = std::make_unique<SsaProvider>(&BenchCore::kOps, n.core->handle());
    n.prov->sa()->set_clock([&now_ms] { return now_ms; });
    if (n.prov->Init()) {
      fprintf(stderr, "init failed\n");
      exit(1);
    }
    ssa_device_info d = {sizeof(d), "fake0", 0x0002c90300001230ULL, 1};
    n.prov->OpenDevice(&d, &n.dev);
    ssa_port_info info{};
    info.size = sizeof(info);
    info.ca_name = "fake0";
    info.port_num = 1;
    info.state = 2;  // joins no tree: every request goes to the fallback
    info.lid = static_cast<uint16_t>(1 + i % 40000);
    info.sm_lid = 1;
    info.gid_prefix = 0xfe80000000000000ULL;
    info.port_guid = 0x0002c90300000000ULL + i;
    info.pkey_count = 1;
    info.pkeys = n.pkeys;
    n.prov->OpenPort(n.dev, &info, reinterpret_cast<ssa_core_port_t*>(n.core.get()), &n.port);
    ssa_endpoint_info e = {sizeof(e), 0xffff, 0};
    n.prov->OpenEndpoint(n.port, &e, &n.ep);
    ssa_address self = {};
    self.size = sizeof(self);
    self.type = SSA_ADDR_NAME;
    snprintf(reinterpret_cast<char*>(self.data), sizeof(self.data), "node%zu", i);
    n.prov->AddAddress(n.ep, &self, &n.addr);
    // The port's draw, as the provider makes it: time 0 is the start of
    // the window before the bound, when the first node may fall back.
    FallbackJitter::PortState st;
    jitter.FallsBack(&st, 0, 1e9);
    n.falls_back_ms = static_cast<uint64_t>((window_s - st.early_s) * 1000);
    n.owed = std::uniform_real_distribution<double>(0, 1)(rng);  // phases differ
  }
  std::uniform_int_distribution<int> dest(1, c.dests);
  const uint64_t end_ms = static_cast<uint64_t>(c.seconds) * 1000;
  for (now_ms = 0; now_ms < end_ms; now_ms += kStepMs) {
    for (Node& n : nodes) {
      n.core->Step();
      n.owed += c.req_rate * kStepMs / 1000.0;
      for (; n.owed >= 1; n.owed -= 1) {
        ++res.requests;
        if (now_ms < n.falls_back_ms) {
          ++res.from_prdb;
          continue;
        }
        ssa_resolve_request req = {};
        req.size = sizeof(req);
        req.dst.size = sizeof(req.dst);
        req.dst.type = SSA_ADDR_LID;
        uint16_t be = ssa::ToBe16(static_cast<uint16_t>(100 + dest(rng)));
        memcpy(req.dst.data, &be, 2);
        n.prov->Resolve(n.addr, &req, n.next_id++);
      }
      for (const auto& a : n.core->answers) {
        if (a.second.status == ACM_STATUS_SUCCESS)
          ++res.ok;
        else if (a.second.status == ACM_STATUS_ETIMEDOUT)
          ++res.timed_out;
        else
          ++res.other;
      }
      n.core->answers.clear();
    }
  }
  for (Node& n : nodes) {
    n.prov->RemoveAddress(n.addr);
    n.prov->CloseEndpoint(n.ep);
    n.prov->ClosePort(n.port);
    n.prov->CloseDevice(n.dev);
    n.prov.reset();
  }
  return res;
}

void Print(const char* name, const Config& c, const Result& r) {
  uint64_t total = 0, peak = 0;
  for (uint64_t v : r.per_second) {
    total += v;
    peak = std::max(peak, v);
  }
  printf("%s:\n  SA queries/s by second:", name);
  for (size_t s = 0; s < r.per_second.size(); ++s)
    printf("%s%llu", s % 10 ? " " : "\n    ", static_cast<unsigned long long>(r.per_second[s]));
  printf("\n");
  printf("  %s_first_second_qps = %llu\n", name,
         static_cast<unsigned long long>(r.per_second.empty() ? 0 : r.per_second[0]));
  printf("  %s_peak_qps = %llu\n", name, static_cast<unsigned long long>(peak));
  printf("  %s_mean_qps = %.0f\n", name, static_cast<double>(total) / c.seconds);
  printf("  %s_sa_queries = %llu\n", name, static_cast<unsigned long long>(total));
  printf(
      "  requests %llu: %llu from the PRDB (before the node's fallback), %llu answered, %llu "
      "ETIMEDOUT, %llu other\n",
      static_cast<unsigned long long>(r.requests), static_cast<unsigned long long>(r.from_prdb),
      static_cast<unsigned long long>(r.ok), static_cast<unsigned long long>(r.timed_out),
      static_cast<unsigned long long>(r.other));
  if (c.sa_qps > 0)
    printf("  peak / OpenSM's SA (%.0f/s) = %.2f\n", c.sa_qps,
           static_cast<double>(peak) / c.sa_qps);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--nodes")
      c.nodes = atoi(v.c_str());
    else if (k == "--seconds")
      c.seconds = atoi(v.c_str());
    else if (k == "--req-rate")
      c.req_rate = atof(v.c_str());
    else if (k == "--dests")
      c.dests = atoi(v.c_str());
    else if (k == "--rate")
      c.rate = v;
    else if (k == "--burst")
      c.burst = v;
    else if (k == "--jitter")
      c.jitter = v;
    else if (k == "--wait")
      c.wait = v;
    else if (k == "--sa-qps")
      c.sa_qps = atof(v.c_str());
    else {
      fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  printf("bench_fallback: %d nodes, %d s, %.0f requests/s a node to %d destinations\n", c.nodes,
         c.seconds, c.req_rate, c.dests);
  printf(
      "bound: fallback_sa_rate %s, fallback_sa_burst %s, fallback_jitter_s %s, "
      "fallback_wait_ms %s\n",
      c.rate.c_str(), c.burst.c_str(), c.jitter.c_str(), c.wait.c_str());
  Print("unbounded", c, Run(c, false));
  Print("bounded", c, Run(c, true));
  return 0;
}
