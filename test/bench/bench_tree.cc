// bench_tree: the whole SSA tree on one machine on a real SMDB: the core
// (tree::CoreServer), distribution and access nodes (distrib::IbssaMember
// with its PrdbService) in this process, and N consumers (tree::Consumer)
// in child processes (--consumer-procs; one process cannot hold 10,000
// consumers' descriptors); the control plane over each process's
// in-process MAD fabric (common/tree/inproc_mad.h), the fabrics bridged
// over a socketpair (mad_bridge.h); the data plane over real loopback TCP.
//
// The SMDB pair comes from the simulated fabric: an N-HCA fat tree
// (netgen), ibsim, OpenSM with the ibssa_osm plugin; the first version, then
// one link taken down (--link-down, default a leaf's first uplink) and the
// version OpenSM's reroute makes. Both are cached under the build tree
// (test/bench/bench_tree.cache/), so later runs skip the fabric.
//
// Measured, printed as `name = value` lines at the end:
//   - start-up: from the core publishing the first SMDB to every consumer
//     holding its PRDB of that epoch (members and consumers start right
//     after the publication), and the core's join rate for the consumers'
//     burst (core_joins_per_s: consumers / the time from starting them,
//     all at once, to the last one in the core's book);
//   - update: from the core publishing the second SMDB (with its delta) to
//     every consumer holding the PRDB of that epoch;
//   - bytes sent per tier (core, distribution, access) for each phase;
//     SMDB delta / full; paths the access nodes recomputed / paths a full
//     recomputation computes; a consumer's PRDB in memory vs on the wire;
//   - every consumer's PRDB after the update against BuildPrdb on the new
//     SMDB (consumers_equal_full).
// Progress goes to stderr. Limits of this machine (descriptors, memory,
// time) are printed as NOTE lines and the run is sized down rather than
// faked: each consumer costs two descriptors in its process (its MAD
// eventfd and its TCP socket) and one in this one (the access node's end).
//
//   make bench && test/bench/bench_tree [--hcas N] [--consumers N]
//       [--access N] [--distribution N] [--consumer-procs N] [--consumer-loops N]
//       [--prdb-threads N] [--route-table-mb MB]
//       [--link-down NODE[:PORT]] [--timeout S] [--max-rss-gib G] [--regen]
//       [--log-level L] [--pieces] [--routing ENGINE] [--qos-policy FILE]
//
// --routing and --qos-policy make OpenSM route with that engine and turn
// QoS on with that policy file (the SMDB pair is cached per engine and
// policy file name): the QoS tables and the engine's SLs then travel in
// the SMDB, and the update's figures include them.
//
// Also measured after the tree (access_update_100_ms): one access node's
// update on one core (the process pinned to one CPU): 100 consumers spread
// over the fabric, from the SMDB delta in hand to the 100th consumer's new
// PRDB version published: the delta applied as a member applies it, the
// index and route diff built, the PRDBs patched. access_update_100_cpu_ms
// is the process's CPU time over the same span: on a shared machine the
// wall time also counts the time the one CPU ran other jobs. The node
// updates three times (the link down, up, down again): access_update_100_ms
// is the third, a running node's steady state (each SMDB version, index
// and PRDB built in memory an earlier one released), and
// access_update_100_first_ms the first (all of it in memory touched for the
// first time: 4-10 s per GiB on this project's virtual machines).
//
// --pieces runs only fixed workloads on the cached SMDB pair, each in its
// own Piece* function, for instruction counts under callgrind
// (test/bench/callgrind.sh): a member's SMDB delta, the access node's
// index of the new SMDB, the path engine, the route diff, full PRDB
// builds, the incremental update of 100 consumers, their delta applies,
// and the data channel's frame codec.
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/base/daemon_util.h"
#include "common/base/log.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/consumer.h"
#include "common/tree/core_server.h"
#include "distrib/ibssa_member.h"
#include "test/bench/first_touch.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"

#include "test/bench/access_update.h"
#include "test/bench/tree_bench.h"
#include "test/bench/tree_bench_util.h"
#include "test/bench/tree_pieces.h"

using ssa::Status;
using namespace ssa::bench;
namespace smdb = ssa::smdb;
namespace tree = ssa::tree;
namespace distrib = ssa::distrib;

namespace {

void Usage(const char* argv0) {
  fprintf(
      stderr,
      "usage: %s [--hcas N] [--consumers N] [--access N] [--distribution N] [--consumer-procs N]\n"
      "          [--consumer-loops N] [--prdb-threads N] [--route-table-mb MB]\n"
      "          [--link-down NODE[:PORT]] [--timeout S]\n"
      "          [--max-rss-gib G] [--routing ENGINE] [--qos-policy FILE]\n"
      "          [--regen] [--log-level L] [--pieces]\n",
      argv0);
}

bool ParseArgs(int argc, char** argv, BenchOptions* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--regen") {
      o->pair.regen = true;
      continue;
    }
    if (a == "--pieces") {
      o->pieces = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    std::string v = argv[++i];
    long n = strtol(v.c_str(), nullptr, 0);
    if (a == "--hcas" && n >= 8)
      o->pair.hcas = static_cast<int>(n);
    else if (a == "--consumers" && n >= 1)
      o->consumers = static_cast<int>(n);
    else if (a == "--access" && n >= 1)
      o->access = static_cast<int>(n);
    else if (a == "--distribution" && n >= 1)
      o->distribution = static_cast<int>(n);
    else if (a == "--consumer-procs" && n >= 1 && n <= 64)
      o->consumer_procs = static_cast<int>(n);
    else if (a == "--consumer-loops" && n >= 1 && n <= 64)
      o->consumer_loops = static_cast<int>(n);
    else if (a == "--prdb-threads" && n >= 1 && n <= 64)
      o->prdb_threads = static_cast<int>(n);
    else if (a == "--route-table-mb" && n >= 0 && n <= 16384)
      o->route_table_mb = static_cast<int>(n);
    else if (a == "--link-down" && !v.empty())
      o->pair.link_down = v;
    else if (a == "--routing" && !v.empty())
      o->pair.routing = v;
    else if (a == "--qos-policy" && !v.empty())
      o->pair.qos_policy = v;
    else if (a == "--timeout" && atof(v.c_str()) > 0)
      o->timeout_s = atof(v.c_str());
    else if (a == "--max-rss-gib" && atof(v.c_str()) > 0)
      o->max_rss_gib = atof(v.c_str());
    else if (a == "--log-level" && ssa::ParseLogLevel(v, &o->log_level))
      continue;
    else
      return false;
  }
  return true;
}

// The SMDB pair: from the cache, or made on the simulated fabric
// (smdb_pair_cache.h).

using ssa::bench::SmdbPair;

Status GetSmdbs(const BenchOptions& opt, SmdbPair* out) {
  return ssa::bench::GetSmdbPair(
      opt.pair, [](const std::string& line) { Progress("%s", line.c_str()); }, out);
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  setvbuf(stdout, nullptr, _IOLBF, 0);
  BenchOptions opt;
  if (!ParseArgs(argc, argv, &opt)) {
    Usage(argv[0]);
    return 2;
  }
  std::vector<std::string> notes;
  const int asked_consumers = opt.consumers;

  TreeSize size = SizeTree(opt, &notes);
  opt.consumers = size.consumers;
  opt.consumer_procs = size.procs;
  int access = size.access;
  int distribution = size.distribution;
  for (const std::string& n : notes) Progress("NOTE: %s", n.c_str());

  SmdbPair pair;
  auto t_smdb = Clock::now();
  Status st = GetSmdbs(opt, &pair);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: SMDB: %s\n", st.ToString().c_str());
    return 1;
  }
  Progress("SMDBs %s (%.1f s): epochs %" PRIu64 " and %" PRIu64, pair.source.c_str(), Since(t_smdb),
           pair.before.global_epoch, pair.after.global_epoch);
  if (opt.pieces) return RunPieces(pair, opt.route_table_mb);
  // As many consumers as this machine's memory holds (a full subnet's
  // PRDBs are 2.5 MB each): a consumer keeps its parsed PRDB (1.04 x its
  // wire size) and its access node the serialization; every member keeps
  // the SMDB parsed, serialized and indexed (about 4 x its size).
  {
    uint64_t lids = 0;
    for (const auto& g : pair.before.guid_lids.records) lids += 1ull << g.lmc;
    const double per_consumer = 2.1 * 50.0 * static_cast<double>(lids) + 64e3;
    std::string ser;
    pair.before.Serialize(&ser);
    const double per_member = 4.0 * static_cast<double>(ser.size());
    const uint64_t avail = MemInfoBytes("MemAvailable:");
    double budget = 0.8 * std::min(static_cast<double>(avail), opt.max_rss_gib * (1ull << 30));
    int fit = opt.consumers;
    while (fit > 1 &&
           fit * per_consumer +
                   (SizeFor(opt, fit).access + SizeFor(opt, fit).distribution) * per_member >
               budget)
      fit = fit * 9 / 10;
    if (fit < opt.consumers) {
      Progress("NOTE: memory: a consumer needs about %.1f MB here (its PRDB of %" PRIu64
               " paths parsed, and its access node's serialization), a member %.0f MB (the SMDB "
               "parsed, serialized and indexed); 80 %% of the %.1f GiB available (or of "
               "--max-rss-gib) holds %d consumers: running %d",
               per_consumer / 1e6, lids, per_member / 1e6, Gib(avail), fit, fit);
      notes.push_back("memory: " + std::to_string(opt.consumers) + " consumers asked, " +
                      std::to_string(fit) + " fit in 80 % of the " + Num(Gib(avail), 1) +
                      " GiB available at " + Num(per_consumer / 1e6, 1) + " MB each");
      opt.consumers = fit;
      size = SizeFor(opt, fit);
      opt.consumer_procs = size.procs;
      access = size.access;
      distribution = size.distribution;
    }
  }
  // What touching new memory costs here: the floor under a start-up that
  // must fill every replica (measured before and after the phases).
  const double touch_before = ssa::bench::FirstTouchSecondsPerGib();

  Bench bench(opt);
  st = bench.Setup(pair, opt.consumers, access, distribution);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: setup: %s\n", st.ToString().c_str());
    return 1;
  }
  Phase startup, update;
  st = bench.RunStartup(&startup);
  if (st.ok() && startup.done) st = bench.RunUpdate(&update);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  bench.StopLoops();
  bench.ReleaseTree();
  bool equal = false;
  size_t mismatched = 0;
  double mem = 0, wire = 0, paths = 0;
  if (update.done) {
    Progress("checking every consumer's PRDB against BuildPrdb on the new SMDB");
    bench.Check(pair.after, &equal, &mismatched, &mem, &wire, &paths);
  }
  bench.Shutdown();
  const double touch_after = ssa::bench::FirstTouchSecondsPerGib();
  const double touch_s_per_gib = (touch_before + touch_after) / 2;
  AccessUpdate access_update;
  Progress("one access node, 100 consumers, one core: the update");
  Status access_st = MeasureAccessUpdate(pair, 100, &access_update);
  if (!access_st.ok()) Progress("access node measurement: %s", access_st.ToString().c_str());
  uint64_t rss_peak = std::max(ProcStatusBytes("VmHWM"), bench.peak_rss);
  // Sized down: what the consumers asked for would take, at the memory a
  // consumer took here (an extrapolation, printed as one).
  if (opt.consumers < asked_consumers && bench.pss_after_startup > bench.pss_before_consumers) {
    double per =
        static_cast<double>(bench.pss_after_startup - bench.pss_before_consumers) / opt.consumers;
    uint64_t total = MemInfoBytes("MemTotal:");
    notes.push_back(
        "memory: a consumer took " + Num(per / 1e6, 2) +
        " MB of RSS here (its parsed PRDB; the access " +
        "node's serialization of it; buffers), so " + std::to_string(asked_consumers) +
        " consumers would need about " + Num(Gib(static_cast<uint64_t>(per * asked_consumers)), 1) +
        " GiB (extrapolated, not measured) of this machine's " + Num(Gib(total), 1) + " GiB");
    Progress("NOTE: %s", notes.back().c_str());
  }

  // What was run, and the figures.
  std::unique_ptr<smdb::SmdbIndex> x;
  smdb::SmdbIndex::Build(pair.before, &x);
  int switches = 0;
  for (const auto& n : pair.before.nodes.records) switches += n.node_type == smdb::kNodeSwitch;
  std::string ser1, ser2, delta;
  pair.before.Serialize(&ser1);
  pair.after.Serialize(&ser2);
  smdb::MakeDelta(pair.before, pair.after, &delta);
  char host[256] = "?";
  gethostname(host, sizeof(host) - 1);
  time_t now = time(nullptr);
  char date[64];
  strftime(date, sizeof(date), "%Y-%m-%d %H:%M %Z", localtime(&now));
  printf("bench_tree: %s on %s, %u cores; %d-HCA fat tree (%d switches, %zu LIDs), link down %s\n",
         date, host, std::thread::hardware_concurrency(), opt.pair.hcas, switches,
         x ? x->assigned_lids().size() : 0, opt.pair.link_down.c_str());
  printf(
      "tree: 1 core, %d distribution, %d access, %d consumers (asked %d) in %d process(es); MADs "
      "in process, bridged between processes; data over loopback TCP\n",
      distribution, access, opt.consumers, asked_consumers, opt.consumer_procs);
  for (const std::string& n : notes) printf("NOTE: %s\n", n.c_str());
  for (const Phase* p : {&startup, &update}) {
    if (!p->done && p->stopped_why.empty()) continue;
    printf("%-9s epoch %" PRIu64 ": access SMDB %.3f s, PRDBs computed %.3f s, all consumers %s\n",
           p->name, p->epoch, p->access_smdb_s, p->prdbs_s,
           p->done ? (Num(p->all_s) + " s").c_str()
                   : ("NOT DONE (" + std::to_string(p->reached) + " of " +
                      std::to_string(opt.consumers) + " consumers; " + p->stopped_why + ")")
                         .c_str());
    printf("          bytes sent: core %" PRIu64 ", distribution %" PRIu64 ", access %" PRIu64
           "; consumers got %" PRIu64 " full, %" PRIu64 " delta transfers\n",
           p->bytes.core, p->bytes.distribution, p->bytes.access, p->bytes.consumer_full,
           p->bytes.consumer_delta);
    std::string cpu;
    for (const auto& r : p->cpu)
      if (r.second >= 0.005) cpu += (cpu.empty() ? "" : ", ") + r.first + " " + Num(r.second, 2);
    printf("          CPU seconds by thread role (kernel time included): %s; total %.2f\n",
           cpu.c_str(), ssa::bench::CpuTotal(p->cpu));
  }
  const double kept_gib = bench.pss_after_startup > bench.pss_before_consumers
                              ? Gib(bench.pss_after_startup - bench.pss_before_consumers)
                              : 0;
  printf(
      "memory: touching new memory costs %.2f s of CPU per GiB here (%.2f before the phases, "
      "%.2f after); the start-up kept %.2f GiB more (PSS), so about %.1f s of its CPU is "
      "first touches\n",
      touch_s_per_gib, touch_before, touch_after, kept_gib, kept_gib * touch_s_per_gib);
  printf("core: %" PRIu64 " joins accepted, %" PRIu64 " refused, %" PRIu64
         " retries answered again; consumers sent %" PRIu64 " joins; MADs sent %" PRIu64
         ", lost %" PRIu64 ", bridge errors %" PRIu64 "\n",
         bench.core_counters.joins, bench.core_counters.refused, bench.core_counters.duplicates,
         bench.consumer_joins, bench.mad_counters.sent,
         bench.mad_counters.lost_no_receiver + bench.mad_counters.lost_queue_full,
         bench.bridge_errors);
  if (!update.done)
    printf("NOTE: the update phase did not complete; its figures are missing, not estimated\n");
  for (const AccessStep* step : {&access_update.first, &access_update.steady})
    if (access_st.ok())
      printf(
          "one access node, %zu consumers, one core, %s update: SMDB delta applied %.1f ms, "
          "PRDBs %.1f ms (%" PRIu64 " of %" PRIu64 " paths recomputed); %.1f ms of CPU\n",
          access_update.consumers, step == &access_update.first ? "first" : "third", step->apply_ms,
          step->prdbs_ms, step->computed, step->if_full, step->cpu_ms);
  printf("\n");

  Figure("hcas", static_cast<uint64_t>(opt.pair.hcas));
  Figure("consumers", static_cast<uint64_t>(opt.consumers));
  Figure("consumers_asked", static_cast<uint64_t>(asked_consumers));
  Figure("access_nodes", static_cast<uint64_t>(access));
  Figure("distribution_nodes", static_cast<uint64_t>(distribution));
  Figure("smdb_bytes", static_cast<uint64_t>(ser2.size()));
  Figure("smdb_delta_bytes", static_cast<uint64_t>(delta.size()));
  Figure("smdb_delta_share", Num(static_cast<double>(delta.size()) / ser2.size(), 6));
  if (startup.done) {
    Figure("startup_all_s", Num(startup.all_s));
    Figure("startup_access_smdb_s", Num(startup.access_smdb_s));
    Figure("startup_prdbs_computed_s", Num(startup.prdbs_s));
    Figure("startup_core_bytes", startup.bytes.core);
    Figure("startup_distribution_bytes", startup.bytes.distribution);
    Figure("startup_access_bytes", startup.bytes.access);
    // Where the start-up's time went, piece by piece (names: the bench's
    // thread roles, '-' as '_').
    for (const auto& r : startup.cpu) {
      std::string name = r.first;
      for (char& c : name) c = isalnum(static_cast<unsigned char>(c)) ? c : '_';
      if (r.second >= 0.005) Figure("startup_cpu_" + name + "_s", Num(r.second, 2));
    }
    Figure("startup_cpu_s", Num(ssa::bench::CpuTotal(startup.cpu), 2));
    Figure("startup_kept_gib", Num(kept_gib, 2));
    Figure("startup_first_touch_cpu_s", Num(kept_gib * touch_s_per_gib, 1));
  }
  Figure("consumer_procs", static_cast<uint64_t>(opt.consumer_procs));
  Figure("core_joins_accepted", bench.core_counters.joins);
  Figure("core_joins_refused", bench.core_counters.refused);
  if (opt.consumers > 0) {
    Figure("joins_per_consumer", Num(static_cast<double>(bench.consumer_joins) / opt.consumers, 2));
    Figure("joins_expected_per_consumer", Num(bench.joins_expected, 0));
  }
  if (bench.join_burst_s > 0) {
    Figure("join_burst_s", Num(bench.join_burst_s));
    Figure("core_joins_per_s", Num(opt.consumers / bench.join_burst_s, 0));
  }
  if (update.done) {
    Figure("update_access_smdb_s", Num(update.access_smdb_s));
    Figure("update_prdbs_computed_s", Num(update.prdbs_s));
    Figure("update_core_bytes", update.bytes.core);
    Figure("update_distribution_bytes", update.bytes.distribution);
    Figure("update_access_bytes", update.bytes.access);
    Figure("update_consumer_full_transfers", update.bytes.consumer_full);
    Figure("update_consumer_delta_transfers", update.bytes.consumer_delta);
    Figure("update_prdb_buffers_new", update.prdb_buffers_new);
    Figure("paths_recomputed", update.paths_computed);
    Figure("paths_total", update.paths_if_full);
    Figure("prdb_paths", Num(paths, 0));
    Figure("prdb_wire_bytes", Num(wire, 0));
    Figure("prdb_mem_bytes", Num(mem, 0));
  }
  if (bench.pss_after_startup > bench.pss_before_consumers && opt.consumers > 0)
    Figure("rss_per_consumer_bytes",
           Num(static_cast<double>(bench.pss_after_startup - bench.pss_before_consumers) /
                   opt.consumers,
               0));
  Figure("rss_peak_gib", Num(Gib(rss_peak), 2));
  Figure("first_touch_s_per_gib", Num(touch_s_per_gib, 2));
  if (update.done) {
    Figure("consumers_mismatched", static_cast<uint64_t>(mismatched));
    Figure(
        "paths_recomputed_share",
        Num(update.paths_if_full ? static_cast<double>(update.paths_computed) / update.paths_if_full
                                 : 0,
            6));
    Figure("update_all_s", Num(update.all_s));
    Figure("prdb_mem_over_wire", Num(wire > 0 ? mem / wire : 0));
  } else {
    Figure("paths_recomputed_share", "n/a (not done)");
    Figure("update_all_s", "n/a (not done)");
    Figure("prdb_mem_over_wire", "n/a (not done)");
  }
  if (access_st.ok()) {
    Figure("access_update_100_ms", Num(access_update.steady.total_ms, 1));
    Figure("access_update_100_cpu_ms", Num(access_update.steady.cpu_ms, 1));
    Figure("access_update_100_first_ms", Num(access_update.first.total_ms, 1));
    Figure("access_update_100_first_cpu_ms", Num(access_update.first.cpu_ms, 1));
    Figure("access_update_index_lft_catch_ups", access_update.index_lft_catch_ups);
    Figure("access_update_index_lft_full_builds", access_update.index_lft_full_builds);
    Figure("access_update_smdb_catch_ups", access_update.smdb_catch_ups);
    Figure("access_update_smdb_bytes_catch_ups", access_update.smdb_bytes_catch_ups);
  }
  Figure("consumers_equal_full", equal ? "yes" : "no");
  return startup.done && update.done && equal ? 0 : 1;
}
