// smdb_pair_cache.cc: see smdb_pair_cache.h.
#include "test/bench/smdb_pair_cache.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// "12.3 s"
std::string Seconds(double s) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1f s", s);
  return buf;
}

std::string CacheDir() { return std::string(ABS_TOP_BUILDDIR) + "/test/bench/bench_tree.cache"; }

std::string CacheBase(const SmdbPairSpec& o) {
  auto name = [](const std::string& s) {
    std::string out;
    for (char c : s) out += isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return out;
  };
  std::string base = CacheDir() + "/fat" + std::to_string(o.hcas) + "-down-" + name(o.link_down);
  if (!o.routing.empty()) base += "-R-" + name(o.routing);
  if (!o.qos_policy.empty()) base += "-Q-" + name(o.qos_policy.substr(o.qos_policy.rfind('/') + 1));
  return base;
}

}  // namespace

int CountCas(const smdb::Smdb& db) {
  int n = 0;
  for (const auto& node : db.nodes.records) n += node.node_type == smdb::kNodeCa;
  return n;
}

namespace {

Status MakeOnFabric(const SmdbPairSpec& opt, const ProgressFn& progress, SmdbPair* out) {
  test::FatTreeOptions ft;
  ft.hcas = opt.hcas;
  test::GeneratedNet net;
  Status st = test::FatTreeNetSpread(ft, &net);
  if (!st.ok()) return st.WithContext("fat tree");
  progress("generating the SMDBs: " + std::to_string(net.hcas) + " HCAs, " +
           std::to_string(net.switches) + " switches (" + std::to_string(net.leaves) + " leaves, " +
           std::to_string(net.spines) + " spines), ibsim + OpenSM + plugin");
  std::string node = opt.link_down;
  int port = 0;
  size_t colon = node.find(':');
  if (colon != std::string::npos) {
    port = atoi(node.c_str() + colon + 1);
    node = node.substr(0, colon);
  }
  test::TempDir dir;
  test::PluginSetup plugin{dir.path()};
  test::SimFabric::Options o;
  o.net_text = net.text;
  o.ibsim_args = net.ibsim_args;
  o.up_timeout = std::chrono::seconds(900);
  if (!opt.routing.empty()) o.opensm_args.insert(o.opensm_args.end(), {"-R", opt.routing});
  if (!opt.qos_policy.empty())
    o.opensm_args.insert(o.opensm_args.end(), {"-Q", "-Y", opt.qos_policy});
  // The plugin only extracts: no tree core (it would listen on 7470).
  st = plugin.Configure(
      "dump_dir=" + plugin.dump_dir() + " keep=4 core=0 log_file=" + plugin.log_file(), &o);
  if (!st.ok()) return st;
  auto t0 = Clock::now();
  std::unique_ptr<test::SimFabric> fabric;
  st = test::SimFabric::Start(o, &fabric);
  if (!st.ok()) return st.WithContext("fabric");
  int hcas = opt.hcas;
  st = test::WaitForVersion(
      plugin.dump_dir(), [hcas](const smdb::Smdb& d) { return CountCas(d) == hcas; },
      std::chrono::seconds(600), &out->before);
  if (!st.ok()) return st.WithContext("first SMDB");
  progress("first SMDB: epoch " + std::to_string(out->before.global_epoch) + " after " +
           Seconds(Since(t0)) + "; taking " + opt.link_down + " down");
  if (!fabric->HasNode(node))
    return Status::Error(EINVAL, "--link-down: no node " + node + " in the fabric");
  int ups = fabric->SubnetUpCount();
  st = fabric->LinkDown(node, port);
  if (st.ok()) st = fabric->WaitSubnetUp(ups + 1, std::chrono::seconds(900));
  if (!st.ok()) return st.WithContext("link down");
  uint64_t first = out->before.global_epoch;
  st = test::WaitForVersion(
      plugin.dump_dir(), [first](const smdb::Smdb& d) { return d.global_epoch > first; },
      std::chrono::seconds(600), &out->after);
  if (!st.ok()) return st.WithContext("second SMDB");
  // OpenSM may sweep once more after the reroute: take the version that
  // stays.
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    smdb::Smdb latest;
    st = smdb::Smdb::ReadFile(plugin.dump_dir() + "/latest", &latest);
    if (!st.ok()) return st;
    if (latest.global_epoch == out->after.global_epoch) break;
    out->after = std::move(latest);
  }
  progress("second SMDB: epoch " + std::to_string(out->after.global_epoch) + " after " +
           Seconds(Since(t0)));
  out->source =
      "generated on the simulated fabric in " + std::to_string(static_cast<int>(Since(t0))) + " s";
  // The pair is in hand: a fabric slow to stop (OpenSM at 10,000 HCAs may
  // outlast its grace period and be killed) costs nothing but a line.
  st = fabric->Stop();
  if (!st.ok()) progress("stopping the fabric: " + st.ToString() + " (the SMDBs are kept)");
  return Status::Ok();
}

}  // namespace

Status GetSmdbPair(const SmdbPairSpec& opt, const ProgressFn& progress, SmdbPair* out) {
  std::string base = CacheBase(opt);
  if (!opt.regen && smdb::Smdb::ReadFile(base + ".before.smdb", &out->before).ok() &&
      smdb::Smdb::ReadFile(base + ".after.smdb", &out->after).ok() &&
      out->after.global_epoch > out->before.global_epoch && CountCas(out->before) == opt.hcas) {
    out->source = "cached in " + base + ".{before,after}.smdb";
    return Status::Ok();
  }
  Status st = MakeOnFabric(opt, progress, out);
  if (!st.ok()) return st;
  if (system(("mkdir -p '" + CacheDir() + "'").c_str()) != 0)
    return Status::Error(EIO, "cannot make " + CacheDir());
  st = out->before.WriteFile(base + ".before.smdb");
  if (st.ok()) st = out->after.WriteFile(base + ".after.smdb");
  return st;
}

}  // namespace bench
}  // namespace ssa
