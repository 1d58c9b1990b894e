// sa_probe_main.cc: by-hand check of SaClient on a simulated (or real)
// fabric. Run as a node, it asks the SA for the PathRecord from its own LID
// to each DLID given and prints every field in saquery's "PathRecord dump"
// format, so the output can be diffed against
//   saquery -p --slid <own lid> --dlid <dlid>
// run as the same node. With --bench N it sends N queries (round robin over
// the DLIDs) through one SaClient and reports the rate.
//
// Not part of any test suite. Build by hand (after `make`):
//   g++ -std=c++17 -O2 -Wall -Wextra -I. -Iinclude test/sim/sa_probe_main.cc
//       common/.libs/libssacommon.a -libumad -linih -lpthread -o sa_probe
// (or link common/libssacommon.la with libtool). Run:
//   SIM_HOST=Hca2 LD_PRELOAD=.../libumad2sim.so IBSIM_SOCKNAME=... ./sa_probe 1 5 6
//
// Single-threaded: everything runs on main's EventLoop.
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"
#include "common/mad/umad_ports.h"

namespace {

namespace mad = ssa::mad;

struct Options {
  ssa::SaClientOptions sa;
  int bench = 0;
  bool quiet = false;
  std::string ca;
  int port = 0;
  int sm_lid = 0;     // overrides the port's SM LID (to test timeouts)
  int linger_ms = 0;  // keeps the loop running after the last answer (stale answers)
  std::vector<uint16_t> dlids;
};

void Usage() {
  fprintf(stderr,
          "usage: sa_probe [--depth N] [--timeout MS] [--retries N] [--bench N] [--quiet]\n"
          "                [--ca NAME --port N] [--sm-lid LID] [--linger MS] DLID...\n");
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](int* out) {
      if (i + 1 >= argc) return false;
      *out = atoi(argv[++i]);
      return true;
    };
    if (a == "--depth") {
      if (!next(&o->sa.sa_depth)) return false;
    } else if (a == "--timeout") {
      if (!next(&o->sa.timeout_ms)) return false;
    } else if (a == "--retries") {
      if (!next(&o->sa.retries)) return false;
    } else if (a == "--bench") {
      if (!next(&o->bench)) return false;
    } else if (a == "--linger") {
      if (!next(&o->linger_ms)) return false;
    } else if (a == "--sm-lid") {
      if (!next(&o->sm_lid)) return false;
    } else if (a == "--port") {
      if (!next(&o->port)) return false;
    } else if (a == "--ca") {
      if (i + 1 >= argc) return false;
      o->ca = argv[++i];
    } else if (a == "--quiet") {
      o->quiet = true;
    } else if (!a.empty() && a[0] != '-') {
      long v = strtol(a.c_str(), nullptr, 0);
      if (v <= 0 || v >= 0xc000) return false;
      o->dlids.push_back(static_cast<uint16_t>(v));
    } else {
      return false;
    }
  }
  return !o->dlids.empty();
}

// The same lines, in the same format, as saquery's PathRecord dump.
void PrintRecord(const mad::PathRecord& r) {
  uint8_t raw[mad::kPathRecordSize];
  mad::EncodePathRecord(r, raw);
  auto byte = [&raw](int off) { return static_cast<unsigned>(raw[off]); };
  unsigned hop_flow_raw = (byte(44) << 24) | (byte(45) << 16) | (byte(46) << 8) | byte(47);
  printf("PathRecord dump:\n");
  printf("\t\tservice_id..............0x%016llx\n", static_cast<unsigned long long>(r.service_id));
  printf("\t\tdgid....................%s\n", mad::GidToString(r.dgid).c_str());
  printf("\t\tsgid....................%s\n", mad::GidToString(r.sgid).c_str());
  printf("\t\tdlid....................%u\n", r.dlid);
  printf("\t\tslid....................%u\n", r.slid);
  printf("\t\thop_flow_raw............0x%x\n", hop_flow_raw);
  printf("\t\ttclass..................0x%x\n", r.tclass);
  printf("\t\tnum_path_revers.........0x%X\n", byte(49));
  printf("\t\tpkey....................0x%X\n", r.pkey);
  printf("\t\tqos_class...............0x%X\n", r.qos_class);
  printf("\t\tsl......................0x%X\n", r.sl);
  printf("\t\tmtu.....................0x%X\n", byte(54));
  printf("\t\trate....................0x%X\n", byte(55));
  printf("\t\tpkt_life................0x%X\n", byte(56));
  printf("\t\tpreference..............0x%X\n", r.preference);
  printf("\t\tresv2...................0x%02X%02X%02X%02X%02X%02X\n", byte(58), byte(59), byte(60),
         byte(61), byte(62), byte(63));
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  if (!ParseArgs(argc, argv, &opt)) {
    Usage();
    return 2;
  }
  ssa::Logger logger;
  logger.set_level(ssa::LogLevel::kInfo);

  // umad is touched here, on the main thread, before any thread exists.
  std::vector<ssa::UmadPort> ports;
  ssa::Status st = ssa::DiscoverPorts(&ports);
  if (!st.ok()) {
    fprintf(stderr, "sa_probe: %s\n", st.ToString().c_str());
    return 1;
  }
  const ssa::UmadPort* port = nullptr;
  for (const auto& p : ports) {
    if (!opt.ca.empty() && (p.ca_name != opt.ca || p.port_num != opt.port)) continue;
    if (p.IsActive() && p.IsInfiniBand()) {
      port = &p;
      break;
    }
  }
  if (!port) {
    fprintf(stderr, "sa_probe: no active InfiniBand port\n");
    return 1;
  }
  fprintf(stderr, "sa_probe: %s\n", port->Describe().c_str());

  ssa::EventLoop loop;
  st = loop.Init();
  if (!st.ok()) {
    fprintf(stderr, "sa_probe: %s\n", st.ToString().c_str());
    return 1;
  }
  ssa::SaClient client(&loop, &logger, *port, opt.sa);
  st = client.Open();
  if (!st.ok()) {
    fprintf(stderr, "sa_probe: %s\n", st.ToString().c_str());
    return 1;
  }
  if (opt.sm_lid) client.UpdateSm(static_cast<uint16_t>(opt.sm_lid), port->sm_sl);

  size_t total = opt.bench > 0 ? static_cast<size_t>(opt.bench) : opt.dlids.size();
  size_t done = 0, failed = 0;
  std::map<size_t, mad::PathRecord> records;  // by query index
  std::map<size_t, std::string> errors;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < total; ++i) {
    uint16_t dlid = opt.dlids[i % opt.dlids.size()];
    uint8_t m[mad::kMadSize];
    mad::BuildPathRecordGetByLid(0, port->lid, dlid, 0xffff, m);
    st = client.Send(m, sizeof(m), [&, i](int status, const uint8_t* resp, size_t len) {
      ++done;
      if (status != 0) {
        ++failed;
        errors[i] = std::string("request failed: ") + strerror(-status);
        return;
      }
      mad::PathRecord rec;
      ssa::Status d = mad::DecodePathRecordResponse(resp, len, &rec);
      if (!d.ok()) {
        ++failed;
        errors[i] = d.ToString();
        return;
      }
      if (opt.bench == 0) records[i] = rec;
    });
    if (!st.ok()) {
      fprintf(stderr, "sa_probe: send: %s\n", st.ToString().c_str());
      return 1;
    }
  }
  // Worst case every query uses all its tries one after the other.
  auto budget = std::chrono::milliseconds(
      static_cast<int64_t>(client.try_timeout_ms()) * (opt.sa.retries + 1) *
          static_cast<int64_t>((total + client.sa_depth() - 1) / client.sa_depth()) +
      5000);
  bool finished = loop.RunUntil([&] { return done == total; }, budget);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (opt.linger_ms > 0)
    loop.RunUntil([] { return false; }, std::chrono::milliseconds(opt.linger_ms));

  if (opt.bench == 0 && !opt.quiet) {
    for (size_t i = 0; i < total; ++i) {
      printf("# dlid %u\n", opt.dlids[i]);
      if (records.count(i))
        PrintRecord(records[i]);
      else
        printf("# %s\n", errors.count(i) ? errors[i].c_str() : "no answer");
    }
  }
  for (const auto& e : errors)
    if (opt.bench > 0 && e.first < 5)
      fprintf(stderr, "sa_probe: query %zu: %s\n", e.first, e.second.c_str());
  const ssa::SaClientStats& s = client.stats();
  fprintf(stderr,
          "sa_probe: %zu queries, %zu failed, depth %d, %.3f s, %.0f queries/s%s\n"
          "sa_probe: stats sent %llu received %llu retries %llu try_timeouts %llu timeouts %llu "
          "errors %llu stale %llu malformed %llu sa_status_errors %llu queued_peak %llu "
          "outstanding_peak %llu\n",
          total, failed, client.sa_depth(), secs, total / secs,
          finished ? "" : " (gave up waiting)", (unsigned long long)s.sent,
          (unsigned long long)s.received, (unsigned long long)s.retries,
          (unsigned long long)s.try_timeouts, (unsigned long long)s.timeouts,
          (unsigned long long)s.errors, (unsigned long long)s.stale_responses,
          (unsigned long long)s.malformed, (unsigned long long)s.sa_status_errors,
          (unsigned long long)s.queued_peak, (unsigned long long)s.outstanding_peak);
  return finished && failed == 0 ? 0 : 1;
}
