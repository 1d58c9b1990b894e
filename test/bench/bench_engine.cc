// bench_engine: the path-record engine against the SA it replaces, in one
// run on one simulated fabric (a 2-level fat tree, 2000 HCAs by default)
// whose OpenSM loads the ibssa_osm plugin:
//   1. SmdbIndex build time for the plugin's SMDB;
//   2. engine ns per path, one source to every destination LID;
//   3. engine ns per path, every source to every destination LID;
//   4. the SA: SubnAdmGet(PathRecord) per second from one node with a
//      window of --depth queries, for a sample of the same pairs (asked by
//      `ssa-smdb compare` as Hca2, which also checks each answer against
//      the engine), and the ratio SA time / engine time per path.
// Figures are printed side by side (the machines are shared and noisy).
// Not a test: exits 0 unless something broke (a mismatch included).
//
//   make bench && test/bench/bench_engine [--hcas N] [--sample N] [--depth N] [--lmc L]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/smdb/path_engine.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/temp_dir.h"

using Clock = std::chrono::steady_clock;
using ssa::Status;
namespace smdb = ssa::smdb;

namespace {

struct Options {
  int hcas = 2000;
  size_t sample = 5000;
  int depth = 16;
  int lmc = 0;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) return false;
    long v = strtol(argv[++i], nullptr, 0);
    if (a == "--hcas" && v >= 4)
      o->hcas = static_cast<int>(v);
    else if (a == "--sample" && v > 0)
      o->sample = static_cast<size_t>(v);
    else if (a == "--depth" && v > 0 && v <= 100)
      o->depth = static_cast<int>(v);
    else if (a == "--lmc" && v >= 0 && v <= 7)
      o->lmc = static_cast<int>(v);
    else
      return false;
  }
  return true;
}

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// key=value words of ssa-smdb's "compare: ..." line.
std::map<std::string, std::string> Summary(const std::string& out) {
  std::map<std::string, std::string> kv;
  size_t at = out.rfind("compare: ");
  if (at == std::string::npos) return kv;
  std::string line = out.substr(at + 9, out.find('\n', at) - at - 9);
  size_t pos = 0;
  while (pos < line.size()) {
    size_t sp = line.find(' ', pos);
    std::string w = line.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    size_t eq = w.find('=');
    if (eq != std::string::npos) kv[w.substr(0, eq)] = w.substr(eq + 1);
    pos = sp == std::string::npos ? line.size() : sp + 1;
  }
  return kv;
}

int Fail(const char* what, const Status& st) {
  fprintf(stderr, "bench_engine: %s: %s\n", what, st.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  if (!ParseArgs(argc, argv, &opt)) {
    fprintf(stderr, "usage: %s [--hcas N] [--sample N] [--depth N] [--lmc L]\n", argv[0]);
    return 2;
  }
  ssa::test::FatTreeOptions ft;
  ft.hcas = opt.hcas;
  ssa::test::GeneratedNet net;
  Status st = ssa::test::FatTreeNet(ft, &net);
  if (!st.ok()) return Fail("net", st);

  ssa::test::TempDir dir;
  ssa::test::PluginSetup plugin;
  plugin.dir = dir.path();
  ssa::test::SimFabric::Options o;
  o.net_text = net.text;
  o.ibsim_args = net.ibsim_args;
  o.opensm_args = {"-l", std::to_string(opt.lmc)};
  st = plugin.Configure("dump_dir=" + plugin.dump_dir() + " keep=2", &o);
  if (!st.ok()) return Fail("plugin config", st);
  std::unique_ptr<ssa::test::SimFabric> fabric;
  auto t_up = Clock::now();
  st = ssa::test::SimFabric::Start(o, &fabric);
  if (!st.ok()) return Fail("fabric", st);
  smdb::Smdb db;
  int hcas = opt.hcas;
  st = ssa::test::WaitForVersion(
      plugin.dump_dir(),
      [hcas](const smdb::Smdb& d) {
        int n = 0;
        for (const auto& node : d.nodes.records) n += node.node_type == smdb::kNodeCa;
        return n == hcas;
      },
      std::chrono::seconds(120), &db);
  if (!st.ok()) return Fail("SMDB", st);
  printf("fabric: %d HCAs, %d switches, LMC %d; SMDB epoch %llu after %.1f s\n", net.hcas,
         net.switches, opt.lmc, static_cast<unsigned long long>(db.global_epoch), Seconds(t_up));
  std::string smdb_file = dir.path() + "/smdb.bench";
  st = db.WriteFile(smdb_file);
  if (!st.ok()) return Fail("write SMDB", st);

  // 1. Index.
  auto t0 = Clock::now();
  std::unique_ptr<smdb::SmdbIndex> index;
  st = smdb::SmdbIndex::Build(db, &index);
  if (!st.ok()) return Fail("index", st);
  double index_ms = Seconds(t0) * 1e3;
  smdb::PathEngine engine(index.get());
  const auto& lids = index->assigned_lids();
  const auto& ends = index->endpoints();
  printf("\n1. SmdbIndex::Build       %10.1f ms  (%zu LIDs, %zu ports)\n", index_ms, lids.size(),
         index->ports().size());

  // 2. One source (Hca2's port) to every LID, repeated for a stable figure.
  uint16_t slid = index->port(ends[1]).base_lid;
  size_t paths = 0, ok = 0;
  t0 = Clock::now();
  do {
    engine.ForEachDestination(slid, [&](uint16_t, smdb::PathStatus s, const ibv_path_record&) {
      ++paths;
      ok += s == smdb::PathStatus::kOk;
    });
  } while (Seconds(t0) < 0.5);
  double one_ns = Seconds(t0) * 1e9 / paths;
  printf("2. one source, all LIDs   %10.1f ns/path (%zu paths, %zu ok)\n", one_ns, paths, ok);

  // 3. Every source to every LID.
  paths = ok = 0;
  t0 = Clock::now();
  for (uint32_t src : ends) {
    engine.ForEachDestination(index->port(src).base_lid,
                              [&](uint16_t, smdb::PathStatus s, const ibv_path_record&) {
                                ++paths;
                                ok += s == smdb::PathStatus::kOk;
                              });
  }
  double all_s = Seconds(t0);
  double all_ns = all_s * 1e9 / paths;
  printf("3. all sources, all LIDs  %10.1f ns/path (%zu paths, %zu ok, %.2f s)\n", all_ns, paths,
         ok, all_s);

  // 4. The SA, for a sample of the same pairs, asked by Hca2.
  std::string out;
  int rc = -1;
  std::string tool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";
  st = fabric->Run(
      "Hca2",
      {tool, "compare", smdb_file, "--from", "all", "--sample", std::to_string(opt.sample),
       "--depth", std::to_string(opt.depth), "--max-print", "10"},
      &out, &rc, std::chrono::seconds(600));
  if (!st.ok()) return Fail("ssa-smdb compare", st);
  auto kv = Summary(out);
  double qps = strtod(kv["sa_queries_per_s"].c_str(), nullptr);
  printf("4. SA SubnAdmGet(PathRecord), depth %d, %s pairs:\n", opt.depth, kv["pairs"].c_str());
  printf("   SA                     %10.0f paths/s  (%.1f us/path)\n", qps,
         qps > 0 ? 1e6 / qps : 0);
  printf("   engine (all sources)   %10.0f paths/s  (%.3f us/path)\n", 1e9 / all_ns, all_ns / 1e3);
  printf("   ratio engine/SA        %10.0f x\n", qps > 0 ? (1e9 / all_ns) / qps : 0);
  printf("   checked: matched %s, mismatched %s, SA failures %s\n", kv["matched"].c_str(),
         kv["mismatched"].c_str(), kv["sa_failures"].c_str());
  if (rc != 0 || kv["mismatched"] != "0") {
    fprintf(stderr, "bench_engine: compare exit %d:\n%s\n", rc, out.c_str());
    return 1;
  }
  return 0;
}
