// bench_jobstart: a job start on one node. --procs processes (ranks,
// default 8; the picture of issue 27 is 64) start at once and each
// resolves every LID of a 10,000-HCA fabric (--hcas), once through the
// acm.h socket (A: one connection per process, one resolve at a time, as
// librdmacm and ib_acme ask) and once through libibssa_path (B: the
// daemon's shared-memory tables), interleaved A B A B for --rounds rounds
// (at least 5). P, after them in each round, is the floor: the same
// processes started and ended with nothing resolved.
//
// The fabric is the benchmarks' cached SMDB of the fat tree
// (smdb_pair_cache.h, shared with bench_tree; made on the simulated fabric
// on the first run, minutes at 10,000 HCAs). Starting the SSA tree and a
// real ibacm on a simulated 10,000-HCA fabric is out of reach here, so the
// daemon is a stand-in fed that SMDB's PRDB directly: the PRDB the path
// engine computes for one HCA port, as an access node would send it; a
// NullAcmServer (the same ClientServer as ibacm) answering resolves of a
// destination LID from it, as the ssa provider does (PrdbView::ByLid,
// FromPrdbPath); and the ssa provider's own ShmExport publishing its
// tables under the name the library derives from the socket. Every
// process checks each answer's DLID and, for B, that the tables answered.
//
// Measured per contender and round: the processes' CPU time (user + system,
// summed from wait4's rusage: process start and exit included, as P
// shows), the stand-in daemon's CPU time (its thread's clock), and the wall
// time from the first process started to the last one reaped. Printed at
// the end as `name = value` lines: medians over the rounds, and the ratios
// A/B with their spread.
//
//   make bench && test/bench/bench_jobstart [--procs N] [--rounds R] [--hcas N]
//       [--link-down NODE[:PORT]] [--regen]
//   bench_jobstart --rank socket|shm|none SOCKET LIDFILE   (internal: one process)
#include <spawn.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <ibacm_ssa/path.h>

#include "common/acm/acm_client.h"
#include "common/base/big_endian.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/smdb/whole_prdb.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/shm_export.h"
#include "test/bench/null_acm_server.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/support/temp_dir.h"

extern char** environ;

using Clock = std::chrono::steady_clock;
using ssa::Status;
namespace smdb = ssa::smdb;

namespace {

// ---------------------------------------------------------------------------
// One process (--rank): resolve every LID of the file, exit 0 when each
// answer named its LID (and, through the library, came from the tables).

std::vector<uint16_t> ReadLids(const std::string& file) {
  std::vector<uint16_t> lids;
  std::ifstream in(file);
  unsigned v;
  while (in >> v) lids.push_back(static_cast<uint16_t>(v));
  return lids;
}

int RankSocket(const std::string& socket, const std::vector<uint16_t>& lids) {
  ssa::AcmClient client;
  if (!client.Connect(socket).ok()) return 1;
  ssa::acm::ResolveResponse r;
  for (uint16_t lid : lids) {
    ssa::acm::EpAddr dest;
    dest.flags = ssa::acm::kEpFlagDest;
    dest.SetLid(lid);
    if (!client.Resolve({dest}, &r).ok() || r.hdr.status != 0 || r.paths.empty() ||
        ssa::FromBe16(r.paths[0].path.dlid) != lid)
      return 1;
  }
  return 0;
}

int RankShm(const std::string& socket, const std::vector<uint16_t>& lids) {
  ibssa_path* h = nullptr;
  if (ibssa_path_open(socket.c_str(), nullptr, &h) != 0) return 1;
  int rc = 0;
  for (uint16_t lid : lids) {
    ibv_path_record p;
    ibssa_path_answer a{};
    if (ibssa_path_by_lid(h, 0, lid, 0, &p, &a) != 0 || ssa::FromBe16(p.dlid) != lid) {
      rc = 1;
      break;
    }
    if (a.from != IBSSA_PATH_FROM_TABLES) rc = 2;  // the socket answered: not what is measured
  }
  ibssa_path_close(h);
  return rc;
}

int Rank(const std::string& mode, const std::string& socket, const std::string& lid_file) {
  if (mode == "none") return 0;
  std::vector<uint16_t> lids = ReadLids(lid_file);
  if (lids.empty()) return 1;
  if (mode == "socket") return RankSocket(socket, lids);
  if (mode == "shm") return RankShm(socket, lids);
  return 1;
}

// ---------------------------------------------------------------------------
// The stand-in daemon's PRDB.

struct Source {
  uint64_t guid = 0;
  uint16_t lid = 0;
};

// The first HCA port by LID: the node the job starts on.
Status FirstHcaPort(const smdb::SmdbIndex& x, Source* out) {
  for (uint32_t e : x.endpoints()) {
    const auto& p = x.port(e);
    if (!p.port_guid || !p.base_lid || x.node_of(p).type != smdb::kNodeCa) continue;
    if (!out->lid || p.base_lid < out->lid) *out = {p.port_guid, p.base_lid};
  }
  return out->lid ? Status::Ok() : Status::Error(EINVAL, "no HCA port in the SMDB");
}

// The destination LIDs the daemon serves from the PRDB (what ShmExport
// publishes too: reversible, exact), ascending.
std::vector<uint16_t> ServedLids(const smdb::Prdb& prdb, uint16_t base_lid) {
  std::vector<uint16_t> lids;
  for (const smdb::PrdbPath& p : prdb.paths.records)
    if (p.slid == base_lid && (p.flags & smdb::kPathReversible) && !(p.flags & smdb::kPathInexact))
      lids.push_back(p.dlid);
  std::sort(lids.begin(), lids.end());
  lids.erase(std::unique(lids.begin(), lids.end()), lids.end());
  return lids;
}

// ---------------------------------------------------------------------------
// One contender's run: --procs processes at once, reaped with wait4.

struct Run {
  double cpu_s = 0;     // the processes' user + system time
  double daemon_s = 0;  // the stand-in daemon's thread over the run
  double wall_s = 0;
  bool ok = true;
  std::string why;
};

Run RunProcs(const std::string& self, const std::string& mode, const std::string& socket,
             const std::string& lid_file, int procs, ssa::bench::NullAcmServer* daemon) {
  Run run;
  std::vector<std::string> args = {self, "--rank", mode, socket, lid_file};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  const double daemon0 = daemon->ThreadCpuSeconds();
  auto t0 = Clock::now();
  std::vector<pid_t> pids;
  for (int i = 0; i < procs; ++i) {
    pid_t pid;
    int err = posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), environ);
    if (err) {
      run.ok = false;
      run.why = std::string("posix_spawn: ") + strerror(err);
      break;
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    rusage ru{};
    if (wait4(pid, &status, 0, &ru) != pid) {
      run.ok = false;
      run.why = std::string("wait4: ") + strerror(errno);
      continue;
    }
    run.cpu_s += static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      run.ok = false;
      run.why = mode + " process exit " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                (WIFEXITED(status) && WEXITSTATUS(status) == 2 ? " (answers from the socket)" : "");
    }
  }
  run.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  run.daemon_s = daemon->ThreadCpuSeconds() - daemon0;
  return run;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double Min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double Max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void Usage(const char* argv0) {
  fprintf(stderr,
          "usage: %s [--procs N] [--rounds R (>= 5)] [--hcas N] [--link-down NODE[:PORT]] "
          "[--regen]\n",
          argv0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--rank") return Rank(argv[2], argv[3], argv[4]);
  int procs = 8, rounds = 5;
  ssa::bench::SmdbPairSpec spec;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool more = i + 1 < argc;
    if (a == "--procs" && more)
      procs = atoi(argv[++i]);
    else if (a == "--rounds" && more)
      rounds = atoi(argv[++i]);
    else if (a == "--hcas" && more)
      spec.hcas = atoi(argv[++i]);
    else if (a == "--link-down" && more)
      spec.link_down = argv[++i];
    else if (a == "--regen")
      spec.regen = true;
    else {
      Usage(argv[0]);
      return 2;
    }
  }
  if (procs < 1 || rounds < 5 || spec.hcas < 1) {
    fprintf(stderr,
            "bench_jobstart: --procs and --hcas must be positive, --rounds at least 5 "
            "(a median needs them)\n");
    return 2;
  }

  // The fabric: the cached SMDB (the first of the pair).
  ssa::bench::SmdbPair pair;
  Status st = ssa::bench::GetSmdbPair(
      spec, [](const std::string& line) { fprintf(stderr, "bench_jobstart: %s\n", line.c_str()); },
      &pair);
  std::unique_ptr<smdb::SmdbIndex> index;
  if (st.ok()) st = smdb::SmdbIndex::Build(pair.before, &index);
  Source src;
  if (st.ok()) st = FirstHcaPort(*index, &src);
  auto prdb = std::make_shared<smdb::Prdb>();
  if (st.ok()) {
    smdb::PathEngine engine(index.get(), smdb::PathEngineOptions::ForPrdb());
    st = smdb::BuildPrdb(engine, src.guid, pair.before.global_epoch, prdb.get());
  }
  if (!st.ok()) {
    fprintf(stderr, "bench_jobstart: the SMDB and PRDB: %s\n", st.ToString().c_str());
    return 1;
  }
  const std::vector<uint16_t> lids = ServedLids(*prdb, src.lid);
  ssa::ssa_provider::PrdbView view(prdb);

  // The stand-in daemon: its socket, its answers, its tables.
  ssa::test::TempDir dir;
  const std::string socket = dir.path() + "/acm.sock", lid_file = dir.path() + "/lids";
  {
    std::ofstream out(lid_file);
    for (uint16_t lid : lids) out << lid << "\n";
  }
  ssa::bench::NullAcmServer daemon;
  const uint16_t pkey = 0xffff;
  daemon.set_path_source([&view, pkey](uint16_t dlid, ibv_path_record* out) {
    const smdb::PrdbPath* p = view.ByLid(dlid);
    if (!p || (p->flags & smdb::kPathInexact)) return false;
    smdb::FromPrdbPath(*p, out);
    out->pkey = ssa::ToBe16(pkey);  // the endpoint's, as the ssa provider answers
    return true;
  });
  st = daemon.Start(socket);
  ssa::ssa_provider::ShmExport tables(socket);
  ssa::ssa_provider::ExportPort port;
  port.gid = {0xfe, 0x80};
  for (int i = 0; i < 8; ++i) port.gid[8 + i] = static_cast<uint8_t>(src.guid >> (56 - 8 * i));
  port.lid = src.lid;
  port.lmc = view.lmc();
  port.view = std::shared_ptr<const ssa::ssa_provider::PrdbView>(
      std::shared_ptr<const ssa::ssa_provider::PrdbView>(), &view);  // not owned
  port.pkeys = {pkey};
  if (st.ok()) st = tables.Publish({port}, nullptr, tables.generation());
  if (!st.ok()) {
    fprintf(stderr, "bench_jobstart: the stand-in daemon: %s\n", st.ToString().c_str());
    return 1;
  }

  // The processes run this very binary, even if a build replaces the file.
  const std::string self = "/proc/self/exe";
  utsname u{};
  uname(&u);
  time_t now = time(nullptr);
  char when[64];
  strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
  printf("bench_jobstart: %s on %s, %u cores; %d-HCA fat tree (%zu LIDs in the SMDB, %s)\n", when,
         u.nodename, std::thread::hardware_concurrency(), ssa::bench::CountCas(pair.before),
         index->endpoints().size(), pair.source.c_str());
  printf(
      "stand-in daemon: PRDB of the HCA port at LID %u (%zu records, epoch %llu): %zu LIDs "
      "served, resolved by each of %d processes\n",
      src.lid, view.paths(), static_cast<unsigned long long>(view.epoch()), lids.size(), procs);
  printf(
      "\nround   A socket: procs CPU  daemon CPU    wall   B libibssa_path: procs CPU  "
      "daemon CPU    wall   P start only: CPU    wall   A/B CPU  A/B wall\n");

  // Each contender's runs, and the ratios A/B, round by round.
  struct Series {
    std::vector<double> cpu, daemon, wall;
    void Add(const Run& r) {
      cpu.push_back(r.cpu_s);
      daemon.push_back(r.daemon_s);
      wall.push_back(r.wall_s);
    }
  } as, bs, ps;
  std::vector<double> cpu_ratio, cpu_all_ratio, wall_ratio;
  for (int round = 1; round <= rounds; ++round) {
    Run a = RunProcs(self, "socket", socket, lid_file, procs, &daemon);
    Run b = RunProcs(self, "shm", socket, lid_file, procs, &daemon);
    Run p = RunProcs(self, "none", socket, lid_file, procs, &daemon);
    for (const Run* r : {&a, &b, &p})
      if (!r->ok) {
        fprintf(stderr, "bench_jobstart: round %d: %s\n", round, r->why.c_str());
        return 1;
      }
    as.Add(a);
    bs.Add(b);
    ps.Add(p);
    cpu_ratio.push_back(a.cpu_s / b.cpu_s);
    cpu_all_ratio.push_back((a.cpu_s + a.daemon_s) / (b.cpu_s + b.daemon_s));
    wall_ratio.push_back(a.wall_s / b.wall_s);
    printf(
        "%5d   %16.3f s %9.3f s %7.3f s   %24.3f s %9.3f s %7.3f s   %16.3f s %7.3f s  %7.1f  "
        "%8.1f\n",
        round, a.cpu_s, a.daemon_s, a.wall_s, b.cpu_s, b.daemon_s, b.wall_s, p.cpu_s, p.wall_s,
        a.cpu_s / b.cpu_s, a.wall_s / b.wall_s);
  }
  daemon.Stop();

  const double resolves = static_cast<double>(lids.size()) * procs;
  // Per resolve, net of P (the processes' start and exit): what a resolve
  // costs the processes (and, through the socket, the daemon).
  const double floor_s = Median(ps.cpu);
  const double a_us = (Median(as.cpu) - floor_s) / resolves * 1e6,
               a_daemon_us = Median(as.daemon) / resolves * 1e6,
               b_us = (Median(bs.cpu) + Median(bs.daemon) - floor_s) / resolves * 1e6;
  printf(
      "\nper resolve (median rounds, %.0f resolves, net of P): socket %.2f us of the processes' "
      "CPU + %.2f us of the daemon's; libibssa_path %.3f us (its open and mapping included)\n",
      resolves, a_us, a_daemon_us, b_us);
  struct Figure {
    const char* name;
    double value;
    int digits;
  };
  const Figure figures[] = {
      {"procs", static_cast<double>(procs), 0},
      {"lids", static_cast<double>(lids.size()), 0},
      {"socket_cpu_s", Median(as.cpu), 3},
      {"socket_daemon_cpu_s", Median(as.daemon), 3},
      {"socket_wall_s", Median(as.wall), 3},
      {"shm_cpu_s", Median(bs.cpu), 3},
      {"shm_daemon_cpu_s", Median(bs.daemon), 3},
      {"shm_wall_s", Median(bs.wall), 3},
      {"start_only_cpu_s", floor_s, 3},
      {"start_only_wall_s", Median(ps.wall), 3},
      {"cpu_ratio_median", Median(cpu_ratio), 1},
      {"cpu_ratio_min", Min(cpu_ratio), 1},
      {"cpu_ratio_max", Max(cpu_ratio), 1},
      {"cpu_with_daemon_ratio_median", Median(cpu_all_ratio), 1},
      {"socket_us_per_resolve", a_us + a_daemon_us, 2},
      {"shm_us_per_resolve", b_us, 3},
      {"wall_ratio_median", Median(wall_ratio), 1},
      {"wall_ratio_min", Min(wall_ratio), 1},
      {"wall_ratio_max", Max(wall_ratio), 1},
      {"rounds", static_cast<double>(rounds), 0},
  };
  printf("\n");
  for (const Figure& f : figures) printf("%s = %.*f\n", f.name, f.digits, f.value);
  return 0;
}
