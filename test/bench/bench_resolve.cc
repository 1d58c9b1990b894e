// bench_resolve: figures for the sa and ssa providers' paths, printed side
// by side in one run (ratios, because the machines are shared and noisy):
//   1. cached resolves per second through ibacm's socket with the sa
//      provider (A) and with the ssa provider answering from its PRDB (C,
//      with OpenSM's plugin as the tree's core and an ibssa access node)
//      vs the same protocol against a null server (NullAcmServer) on the
//      same socket kind (B), interleaved A C B for --rounds rounds (at
//      least 5), so all see the same noise: the median ratios with their
//      min-max spread, and the latency of each one's resolves under that
//      load (p50, p99 over every round);
//   1s. libibssa_path (S): the same LID looked up in the ssa provider's
//      daemon's shared-memory tables, from one thread (its latency) and
//      from --clients threads (its rate), in the same rounds right after C:
//      the rate over C's (the socket's with the same threads);
//   1b. the latency of one cached resolve: one client at a time (on two
//      cores, --clients threads plus the server queue behind each other,
//      which the load figures include), interleaved A C B the same way;
//   2. SA-miss resolve latency vs a bare SubnAdmGet PathRecord round trip
//      made by this program itself as the same node;
//   3. coalescing: N concurrent requests for one uncached destination and
//      how many SA queries they cost.
// Not a test: it prints figures and exits 0 unless something broke.
//
// --flood measures one client's share instead (and nothing else): the
// latency of one client resolving one request at a time, alone (A) and
// while four other connections keep 32 requests each in flight (B: a
// self-paced flood, resolve_flood.h), interleaved for --rounds rounds,
// with the CPUs held out of idle states as in 1b; per round the ratios of
// B's p50 and p99 over A's, and their medians with the spread. Between A
// and B, a control (C): the same flood on a second daemon, so the machine
// (and the SA) carry the same load but this daemon does not; B's p99 over
// C's is what the daemon itself adds. First with cached resolves (F1: the
// socket and the loop; goal p99 ratio <= 3), then with QUERY_SA requests
// on both sides (F2: the SA queue). --core-opt LINE
// (repeatable) adds LINE to the [core] section of the daemon under test,
// e.g. to see the flood without the bounds (client_read_budget = 65536).
// --flood-nice N runs the flood's thread at nice N: on a machine with
// fewer cores than the daemon, the flood and the client need, the client
// also waits for a CPU behind the flood, which is the scheduler's doing,
// not the daemon's; a niced flood leaves most of that out.
//
//   bench_resolve [--hcas N] [--seconds S] [--clients C] [--rounds R]
//   bench_resolve --flood [--flood-nice N] [--hcas N] [--seconds S] [--rounds R]
//                 [--core-opt LINE]...
//   bench_resolve --sa-rtt DLID...   (internal: run as a node by the bench)
// The output ends with `name = value` lines (ratio_median, ratio_min,
// ratio_max for the sa provider; p50, p99 in microseconds: its one-client
// latency (1b); load_p50, load_p99: its latency under --clients (1);
// ssa_ratio_*, ssa_p50, ssa_p99, ssa_load_p50, ssa_load_p99 the same for
// the ssa provider; null_p50, null_p99 the null server's one-client
// latency; shm_p50, shm_p99 the library's one-thread lookup latency,
// shm_over_socket the median of its rate over the ssa provider's socket
// rate (C), shm_rate_1 and shm_rate_n its median rates from one and
// --clients threads; rounds). With --flood: flood_p50_over_alone and
// flood_p99_over_alone (the medians, with _min and _max), likewise
// flood_p99_over_control, alone_p50, alone_p99, flood_control_p50,
// flood_control_p99, flood_p50, flood_p99 (microseconds, over every
// round), flood_rate (the flood's answers per second), the same with
// flood_sa_ and sa_ for F2, and rounds.
#include <arpa/inet.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/base/big_endian.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"
#include "common/mad/umad_ports.h"
#include "test/bench/null_acm_server.h"
#include "test/bench/resolve_flood.h"
#include "test/bench/shm_contender.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_process.h"
#include "test/support/temp_dir.h"

using Clock = std::chrono::steady_clock;
using ssa::Status;

namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

ssa::acm::EpAddr LidDest(uint16_t lid) {
  ssa::acm::EpAddr e;
  e.flags = ssa::acm::kEpFlagDest;
  e.SetLid(lid);
  return e;
}

// Percentile `q` (0..1) of `v` (sorted here), nearest rank.
double Percentile(std::vector<double>* v, double q) {
  if (v->empty()) return 0;
  std::sort(v->begin(), v->end());
  size_t rank = static_cast<size_t>(q * static_cast<double>(v->size()) + 0.5);
  return (*v)[std::min(v->size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Resolves `lid` in a loop from `clients` threads for `seconds`; returns
// resolves per second (-1 on a failure) and, with `latency_us`, appends
// every resolve's round trip.
double ResolveRate(const std::string& socket, uint16_t lid, int clients, double seconds,
                   std::vector<double>* latency_us = nullptr) {
  std::atomic<long> done{0};
  std::atomic<bool> failed{false};
  std::vector<std::vector<double>> lat(static_cast<size_t>(clients));
  // Every client connects before the clock starts.
  std::vector<std::unique_ptr<ssa::AcmClient>> conns;
  for (int c = 0; c < clients; ++c) {
    conns.push_back(std::make_unique<ssa::AcmClient>());
    if (!conns.back()->Connect(socket).ok()) return -1;
  }
  auto start = Clock::now();
  auto end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      ssa::AcmClient& client = *conns[static_cast<size_t>(c)];
      std::vector<double>& mine = lat[static_cast<size_t>(c)];
      ssa::acm::ResolveResponse r;
      for (;;) {
        auto t0 = Clock::now();
        if (t0 >= end) break;
        if (!client.Resolve({LidDest(lid)}, &r).ok() || r.hdr.status != 0) {
          failed = true;
          return;
        }
        if (latency_us)
          mine.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        ++done;
      }
    });
  }
  for (auto& t : threads) t.join();
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed) return -1;
  if (latency_us)
    for (auto& v : lat) latency_us->insert(latency_us->end(), v.begin(), v.end());
  return done / elapsed;
}

uint64_t RouteQueries(const std::string& socket) {
  ssa::AcmClient c;
  ssa::acm::PerfResponse p;
  if (!c.Connect(socket).ok() || !c.PerfQuery(0, &p).ok() || p.counters.size() < 7) return 0;
  return p.counters[ssa::acm::kCntrRouteQuery];
}

// Keeps the CPUs out of idle states while the returned descriptor is open
// (-1: not held; root only). See section 1b.
int HoldCpusAwake() {
  int fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
  int32_t no_idle = 0;
  if (fd >= 0 && write(fd, &no_idle, sizeof(no_idle)) != sizeof(no_idle)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

struct Spread {
  double median, min, max;
};
Spread SpreadOf(const std::vector<double>& v) {
  return {Median(v), *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

// The victim's round trips on `socket` while the flood keeps `target`
// busy (4 connections x 32 in flight), and the flood's answers per second.
Status Flooded(const std::string& socket, const std::string& target,
               const std::vector<ssa::acm::EpAddr>& victim, const std::vector<uint8_t>& flood,
               int flood_nice, double seconds, std::vector<double>* latency_us, uint64_t* errors,
               double* rate) {
  constexpr int kConnections = 4, kDepth = 32;
  ssa::bench::ResolveFlood f;
  f.set_nice(flood_nice);
  Status st = f.Start(target, flood, kConnections, kDepth);
  // The flood runs before the clock starts: every connection answered.
  auto warm_until = Clock::now() + std::chrono::seconds(10);
  while (st.ok() && f.answered() < kConnections * kDepth && Clock::now() < warm_until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  uint64_t before = f.answered();
  auto t0 = Clock::now();
  if (st.ok()) st = ssa::bench::VictimLatency(socket, victim, seconds, latency_us, errors);
  *rate = (f.answered() - before) / std::chrono::duration<double>(Clock::now() - t0).count();
  if (st.ok() && f.failed()) st = Status::Error(EPIPE, "a flood connection broke");
  return st;
}

// One section of --flood: `victim` on `socket` alone (A), next to the
// flood on a second daemon, `control` (C: the same load on the machine
// and the SA, not on this daemon), and next to the flood on this daemon
// (B), interleaved A C B; prints the rounds and adds its name = value
// lines to `lines` (names start with `prefix`; the victim's own figures
// with `own`). False when something broke.
bool FloodSection(const char* title, const std::string& prefix, const std::string& own,
                  const std::string& socket, const std::string& control,
                  const std::vector<ssa::acm::EpAddr>& victim, const std::vector<uint8_t>& flood,
                  int flood_nice, int rounds, double seconds, std::vector<std::string>* lines) {
  printf(
      "\n%s\n   round    A: alone p50    p99   C: control p50    p99   B: flooded p50    p99"
      "   B/A p50   p99   B/C p99  flood answers/s\n",
      title);
  std::vector<double> all[3], p50_ratio, p99_ratio, p99_control, rates;
  uint64_t errors[3] = {0, 0, 0};
  for (int round = 1; round <= rounds; ++round) {
    std::vector<double> lat[3];
    double rate = 0, control_rate = 0;
    Status st = ssa::bench::VictimLatency(socket, victim, seconds, &lat[0], &errors[0]);
    if (st.ok())
      st = Flooded(socket, control, victim, flood, flood_nice, seconds, &lat[1], &errors[1],
                   &control_rate);
    if (st.ok())
      st = Flooded(socket, socket, victim, flood, flood_nice, seconds, &lat[2], &errors[2], &rate);
    if (!st.ok() || lat[0].empty() || lat[1].empty() || lat[2].empty()) {
      fprintf(stderr, "%sround %d: %s\n", prefix.c_str(), round, st.ToString().c_str());
      return false;
    }
    double p50[3], p99[3];
    for (int i = 0; i < 3; ++i) {
      all[i].insert(all[i].end(), lat[i].begin(), lat[i].end());
      p50[i] = Percentile(&lat[i], 0.5);
      p99[i] = Percentile(&lat[i], 0.99);
    }
    p50_ratio.push_back(p50[2] / p50[0]);
    p99_ratio.push_back(p99[2] / p99[0]);
    p99_control.push_back(p99[2] / p99[1]);
    rates.push_back(rate);
    printf("   %5d %15.1f %6.1f %16.1f %6.1f %16.1f %6.1f %9.2f %5.2f %9.2f %16.0f\n", round,
           p50[0], p99[0], p50[1], p99[1], p50[2], p99[2], p50_ratio.back(), p99_ratio.back(),
           p99_control.back(), rate);
  }
  Spread r50 = SpreadOf(p50_ratio), r99 = SpreadOf(p99_ratio), rc = SpreadOf(p99_control);
  for (const auto& kv : std::vector<std::pair<std::string, Spread>>{
           {"p50_over_alone", r50}, {"p99_over_alone", r99}, {"p99_over_control", rc}})
    printf("   %-26s %7.2f (median; min %.2f, max %.2f)\n", (prefix + kv.first).c_str(),
           kv.second.median, kv.second.min, kv.second.max);
  double p50[3], p99[3];
  for (int i = 0; i < 3; ++i) {
    p50[i] = Percentile(&all[i], 0.5);
    p99[i] = Percentile(&all[i], 0.99);
  }
  printf(
      "   every round: A %.1f us p50, %.1f us p99 (%zu); C %.1f, %.1f (%zu); B %.1f, %.1f (%zu);\n"
      "   answered with an error: %llu, %llu, %llu; flood %.0f answers/s (median)\n",
      p50[0], p99[0], all[0].size(), p50[1], p99[1], all[1].size(), p50[2], p99[2], all[2].size(),
      static_cast<unsigned long long>(errors[0]), static_cast<unsigned long long>(errors[1]),
      static_cast<unsigned long long>(errors[2]), Median(rates));
  char buf[160];
  for (const auto& kv : std::vector<std::pair<std::string, Spread>>{
           {"p50_over_alone", r50}, {"p99_over_alone", r99}, {"p99_over_control", rc}}) {
    snprintf(buf, sizeof(buf), "%s%s = %.3f", prefix.c_str(), kv.first.c_str(), kv.second.median);
    lines->push_back(buf);
    snprintf(buf, sizeof(buf), "%s%s_min = %.3f", prefix.c_str(), kv.first.c_str(), kv.second.min);
    lines->push_back(buf);
    snprintf(buf, sizeof(buf), "%s%s_max = %.3f", prefix.c_str(), kv.first.c_str(), kv.second.max);
    lines->push_back(buf);
  }
  for (const auto& kv :
       std::vector<std::pair<std::string, double>>{{own + "alone_p50", p50[0]},
                                                   {own + "alone_p99", p99[0]},
                                                   {prefix + "control_p50", p50[1]},
                                                   {prefix + "control_p99", p99[1]},
                                                   {prefix + "p50", p50[2]},
                                                   {prefix + "p99", p99[2]},
                                                   {prefix + "rate", Median(rates)}}) {
    snprintf(buf, sizeof(buf), "%s = %.1f", kv.first.c_str(), kv.second);
    lines->push_back(buf);
  }
  return true;
}

// --flood: F1 with cached resolves of `hot`, F2 with QUERY_SA requests for
// `sa_lid`, against the daemon on `socket`.
int RunFlood(const std::string& socket, const std::string& control, uint16_t hot, uint16_t sa_lid,
             int flood_nice, int rounds, double seconds) {
  for (const std::string& s : {socket, control}) {
    ssa::AcmClient warm;
    ssa::acm::ResolveResponse r;
    if (!warm.Connect(s).ok() || !warm.Resolve({LidDest(hot)}, &r).ok() || r.hdr.status) {
      fprintf(stderr, "warm-up resolve failed (status %d)\n", r.hdr.status);
      return 1;
    }
  }
  int awake_fd = HoldCpusAwake();
  const char* idle = awake_fd >= 0
                         ? "CPU idle states held off through /dev/cpu_dma_latency"
                         : "CPU idle states NOT held off: /dev/cpu_dma_latency not writable";
  std::vector<std::string> lines;
  std::vector<uint8_t> cached;
  Status st = ssa::acm::EncodeResolveRequest(1, {LidDest(hot)}, &cached);
  char title[512];
  snprintf(title, sizeof(title),
           "F1. one client's cached resolves: alone (A), while 4 connections keep 32 cached\n"
           "    resolves each in flight on another daemon (C, the control: the machine as loaded)\n"
           "    and on this one (B); the flood at nice %d, %d rounds of %.1f s each, interleaved\n"
           "    A C B (%s):",
           flood_nice, rounds, seconds, idle);
  bool ok = st.ok() && FloodSection(title, "flood_", "", socket, control, {LidDest(hot)}, cached,
                                    flood_nice, rounds, seconds, &lines);
  // F2: QUERY_SA, a path by DLID (the daemon fills in its own source).
  ibv_path_record path = {};
  path.dlid = ssa::ToBe16(sa_lid);
  path.pkey = ssa::ToBe16(0xffff);
  path.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  ssa::acm::EpAddr query;
  query.flags = ssa::acm::kFlagQuerySa;
  query.SetPath(path);
  std::vector<uint8_t> sa_query;
  if (ok) st = ssa::acm::EncodeResolveRequest(1, {query}, &sa_query);
  snprintf(title, sizeof(title),
           "F2. the same with QUERY_SA requests on both sides (the control loads the SA as\n"
           "    much; sa_depth 16), the flood at nice %d, %d rounds of %.1f s each:",
           flood_nice, rounds, seconds);
  ok = ok && st.ok() &&
       FloodSection(title, "flood_sa_", "sa_", socket, control, {query}, sa_query, flood_nice,
                    rounds, seconds, &lines);
  if (awake_fd >= 0) close(awake_fd);
  if (!ok) return 1;
  printf("\n");
  for (const std::string& line : lines) printf("%s\n", line.c_str());
  printf("rounds = %d\n", rounds);
  return 0;
}

// A second daemon like `options` on Hca3, its endpoint named `name`; null
// (said on stderr) when it does not start.
std::unique_ptr<ssa::test::IbacmNode> StartOnHca3(ssa::test::SimFabric* fabric,
                                                  ssa::test::IbacmNode::Options options,
                                                  const std::string& name) {
  options.node = "Hca3";
  options.addr_cfg = name + " ibsim0 1 default\n";
  auto node = std::make_unique<ssa::test::IbacmNode>(fabric, options);
  Status st = node->Start();
  if (st.ok()) return node;
  fprintf(stderr, "ibacm %s: %s\n", name.c_str(), st.ToString().c_str());
  return nullptr;
}

// --sa-rtt: bare SA round trips from this node, one at a time.
int SaRoundTrips(const std::vector<uint16_t>& lids) {
  std::vector<ssa::UmadPort> ports;
  Status st = ssa::DiscoverPorts(&ports);
  if (!st.ok() || ports.empty()) {
    fprintf(stderr, "no port: %s\n", st.ToString().c_str());
    return 1;
  }
  ssa::EventLoop loop;
  ssa::Logger log;
  log.set_level(ssa::LogLevel::kWarn);
  loop.Init();
  ssa::SaClientOptions opts;
  ssa::SaClient sa(&loop, &log, ports[0], opts);
  st = sa.Open();
  if (!st.ok()) {
    fprintf(stderr, "SA: %s\n", st.ToString().c_str());
    return 1;
  }
  for (uint16_t dlid : lids) {
    uint8_t mad[ssa::mad::kMadSize];
    ssa::mad::BuildPathRecordGetByLid(0, ports[0].lid, dlid, 0xffff, mad);
    bool done = false;
    auto t0 = Clock::now();
    sa.Send(mad, sizeof(mad), [&](int, const uint8_t*, size_t) { done = true; });
    loop.RunUntil([&] { return done; }, std::chrono::seconds(10));
    printf("%.1f\n", std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int hcas = 36, clients = 4, rounds = 5;
  double seconds = 1.0;
  bool flood = false;
  int flood_nice = 0;
  std::string core_opts;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--sa-rtt") {
      std::vector<uint16_t> lids;
      for (int j = i + 1; j < argc; ++j) lids.push_back(static_cast<uint16_t>(atoi(argv[j])));
      return SaRoundTrips(lids);
    }
    if (a == "--hcas" && i + 1 < argc)
      hcas = atoi(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (a == "--clients" && i + 1 < argc)
      clients = atoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = atoi(argv[++i]);
    else if (a == "--flood")
      flood = true;
    else if (a == "--flood-nice" && i + 1 < argc)
      flood_nice = atoi(argv[++i]);
    else if (a == "--core-opt" && i + 1 < argc)
      core_opts += std::string(argv[++i]) + "\n";
    else {
      fprintf(stderr,
              "usage: %s [--flood [--flood-nice N]] [--hcas N] [--seconds S] [--clients C] "
              "[--rounds R (>= 5)] [--core-opt LINE]...\n",
              argv[0]);
      return 2;
    }
  }
  if (rounds < 5 || clients < 1 || seconds <= 0) {
    fprintf(stderr,
            "bench_resolve: --rounds must be at least 5 (a median needs them), --clients and "
            "--seconds positive\n");
    return 2;
  }

  ssa::test::FatTreeOptions ft;
  ft.hcas = hcas;
  ssa::test::GeneratedNet net;
  Status st = ssa::test::FatTreeNet(ft, &net);
  ssa::test::SimFabric::Options fo;
  fo.net_text = net.text;
  fo.ibsim_args = net.ibsim_args;
  // OpenSM loads the plugin, the SSA tree's core, for the ssa provider's
  // contender (an access node on Hca4, the daemon on Hca5).
  ssa::test::TempDir plugin_dir;
  ssa::test::PluginSetup plugin;
  plugin.dir = plugin_dir.path();
  if (st.ok()) st = plugin.Configure(plugin.DefaultOptions() + " listen=127.0.0.1:0", &fo);
  std::unique_ptr<ssa::test::SimFabric> fabric;
  if (st.ok()) st = ssa::test::SimFabric::Start(fo, &fabric);
  if (!st.ok()) {
    fprintf(stderr, "fabric: %s\n", st.ToString().c_str());
    return 1;
  }
  printf("fabric: %d HCAs, %d switches (fat tree), OpenSM with the ibssa_osm plugin on Hca1\n",
         net.hcas, net.switches);

  ssa::test::IbacmNode::Options no;
  no.node = "Hca2";
  no.addr_cfg = "bench ibsim0 1 default\n";
  no.opts_cfg = "[core]\nlog_level = warn\nprovider = sa default\n" + core_opts;
  no.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/sa/.libs";
  ssa::test::IbacmNode ibacm(fabric.get(), no);
  st = ibacm.Start();
  if (!st.ok()) {
    fprintf(stderr, "ibacm: %s\n", st.ToString().c_str());
    return 1;
  }
  // --flood: the sa provider's daemon, and a second one on Hca3 for the
  // control; their caches hold LID 1 after the warm-up, and the SA is
  // asked for the fabric's last LID.
  if (flood) {
    std::unique_ptr<ssa::test::IbacmNode> control = StartOnHca3(fabric.get(), no, "control");
    if (!control) return 1;
    return RunFlood(ibacm.socket_path(), control->socket_path(), 1,
                    static_cast<uint16_t>(net.nodes), flood_nice, rounds, seconds);
  }

  ssa::bench::NullAcmServer null_server;
  std::string null_socket = fabric->run_dir() + "/null.sock";
  st = null_server.Start(null_socket);
  if (!st.ok()) {
    fprintf(stderr, "null server: %s\n", st.ToString().c_str());
    return 1;
  }

  // The ssa provider's daemon: an access node on Hca4 (the core parents it
  // directly), ibacm with provider = ssa (no fallback) on Hca5, ready once
  // it holds a PRDB.
  std::unique_ptr<ssa::test::SimProcess> access;
  std::string access_log = plugin.dir + "/ibssa.log";
  st = fabric->Spawn("Hca4",
                     {std::string(ABS_TOP_BUILDDIR) + "/distrib/ibssa", "-P", "-R", plugin.dir,
                      "-L", access_log, "--role", "access", "--listen", "127.0.0.1:0"},
                     &access);
  if (st.ok())
    st = ssa::test::WaitForLogLine(access_log, "joined the tree", std::chrono::seconds(30));
  ssa::test::IbacmNode::Options sno;
  sno.node = "Hca5";
  sno.addr_cfg = "bench5 ibsim0 1 default\n";
  sno.opts_cfg = "[core]\nlog_level = info\nprovider = ssa default\n[ssa]\nfallback = none\n";
  sno.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
  ssa::test::IbacmNode ssa_ibacm(fabric.get(), sno);
  if (st.ok()) st = ssa_ibacm.Start();
  if (st.ok())
    st = ssa::test::WaitForLogLine(ssa_ibacm.log_path(), "PRDB epoch", std::chrono::seconds(30));
  if (!st.ok()) {
    fprintf(stderr, "ssa provider's daemon: %s\n", st.ToString().c_str());
    return 1;
  }
  const std::string ssa_sock = ssa_ibacm.socket_path();

  // LIDs: OpenSM numbers every port it finds; HCAs and switches together.
  const int kLids = net.nodes;
  const std::string sock = ibacm.socket_path();

  // 1. Cached resolve throughput.
  const uint16_t hot = 1;
  ssa::AcmClient warm;
  ssa::acm::ResolveResponse r;
  if (!warm.Connect(sock).ok() || !warm.Resolve({LidDest(hot)}, &r).ok() || r.hdr.status) {
    fprintf(stderr, "warm-up resolve failed (status %d)\n", r.hdr.status);
    return 1;
  }
  // The library on the ssa provider's daemon's tables.
  ssa::bench::ShmContender shm;
  st = shm.Open(ssa_sock, hot, 10000);
  if (!st.ok()) {
    fprintf(stderr, "libibssa_path: %s\n", st.ToString().c_str());
    return 1;
  }
  std::vector<double> shm_latency_us, shm_rate_1, shm_rate_n, shm_over_socket;
  // Interleaved A C B A C B, so a noisy moment hits every contender alike.
  // All record every resolve's latency, so the clocks cost them alike.
  std::vector<double> ours, prdb, base, ratios, ssa_ratios, latency_us, ssa_latency_us,
      null_latency_us;
  printf("\n1. cached resolves/s, %d clients, %d rounds of %.1f s each, interleaved A C B:\n",
         clients, rounds, seconds);
  printf("   round   A: ibacm + sa   C: ibacm + ssa   B: null server   A/B    C/B\n");
  for (int round = 1; round <= rounds; ++round) {
    double a = ResolveRate(sock, hot, clients, seconds, &latency_us);
    double c = ResolveRate(ssa_sock, hot, clients, seconds, &ssa_latency_us);
    // Latency (each lookup timed) and rates (untimed) in separate runs.
    double timed = shm.Rate(hot, 1, seconds / 4, &shm_latency_us);
    double s1 = shm.Rate(hot, 1, seconds / 4, nullptr);
    double sn = shm.Rate(hot, clients, seconds / 2, nullptr);
    if (timed <= 0) s1 = -1;
    double b = ResolveRate(null_socket, hot, clients, seconds, &null_latency_us);
    if (s1 <= 0 || sn <= 0 || c <= 0) {
      fprintf(stderr, "round %d: a library lookup failed\n", round);
      return 1;
    }
    shm_rate_1.push_back(s1);
    shm_rate_n.push_back(sn);
    shm_over_socket.push_back(sn / c);
    if (a <= 0 || b <= 0 || c <= 0) {
      fprintf(stderr, "round %d: a resolve failed (A %.0f/s, C %.0f/s, B %.0f/s)\n", round, a, c,
              b);
      return 1;
    }
    ours.push_back(a);
    prdb.push_back(c);
    base.push_back(b);
    ratios.push_back(a / b);
    ssa_ratios.push_back(c / b);
    printf("   %5d   %12.0f /s  %12.0f /s  %12.0f /s   %5.2f  %5.2f\n", round, a, c, b, a / b,
           c / b);
  }
  const double ratio_median = Median(ratios);
  const double ratio_min = *std::min_element(ratios.begin(), ratios.end());
  const double ratio_max = *std::max_element(ratios.begin(), ratios.end());
  const size_t samples = latency_us.size();
  const double p50 = Percentile(&latency_us, 0.50), p99 = Percentile(&latency_us, 0.99);
  printf("   ibacm + sa provider   %10.0f /s (median)\n", Median(ours));
  printf("   null acm server       %10.0f /s (median)\n", Median(base));
  printf("   ratio ibacm/null      %10.2f (median; min %.2f, max %.2f)\n", ratio_median, ratio_min,
         ratio_max);
  printf("   ibacm cached resolve  %10.1f us p50, %.1f us p99 (%zu resolves, %d clients)\n", p50,
         p99, samples, clients);
  const size_t null_samples = null_latency_us.size();
  const double null_p50 = Percentile(&null_latency_us, 0.50),
               null_p99 = Percentile(&null_latency_us, 0.99);
  printf("   null server resolve   %10.1f us p50, %.1f us p99 (%zu resolves)\n", null_p50, null_p99,
         null_samples);
  const double ssa_ratio_median = Median(ssa_ratios);
  const double ssa_ratio_min = *std::min_element(ssa_ratios.begin(), ssa_ratios.end());
  const double ssa_ratio_max = *std::max_element(ssa_ratios.begin(), ssa_ratios.end());
  const size_t ssa_samples = ssa_latency_us.size();
  const double ssa_p50 = Percentile(&ssa_latency_us, 0.50),
               ssa_p99 = Percentile(&ssa_latency_us, 0.99);
  printf("   ibacm + ssa provider  %10.0f /s (median; answers from the PRDB, %llu SA queries)\n",
         Median(prdb), static_cast<unsigned long long>(RouteQueries(ssa_sock)));
  printf("   ratio ssa/null        %10.2f (median; min %.2f, max %.2f; goal >= 0.9)\n",
         ssa_ratio_median, ssa_ratio_min, ssa_ratio_max);
  printf("   ssa cached resolve    %10.1f us p50, %.1f us p99 (%zu resolves)\n", ssa_p50, ssa_p99,
         ssa_samples);
  const double shm_p50 = Percentile(&shm_latency_us, 0.5),
               shm_p99 = Percentile(&shm_latency_us, 0.99);
  printf(
      "   libibssa_path lookup  %10.3f us p50, %.3f us p99 (%zu lookups, one thread; the "
      "clock's cost included; epoch %llu)\n",
      shm_p50, shm_p99, shm_latency_us.size(), static_cast<unsigned long long>(shm.epoch()));
  printf("   libibssa_path rate    %10.0f /s one thread, %.0f /s %d threads (median)\n",
         Median(shm_rate_1), Median(shm_rate_n), clients);
  printf("   ratio shm/ssa socket  %10.1f (median, %d threads each; goal >= 100)\n",
         Median(shm_over_socket), clients);

  // 1b. One client at a time: the resolve's own latency, without waiting
  // for the CPU behind the other clients. Interleaved as above. With one
  // client the CPUs go idle between a request and its answer, and waking
  // an idle (virtual) CPU costs more than the resolve itself (measured on
  // the 2-core VM: p50 126 us idle, 22 us kept awake); as latency
  // benchmarks do, the CPUs are asked to stay out of idle states for the
  // section (/dev/cpu_dma_latency = 0, held while the file is open; root
  // only, and said when it is not held).
  std::vector<double> one_us, ssa_one_us, null_one_us;
  int dma_latency_fd = HoldCpusAwake();
  bool awake = dma_latency_fd >= 0;
  printf(
      "\n1b. cached resolve latency, 1 client, %d rounds of %.1f s each, interleaved A C B\n"
      "    (CPU idle states %s):\n",
      rounds, seconds,
      awake ? "held off through /dev/cpu_dma_latency"
            : "NOT held off: /dev/cpu_dma_latency not writable, wake-ups included");
  for (int round = 1; round <= rounds; ++round) {
    if (ResolveRate(sock, hot, 1, seconds, &one_us) <= 0 ||
        ResolveRate(ssa_sock, hot, 1, seconds, &ssa_one_us) <= 0 ||
        ResolveRate(null_socket, hot, 1, seconds, &null_one_us) <= 0) {
      fprintf(stderr, "latency round %d: a resolve failed\n", round);
      return 1;
    }
  }
  if (dma_latency_fd >= 0) close(dma_latency_fd);
  const size_t one_samples = one_us.size(), ssa_one_samples = ssa_one_us.size(),
               null_one_samples = null_one_us.size();
  const double one_p50 = Percentile(&one_us, 0.50), one_p99 = Percentile(&one_us, 0.99);
  const double ssa_one_p50 = Percentile(&ssa_one_us, 0.50),
               ssa_one_p99 = Percentile(&ssa_one_us, 0.99);
  const double null_one_p50 = Percentile(&null_one_us, 0.50),
               null_one_p99 = Percentile(&null_one_us, 0.99);
  printf("   ibacm + sa provider   %10.1f us p50, %.1f us p99 (%zu resolves)\n", one_p50, one_p99,
         one_samples);
  printf("   ibacm + ssa provider  %10.1f us p50, %.1f us p99 (%zu resolves; goal p99 < 100 us)\n",
         ssa_one_p50, ssa_one_p99, ssa_one_samples);
  printf("   null acm server       %10.1f us p50, %.1f us p99 (%zu resolves)\n", null_one_p50,
         null_one_p99, null_one_samples);

  // 2. SA-miss latency vs a bare SA round trip from the same node.
  std::vector<double> miss_us;
  uint64_t queries_before = RouteQueries(sock);
  // The node process runs in its own directory: name this program absolutely.
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0)
    snprintf(self, sizeof(self), "%s", argv[0]);
  std::vector<std::string> rtt_args = {self, "--sa-rtt"};
  for (int lid = 2; lid <= kLids; ++lid) {
    auto t0 = Clock::now();
    if (!warm.Resolve({LidDest(static_cast<uint16_t>(lid))}, &r).ok()) break;
    if (r.hdr.status == 0)
      miss_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    rtt_args.push_back(std::to_string(lid));
  }
  uint64_t miss_queries = RouteQueries(sock) - queries_before;
  std::string out;
  int rc = -1;
  st = fabric->Run("Hca2", rtt_args, &out, &rc);
  if (!st.ok() || rc != 0)
    fprintf(stderr, "bare SA run failed: %s (exit %d)\n%s\n", st.ToString().c_str(), rc,
            out.c_str());
  std::vector<double> rtt_us;
  std::istringstream in(out);
  double v;
  while (in >> v) rtt_us.push_back(v);
  printf("\n2. uncached resolve latency, %zu destinations (median):\n", miss_us.size());
  printf("   ibacm SA miss         %10.1f us (%llu SA queries)\n", Median(miss_us),
         static_cast<unsigned long long>(miss_queries));
  printf("   bare SA PathRecord    %10.1f us (%zu round trips)\n", Median(rtt_us), rtt_us.size());
  printf("   ratio miss/bare       %10.2f\n",
         Median(rtt_us) > 0 ? Median(miss_us) / Median(rtt_us) : 0);

  // 3. Coalescing: a second daemon, on Hca3, has never resolved anything;
  // every client asks it for the same destination at the same moment.
  std::unique_ptr<ssa::test::IbacmNode> ibacm2 = StartOnHca3(fabric.get(), no, "bench3");
  if (!ibacm2) return 1;
  const int kConcurrent = 32;
  uint64_t before = RouteQueries(ibacm2->socket_path());
  std::atomic<int> ok{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  std::vector<std::unique_ptr<ssa::AcmClient>> cs;
  for (int i = 0; i < kConcurrent; ++i) {
    cs.push_back(std::make_unique<ssa::AcmClient>());
    cs.back()->Connect(ibacm2->socket_path());
  }
  for (int i = 0; i < kConcurrent; ++i) {
    threads.emplace_back([&, i] {
      ++ready;
      while (ready < kConcurrent) std::this_thread::yield();
      ssa::acm::ResolveResponse rr;
      Status rs = cs[i]->Resolve({LidDest(hot)}, &rr);
      if (rs.ok() && rr.hdr.status == 0)
        ++ok;
      else if (i == 0)
        fprintf(stderr, "coalescing resolve: %s status %d\n", rs.ToString().c_str(), rr.hdr.status);
    });
  }
  for (auto& t : threads) t.join();
  uint64_t after = RouteQueries(ibacm2->socket_path());
  printf("\n3. coalescing: %d concurrent requests for one uncached destination\n", kConcurrent);
  printf("   answered              %10d\n", ok.load());
  printf("   SA queries            %10llu\n", static_cast<unsigned long long>(after - before));

  null_server.Stop();
  ibacm2->Stop();
  ibacm.Stop();
  ssa_ibacm.Stop();
  access.reset();

  // The figures, one per line (p50/p99: cached resolves through ibacm, in
  // microseconds, over every round; one client, and load_* under --clients).
  printf("\nratio_median = %.3f\n", ratio_median);
  printf("ratio_min = %.3f\n", ratio_min);
  printf("ratio_max = %.3f\n", ratio_max);
  printf("p50 = %.1f\n", one_p50);
  printf("p99 = %.1f\n", one_p99);
  printf("load_p50 = %.1f\n", p50);
  printf("load_p99 = %.1f\n", p99);
  printf("ssa_ratio_median = %.3f\n", ssa_ratio_median);
  printf("ssa_ratio_min = %.3f\n", ssa_ratio_min);
  printf("ssa_ratio_max = %.3f\n", ssa_ratio_max);
  printf("ssa_p50 = %.1f\n", ssa_one_p50);
  printf("ssa_p99 = %.1f\n", ssa_one_p99);
  printf("ssa_load_p50 = %.1f\n", ssa_p50);
  printf("ssa_load_p99 = %.1f\n", ssa_p99);
  printf("null_p50 = %.1f\n", null_one_p50);
  printf("null_p99 = %.1f\n", null_one_p99);
  printf("shm_p50 = %.3f\n", shm_p50);
  printf("shm_p99 = %.3f\n", shm_p99);
  printf("shm_over_socket = %.1f\n", Median(shm_over_socket));
  printf("shm_rate_1 = %.0f\n", Median(shm_rate_1));
  printf("shm_rate_n = %.0f\n", Median(shm_rate_n));
  printf("clients = %d\n", clients);
  printf("rounds = %d\n", rounds);
  return 0;
}
