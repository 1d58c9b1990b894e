// bench_extract: how long the OpenSM plugin holds OpenSM's lock to copy the
// subnet, against how long OpenSM's own heavy sweep takes, on fat trees of
// 2,000 and 10,000 HCAs (or the sizes given). Printed as a ratio, because
// the machines are shared and noisy.
//
// For each size: a simulated fabric whose OpenSM loads the plugin; the
// first heavy sweep (start-up) and a second one (an HCA's link taken down).
// Sweep times come from OpenSM's log timestamps: start-up from
// "Setting IS_SM on port" (the sweep starts right after) to "SUBNET UP";
// the link change from the trap OpenSM receives to the next "SUBNET UP".
// The plugin's own figures (lock held, HEAVY_SWEEP_START to SUBNET_UP,
// build, write) come from its epoch lines.
// With --routing ENGINE, OpenSM routes with that engine; for an engine
// that chooses path SLs, the plugin's line about asking the engine for them
// (time on OpenSM's state manager thread, records carried, or why not) is
// printed too. With --qos-policy FILE, QoS is on with that policy file.
// --timeout-min M bounds each wait for OpenSM (default 10 minutes).
// Not a test: it prints figures and exits 0 unless something broke.
//
//   bench_extract [--routing ENGINE] [--qos-policy FILE] [--timeout-min M] [HCAS...]
//                                  default: 2000 10000, minhop, no QoS
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/temp_dir.h"

using namespace std::chrono_literals;
using ssa::Status;
using ssa::test::SimFabric;

namespace {

// The plugin's "epoch N: ..." line, parsed.
struct EpochLine {
  double lock_held = -1, lock_wait = -1, build = -1, write = -1, sweep = -1;
  long bytes = -1;
};

double After(const std::string& line, const std::string& key) {
  size_t at = line.find(key);
  return at == std::string::npos ? -1 : strtod(line.c_str() + at + key.size(), nullptr);
}

bool FindEpochLine(const std::string& log, int epoch, EpochLine* out) {
  std::string needle = "epoch " + std::to_string(epoch) + ": tables changed:";
  size_t at = log.find(needle);
  if (at == std::string::npos) return false;
  std::string line = log.substr(at, log.find('\n', at) - at);
  out->lock_held = After(line, "lock held ");
  out->lock_wait = After(line, "(waited ");
  out->build = After(line, "build ");
  out->write = After(line, "write ");
  out->sweep = After(line, "(heavy sweep ");
  size_t comma = line.find(" bytes;");
  size_t start = line.rfind(' ', comma - 1);
  out->bytes = comma == std::string::npos ? -1 : strtol(line.c_str() + start + 1, nullptr, 10);
  return true;
}

// Seconds since midnight of an OpenSM log line ("Nov 22 08:49:37 452708 ...").
double LineTime(const std::string& line) {
  int h, m, s;
  long usec;
  if (sscanf(line.c_str(), "%*s %*d %d:%d:%d %ld", &h, &m, &s, &usec) != 4) return -1;
  return h * 3600.0 + m * 60.0 + s + usec / 1e6;
}

// Milliseconds from the first line containing `from` at or after line
// `first` to the next line containing "SUBNET UP"; *next gets the index
// after that line.
double SweepMs(const std::vector<std::string>& lines, size_t first, const std::string& from,
               size_t* next) {
  double t0 = -1;
  for (size_t i = first; i < lines.size(); ++i) {
    if (t0 < 0 && lines[i].find(from) != std::string::npos) t0 = LineTime(lines[i]);
    if (t0 >= 0 && lines[i].find("SUBNET UP") != std::string::npos) {
      *next = i + 1;
      double ms = (LineTime(lines[i]) - t0) * 1e3;
      return ms < 0 ? ms + 86400e3 : ms;  // past midnight
    }
  }
  return -1;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

void PrintRow(int hcas, const char* sweep, double osm_ms, const EpochLine& e) {
  printf("%6d  %-10s  %10.1f  %10.1f  %9.3f  %8.3f  %9.5f  %8.1f  %8.1f  %9ld\n", hcas, sweep,
         osm_ms, e.sweep, e.lock_held, e.lock_wait, osm_ms > 0 ? e.lock_held / osm_ms : -1, e.build,
         e.write, e.bytes);
}

struct RunOptions {
  std::string routing;     // -R, empty: OpenSM's default
  std::string qos_policy;  // -Q -Y, empty: QoS off
  // Bounds each wait for OpenSM (DFSSSP's deadlock removal alone takes
  // over 10 minutes at 10,000 HCAs on a 2-core machine).
  std::chrono::minutes timeout{10};
};

Status RunSize(int hcas, const RunOptions& ro) {
  ssa::test::FatTreeOptions ft;
  ft.hcas = hcas;
  ssa::test::GeneratedNet net;
  Status st = ssa::test::FatTreeNetSpread(ft, &net);
  if (!st.ok()) return st;
  ssa::test::TempDir dir;
  ssa::test::PluginSetup plugin{dir.path()};
  SimFabric::Options o;
  o.net_text = net.text;
  o.ibsim_args = net.ibsim_args;
  o.up_timeout = ro.timeout;
  if (!ro.routing.empty()) o.opensm_args.insert(o.opensm_args.end(), {"-R", ro.routing});
  if (!ro.qos_policy.empty())
    o.opensm_args.insert(o.opensm_args.end(), {"-Q", "-Y", ro.qos_policy});
  st = plugin.Configure("dump_dir=" + plugin.dump_dir() + " keep=2 log_file=" + plugin.log_file(),
                        &o);
  if (!st.ok()) return st;
  std::unique_ptr<SimFabric> fabric;
  st = SimFabric::Start(o, &fabric);
  if (!st.ok()) return st;

  st = ssa::test::WaitForLogLine(plugin.log_file(), "epoch 1: tables changed:", ro.timeout);
  if (!st.ok()) return st;
  int ups = fabric->SubnetUpCount();
  st = fabric->LinkDown("Hca2");
  if (!st.ok()) return st;
  st = fabric->WaitSubnetUp(ups + 1, ro.timeout);
  if (!st.ok()) return st;
  st = ssa::test::WaitForLogLine(plugin.log_file(), "epoch 2: tables changed:", ro.timeout);
  if (!st.ok()) return st;

  std::string plugin_log = ssa::test::ReadFileText(plugin.log_file());
  std::vector<std::string> osm = Lines(ssa::test::ReadFileText(fabric->osm_log_path()));
  EpochLine first, second;
  if (!FindEpochLine(plugin_log, 1, &first) || !FindEpochLine(plugin_log, 2, &second))
    return Status::Error(EIO, "no epoch lines in " + plugin.log_file());
  size_t next = 0;
  double startup_ms = SweepMs(osm, 0, "Setting IS_SM on port", &next);
  double relink_ms = SweepMs(osm, next, "log_trap_info", &next);
  printf("%6d HCAs: %d nodes, %d switches, %d ports\n", hcas, net.nodes, net.switches, net.ports);
  PrintRow(hcas, "start-up", startup_ms, first);
  PrintRow(hcas, "link-down", relink_ms, second);
  // The engine's path SLs, one line per routing (osm_route_sl.c).
  for (const std::string& line : osm) {
    size_t at = line.find("ibssa_osm: the routing engine's path SLs");
    if (at != std::string::npos) printf("        %s\n", line.c_str() + at);
  }
  fflush(stdout);
  return fabric->Stop();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  RunOptions ro;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--routing" || a == "--qos-policy") && i + 1 < argc) {
      (a == "--routing" ? ro.routing : ro.qos_policy) = argv[++i];
      continue;
    }
    if (a == "--timeout-min" && i + 1 < argc && atoi(argv[i + 1]) > 0) {
      ro.timeout = std::chrono::minutes(atoi(argv[++i]));
      continue;
    }
    int n = atoi(argv[i]);
    if (n <= 0) {
      fprintf(stderr,
              "usage: bench_extract [--routing ENGINE] [--qos-policy FILE] [--timeout-min M] "
              "[HCAS...]\n");
      return 2;
    }
    sizes.push_back(n);
  }
  if (sizes.empty()) sizes = {2000, 10000};
  printf("Extraction under OpenSM's lock vs OpenSM's heavy sweep (times in ms)%s%s%s\n",
         ro.routing.empty() ? "" : ", routing ", ro.routing.c_str(),
         ro.qos_policy.empty() ? "" : ", QoS policy on");
  printf(
      "  HCAs  sweep       sweep(osm)  sweep(plg)  lock held  lock wait  held/sweep  build     "
      "write     SMDB bytes\n");
  for (int hcas : sizes) {
    Status st = RunSize(hcas, ro);
    if (!st.ok()) {
      fprintf(stderr, "bench_extract: %d HCAs: %s\n", hcas, st.ToString().c_str());
      return 1;
    }
  }
  printf(
      "sweep(osm): OpenSM's log; sweep(plg): the plugin's HEAVY_SWEEP_START..SUBNET_UP;\n"
      "held/sweep: lock held / sweep(osm).\n");
  return 0;
}
