// consumer_main.cc: ssa-consumer (man ssa-consumer(1)): joins the SSA tree
// as a consumer for the local port, and after every update writes the
// PRDB it holds (and its counters) to files, each under a temporary name
// renamed over the old one, so a reader never sees half of either. It runs
// in the daemons' shell (common/base/daemon_shell.h), in the foreground.
#include <getopt.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "common/base/daemon_shell.h"
#include "common/base/daemon_util.h"
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/umad_ports.h"
#include "common/tree/consumer.h"

namespace {

using ssa::Status;

struct Args {
  std::string run_dir = ".";
  std::string dump, addr_dump, port, log = "stderr";
  std::string data_faults, mad_faults;  // tests only
  bool once = false;
  int timeout_s = 0;
};

void Usage(FILE* f) {
  fprintf(f,
          "usage: ssa-consumer [-R DIR] [--dump FILE] [--addr-dump FILE] [--port CA:PORT]\n"
          "                    [--once] [--timeout S] [-L TARGET]\n"
          "                    [--data-faults SPEC] [--mad-faults SPEC]\n");
}

Status WriteAtomic(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) return Status::FromErrno("cannot write " + tmp);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) return Status::FromErrno("cannot rename to " + path);
  return Status::Ok();
}

std::string StatsText(const ssa::tree::ConsumerStats& s) {
  char b[512];
  snprintf(b, sizeof(b),
           "prdb_epoch=%" PRIu64 "\nparent_lid=%u\njoins=%" PRIu64 "\nparent_changes=%" PRIu64
           "\nfull_transfers=%" PRIu64 "\ndelta_transfers=%" PRIu64 "\ndigest_mismatches=%" PRIu64
           "\nreconnects=%" PRIu64 "\nbytes_received=%" PRIu64 "\naddr_epoch=%" PRIu64
           "\nunproven_parents=%" PRIu64 "\n",
           s.prdb_epoch, s.parent_lid, s.joins, s.parent_changes, s.full_transfers,
           s.delta_transfers, s.digest_mismatches, s.reconnects, s.bytes_received, s.addr_epoch,
           s.unproven_parents);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  Args a;
  enum { kDump = 256, kAddrDump, kPort, kOnce, kTimeout, kDataFaults, kMadFaults };
  static const struct option opts[] = {{"run-dir", required_argument, nullptr, 'R'},
                                       {"dump", required_argument, nullptr, kDump},
                                       {"port", required_argument, nullptr, kPort},
                                       {"addr-dump", required_argument, nullptr, kAddrDump},
                                       {"once", no_argument, nullptr, kOnce},
                                       {"timeout", required_argument, nullptr, kTimeout},
                                       {"log", required_argument, nullptr, 'L'},
                                       {"help", no_argument, nullptr, 'h'},
                                       {"data-faults", required_argument, nullptr, kDataFaults},
                                       {"mad-faults", required_argument, nullptr, kMadFaults},
                                       {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "R:L:h", opts, nullptr)) != -1) {
    switch (c) {
      case 'R': a.run_dir = optarg; break;
      case 'L': a.log = optarg; break;
      case kDump: a.dump = optarg; break;
      case kAddrDump: a.addr_dump = optarg; break;
      case kPort: a.port = optarg; break;
      case kOnce: a.once = true; break;
      case kTimeout: a.timeout_s = atoi(optarg); break;
      case kDataFaults: a.data_faults = optarg; break;
      case kMadFaults: a.mad_faults = optarg; break;
      case 'h': Usage(stdout); return 0;
      default: Usage(stderr); return 2;
    }
  }
  if (optind < argc) {
    Usage(stderr);
    return 2;
  }
  if (a.dump.empty()) a.dump = a.run_dir + "/prdb";

  ssa::DaemonShell shell("ssa-consumer");
  shell.Detach(true);  // a test client: it stays in the foreground
  ssa::Logger log;
  ssa::DaemonShell::OpenLog(&log, a.log, "ssa-consumer");
  Status st;
  // umad2sim: touch umad on the main thread before anything else.
  st = ssa::UmadInitOnce();
  ssa::UmadPort port;
  if (st.ok()) st = ssa::PickActivePort(a.port, &port);
  st = ssa::WithOffFabricHint(st,
                              "ssa-consumer joins through a local port: run it on a node of "
                              "the fabric");
  if (!st.ok()) {
    fprintf(stderr, "ssa-consumer: %s\n", st.ToString().c_str());
    return 1;
  }
  ssa::EventLoop loop;
  st = loop.Init();
  ssa::tree::ConsumerOptions o;
  o.ca_name = port.ca_name;
  o.port_num = port.port_num;
  o.port_guid = port.port_guid;
  o.gid_prefix = port.gid_prefix;
  o.data_faults = a.data_faults;
  o.mad_faults = a.mad_faults;
  // Read again at each join: after an SM failover the new master's LID
  // (on the simulated fabric port attributes are frozen at start).
  o.sm_lid = [port] {
    uint16_t now = ssa::CurrentSmLid(port);
    return now ? now : port.sm_lid;
  };
  std::unique_ptr<ssa::tree::Consumer> consumer;
  int exit_code = 0;
  bool have_prdb = false;
  auto on_update = [&] {
    ssa::tree::ConsumerStats s = consumer->stats();
    // The counters first: whoever sees the new dump sees counters that
    // already include its transfer.
    WriteAtomic(a.dump + ".stats", StatsText(s));
    if (auto prdb = consumer->prdb()) {
      std::string bytes;
      Status w = prdb->Serialize(&bytes);
      if (w.ok()) w = WriteAtomic(a.dump, bytes);
      if (!w.ok()) log.Log(ssa::LogLevel::kError, "%s", w.ToString().c_str());
      have_prdb = true;
    }
    if (auto addr = consumer->addr(); addr && !a.addr_dump.empty()) {
      std::string bytes;
      Status w = addr->Serialize(&bytes);
      if (w.ok()) w = WriteAtomic(a.addr_dump, bytes);
      if (!w.ok()) log.Log(ssa::LogLevel::kError, "%s", w.ToString().c_str());
    }
    if (a.once && have_prdb) loop.Stop();
  };
  // The counters also change without an update (a parent lost, a new one
  // serving the same version): rewrite them when they do.
  std::string last_stats;
  std::function<void()> refresh_stats = [&] {
    if (consumer) {
      std::string text = StatsText(consumer->stats());
      if (text != last_stats && WriteAtomic(a.dump + ".stats", text).ok()) last_stats = text;
    }
    loop.AddTimer(std::chrono::milliseconds(100), refresh_stats);
  };
  refresh_stats();
  if (st.ok()) st = ssa::tree::Consumer::Create(&loop, &log, o, on_update, &consumer);
  if (st.ok()) st = consumer->Start();
  if (!st.ok()) {
    fprintf(stderr, "ssa-consumer: %s\n", st.ToString().c_str());
    return 1;
  }
  log.Log(ssa::LogLevel::kInfo, "joining the tree for %s", port.Describe().c_str());

  if (a.once && a.timeout_s > 0)
    loop.AddTimer(std::chrono::seconds(a.timeout_s), [&] {
      log.Log(ssa::LogLevel::kError, "no PRDB within %d s", a.timeout_s);
      exit_code = 1;
      loop.Stop();
    });
  int rc = shell.Run(
      &loop, &log, false, [&] { return loop.Run(); }, [&] { loop.Stop(); },
      [&] {
        consumer->Stop();
        log.Log(ssa::LogLevel::kInfo, "exiting; counters: %s",
                StatsText(consumer->stats()).c_str());
      });
  return rc ? rc : exit_code;
}
