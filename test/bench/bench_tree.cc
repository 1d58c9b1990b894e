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
//       [--prdb-threads N]
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
#include <chrono>
#include <cctype>
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
#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_delta_read.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/shm_export.h"
#include "common/tree/consumer.h"
#include "common/tree/core_server.h"
#include "common/tree/db_version.h"
#include "common/tree/frame.h"
#include "common/tree/inproc_mad.h"
#include "common/tree/stream.h"
#include "distrib/ibssa_member.h"
#include "test/bench/mad_bridge.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/bench/first_touch.h"
#include "test/bench/thread_cpu.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/temp_dir.h"

using Clock = std::chrono::steady_clock;
using ssa::Status;
namespace smdb = ssa::smdb;
namespace tree = ssa::tree;
namespace distrib = ssa::distrib;
namespace ssaprov = ssa::ssa_provider;

namespace {

struct Options {
  // The SMDB pair: --hcas (default 10,000), --link-down (L1:19), --routing
  // (OpenSM's -R; empty: its default, minhop), --qos-policy (QoS on with
  // that policy file), --regen.
  ssa::bench::SmdbPairSpec pair;
  int consumers = 10000;
  int access = 0;        // 0: one per 1,000 consumers
  int distribution = 0;  // 0: one per 64 access nodes
  int consumer_procs = 0;  // 0: as few as the descriptor limit allows
  int consumer_loops = 2;  // per consumer process
  int prdb_threads = 2;
  double timeout_s = 600;
  double max_rss_gib = 21;
  bool pieces = false;  // --pieces: the fixed CPU-bound workloads only
  ssa::LogLevel log_level = ssa::LogLevel::kError;
};

void Usage(const char* argv0) {
  fprintf(
      stderr,
      "usage: %s [--hcas N] [--consumers N] [--access N] [--distribution N] [--consumer-procs N]\n"
      "          [--consumer-loops N] [--prdb-threads N] [--link-down NODE[:PORT]] [--timeout S]\n"
      "          [--max-rss-gib G] [--routing ENGINE] [--qos-policy FILE]\n"
      "          [--regen] [--log-level L] [--pieces]\n",
      argv0);
}

bool ParseArgs(int argc, char** argv, Options* o) {
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

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
double Between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// /proc/self/status fields in bytes ("VmRSS", "VmHWM"), or another
// process's.
uint64_t ProcStatusBytes(const char* field, pid_t pid = 0) {
  std::ifstream f(pid ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status");
  std::string line;
  size_t n = strlen(field);
  while (std::getline(f, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return strtoull(line.c_str() + n + 1, nullptr, 10) * 1024;
  return 0;
}
// A process's proportional set size (/proc/PID/smaps_rollup "Pss"): pages
// shared with others (the consumer processes share what they were forked
// with) counted in shares, so the processes' sum is the memory they take.
uint64_t ProcPssBytes(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string line;
  while (std::getline(f, line))
    if (line.compare(0, 4, "Pss:") == 0) return strtoull(line.c_str() + 4, nullptr, 10) * 1024;
  return 0;
}

// A /proc/meminfo field ("MemTotal:", ...) in bytes, 0 if missing.
uint64_t MemInfoBytes(const char* key) {
  std::ifstream mi("/proc/meminfo");
  std::string line;
  while (std::getline(mi, line)) {
    unsigned long long kb = 0;
    if (line.compare(0, strlen(key), key) == 0 && sscanf(line.c_str() + strlen(key), "%llu", &kb) == 1)
      return kb * 1024;
  }
  return 0;
}

double Gib(uint64_t bytes) { return static_cast<double>(bytes) / (1ULL << 30); }

void Progress(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void Progress(const char* fmt, ...) {
  static const Clock::time_point start = Clock::now();
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  fprintf(stderr, "bench_tree [%7.1f s] %s\n", Since(start), buf);
}

// Runs `f` on `loop`'s thread and waits for its value.
template <class F>
auto RunOn(ssa::EventLoop* loop, F f) -> decltype(f()) {
  using R = decltype(f());
  auto p = std::make_shared<std::promise<R>>();
  std::future<R> fut = p->get_future();
  loop->Post([p, f]() mutable {
    if constexpr (std::is_void<R>::value) {
      f();
      p->set_value();
    } else {
      p->set_value(f());
    }
  });
  return fut.get();
}

std::string Num(double v, int decimals = 3) {
  char b[64];
  snprintf(b, sizeof(b), "%.*f", decimals, v);
  return b;
}

// ---------------------------------------------------------------------------
// The SMDB pair: from the cache, or made on the simulated fabric
// (smdb_pair_cache.h).

using ssa::bench::SmdbPair;

Status GetSmdbs(const Options& opt, SmdbPair* out) {
  return ssa::bench::GetSmdbPair(
      opt.pair, [](const std::string& line) { Progress("%s", line.c_str()); }, out);
}

// ---------------------------------------------------------------------------
// The tree.

struct Port {
  uint64_t guid = 0;
  uint16_t lid = 0;
};

// A loop on its own thread.
// A loop on its own thread, named for profilers (`perf report --sort comm`).
struct LoopThread {
  ssa::EventLoop loop;
  std::thread thread;
  Status Start(const std::string& name) {
    Status st = loop.Init();
    if (!st.ok()) return st;
    thread = std::thread([this, name] {
      pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
      loop.Run();
    });
    return Status::Ok();
  }
  void Stop() {
    if (!thread.joinable()) return;
    loop.Stop();
    thread.join();
  }
};

// Counters of one tier, summed.
struct TierBytes {
  uint64_t core = 0, distribution = 0, access = 0;
  uint64_t consumer_full = 0, consumer_delta = 0, consumer_bytes = 0;
};

struct Phase {
  const char* name = "";
  uint64_t epoch = 0;
  Clock::time_point published;
  double access_smdb_s = -1;  // every access node holds the SMDB
  double prdbs_s = -1;        // every access node published every consumer's PRDB
  double all_s = -1;          // every consumer holds its PRDB
  int reached = 0;            // consumers holding it at the end
  bool done = false;
  std::string stopped_why;
  TierBytes bytes;  // sent during the phase
  uint64_t paths_computed = 0, paths_if_full = 0;
  uint64_t prdb_buffers_new = 0;  // serialization buffers not reused (BufferRecycler)
  ssa::bench::CpuByRole cpu;      // CPU seconds spent during the phase, by thread role
};

// The access nodes' PrdbService counters, summed.
struct PrdbCounts {
  uint64_t computed = 0, if_full = 0;
  uint64_t buffers_new = 0;
};

// Between this process and a consumer process (SOCK_SEQPACKET, one
// struct a message). Commands and their replies go over one socket, the
// consumers' new epochs over another, as they happen.
enum ChildOp : uint32_t {
  kChildStart = 1,
  kChildStats = 2,
  kChildStop = 5,  // stops the consumers' loops: their PRDBs stay as they are
  kChildCheck = 3,
  kChildExit = 4
};
struct ChildCommand {
  uint32_t op = 0;
};
struct ChildReply {
  int32_t ok = 0;
  char error[200] = "";
  // kChildStats
  uint64_t full_transfers = 0, delta_transfers = 0, bytes_received = 0, joins_sent = 0;
  uint64_t bridge_errors = 0;
  // kChildCheck
  uint64_t bad = 0, good = 0, mem = 0, wire = 0, paths = 0;
};
struct ChildEvent {
  uint32_t index = 0;  // of the consumer, over all processes
  uint64_t epoch = 0;  // of the PRDB it holds now
  int64_t ns = 0;      // steady clock (CLOCK_MONOTONIC: the same in every process)
};

// One consumer process as this process sees it.
struct Child {
  pid_t pid = -1;
  int mad_fd = -1, cmd_fd = -1, event_fd = -1;
  size_t first = 0, count = 0;  // its consumers: [first, first + count)
  std::unique_ptr<tree::InprocMadGateway> gateway;
  std::unique_ptr<ssa::bench::MadBridge> bridge;
  std::thread events;
  uint64_t rss_before = 0;
};

class Bench {
 public:
  explicit Bench(const Options& o) : opt_(o) {}
  ~Bench() { Shutdown(); }

  Status Setup(const SmdbPair& pair, int consumers, int access, int distribution);
  Status RunStartup(Phase* p);
  Status RunUpdate(Phase* p);
  // After the phases: every consumer's PRDB against BuildPrdb, and the
  // memory of one against its wire size.
  void Check(const smdb::Smdb& db, bool* equal, size_t* mismatched, double* mem_bytes,
             double* wire_bytes, double* paths);
  void StopLoops();
  // The core and the members go (their memory is the access nodes' copies
  // of every PRDB; the check needs room); the consumers stay.
  void ReleaseTree();
  void Shutdown();

  double join_burst_s = -1;
  uint64_t consumer_joins = 0;  // joins the consumers sent (retries of one join not counted)
  // What a consumer sends when nothing goes wrong, from its start to the
  // moment consumer_joins was read: its join, the early renewal that
  // reports its first epoch, and a renewal every third of the lease.
  double joins_expected = 0;
  Clock::time_point consumers_started;
  uint64_t bridge_errors = 0;
  uint64_t peak_rss = 0;  // the most AllRss saw
  uint64_t parent_pss = 0;  // this process's part of the last AllRss
  size_t procs() const { return children_.size(); }
  uint64_t rss_before_consumers = 0, rss_after_startup = 0;
  tree::InprocMadCounters mad_counters;
  tree::CoreControlCounters core_counters;

 private:
  Status WaitPhase(Phase* p, const TierBytes& before, const PrdbCounts& prdb_before,
                   const ssa::bench::CpuByRole& cpu_before);
  // This process and the consumer processes.
  std::vector<pid_t> Pids() const;
  TierBytes ReadBytes();
  // Forks the consumer processes (before any thread starts).
  Status ForkChildren(int procs);
  [[noreturn]] void ChildMain(size_t k, int mad_fd, int cmd_fd, int event_fd);
  Status Ask(Child* c, uint32_t op, ChildReply* r);
  void ReadEvents(Child* c);
  uint64_t AllRss();
  PrdbCounts ReadPrdbCounts();
  // A phase's epoch: the counters below start again.
  void Target(uint64_t epoch);
  void OnConsumerEpoch(size_t i, uint64_t e, int64_t ns);
  void OnAccessSmdb(uint64_t epoch);
  void OnPrdb(const distrib::PrdbVersion& v);

  Options opt_;
  ssa::Logger log_;
  tree::InprocMadFabric mads_;
  Port core_port_;
  std::vector<Port> dist_ports_, access_ports_, consumer_ports_;
  uint64_t gid_prefix_ = 0;
  std::shared_ptr<const smdb::Smdb> db1_, db2_;
  std::shared_ptr<const std::string> ser1_, ser2_, delta_;

  LoopThread core_loop_, member_loop_, bridge_loop_;
  std::vector<Child> children_;
  std::unique_ptr<tree::StreamTransport> core_streams_, member_streams_;
  std::unique_ptr<ssa::MadTransport> core_mads_;
  std::unique_ptr<tree::CoreServer> core_;
  std::unique_ptr<ssa::WorkerPool> pool_;
  std::vector<std::unique_ptr<ssa::MadTransport>> member_mads_;
  std::vector<std::unique_ptr<distrib::IbssaMember>> members_;  // distribution first, then access

  std::map<uint64_t, size_t> consumer_index_;  // by port GUID; fixed after Setup
  // Written by the members' loop.
  std::vector<uint64_t> prdb_epoch_at_access_;  // per consumer
  std::atomic<int> access_at_target_{0}, prdbs_at_target_{0};
  std::atomic<int64_t> access_smdb_ns_{0}, prdbs_ns_{0};
  // Written by the threads reading the consumer processes' events.
  std::vector<uint64_t> counted_epoch_;  // per consumer, its process's thread only
  std::atomic<uint64_t> target_epoch_{0};
  std::atomic<int> at_target_{0};
  std::atomic<int64_t> last_reached_ns_{0};
  // Written by the core's loop.
  std::atomic<size_t> members_now_{0};
  std::atomic<int64_t> all_joined_ns_{0};
  size_t members_expected_ = 0;
  bool shut_ = false;
};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}
Clock::time_point FromNs(int64_t ns) { return Clock::time_point(std::chrono::nanoseconds(ns)); }

Status Bench::Setup(const SmdbPair& pair, int consumers, int access, int distribution) {
  Status st = log_.Open("stderr", "bench_tree");
  if (!st.ok()) return st;
  log_.set_level(opt_.log_level);
  db1_ = std::make_shared<smdb::Smdb>(pair.before);
  db2_ = std::make_shared<smdb::Smdb>(pair.after);
  auto s1 = std::make_shared<std::string>(), s2 = std::make_shared<std::string>(),
       d = std::make_shared<std::string>();
  st = db1_->Serialize(s1.get());
  if (st.ok()) st = db2_->Serialize(s2.get());
  if (st.ok()) st = smdb::MakeDelta(*db1_, *db2_, d.get());
  if (!st.ok()) return st;
  ser1_ = s1;
  ser2_ = s2;
  delta_ = d;

  // Roles: the SM's port is the core; the other CA ports active in both
  // versions, by LID, are distribution, access and consumer ports.
  const smdb::SmdbSubnet& subnet = db1_->subnet.records[0];
  core_port_ = {subnet.sm_port_guid, subnet.sm_lid};
  gid_prefix_ = subnet.subnet_prefix;
  std::unique_ptr<smdb::SmdbIndex> x1, x2;
  st = smdb::SmdbIndex::Build(*db1_, &x1);
  if (st.ok()) st = smdb::SmdbIndex::Build(*db2_, &x2);
  if (!st.ok()) return st;
  std::vector<Port> ports;
  for (uint32_t e : x1->endpoints()) {
    const auto& p = x1->port(e);
    if (!p.port_guid || !p.base_lid || p.port_guid == core_port_.guid) continue;
    if (x2->PortByGuid(p.port_guid) == smdb::SmdbIndex::kNone) continue;  // gone with the link
    if (x1->node_of(p).type != smdb::kNodeCa) continue;
    ports.push_back({p.port_guid, p.base_lid});
  }
  std::sort(ports.begin(), ports.end(), [](const Port& a, const Port& b) { return a.lid < b.lid; });
  size_t need = static_cast<size_t>(distribution + access + consumers);
  if (ports.size() < need) return Status::Error(EINVAL, "not enough CA ports");
  size_t k = 0;
  for (int i = 0; i < distribution; ++i) dist_ports_.push_back(ports[k++]);
  for (int i = 0; i < access; ++i) access_ports_.push_back(ports[k++]);
  for (int i = 0; i < consumers; ++i) consumer_ports_.push_back(ports[k++]);
  members_expected_ = need;
  counted_epoch_.assign(consumer_ports_.size(), 0);

  // The consumer processes first: fork() before this process has threads.
  st = ForkChildren(opt_.consumer_procs);
  if (!st.ok()) return st;

  // Threads: the core's loop, the members' loop (with the PRDB workers),
  // the bridges to the consumer processes, a reader of each one's events.
  st = core_loop_.Start("core");
  if (st.ok()) st = member_loop_.Start("members");
  if (st.ok()) st = bridge_loop_.Start("mad-bridge");
  if (!st.ok()) return st;
  st = RunOn(&bridge_loop_.loop, [this]() -> Status {
    for (Child& c : children_) {
      std::vector<uint16_t> lids;
      for (size_t i = c.first; i < c.first + c.count; ++i) lids.push_back(consumer_ports_[i].lid);
      Status s = mads_.NewGateway(lids, tree::kSsaClass, &c.gateway);
      if (!s.ok()) return s;
      c.bridge = std::make_unique<ssa::bench::MadBridge>(&bridge_loop_.loop, c.mad_fd,
                                                         c.gateway.get());
      s = c.bridge->Start();
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!st.ok()) return st.WithContext("MAD bridge");
  for (Child& c : children_) c.events = std::thread([this, &c] { ReadEvents(&c); });
  core_streams_ = tree::NewTcpTransport();
  member_streams_ = tree::NewTcpTransport();
  // The workers take the creating thread's name.
  pthread_setname_np(pthread_self(), "prdb-workers");
  pool_ =
      std::make_unique<ssa::WorkerPool>(&member_loop_.loop, static_cast<size_t>(opt_.prdb_threads));
  pthread_setname_np(pthread_self(), "bench_tree");
  prdb_epoch_at_access_.assign(consumer_ports_.size(), 0);
  for (size_t i = 0; i < consumer_ports_.size(); ++i) consumer_index_[consumer_ports_[i].guid] = i;

  // The core, with the empty address database the plugin serves without a
  // hosts file (so no member waits for one).
  core_mads_ = mads_.NewTransport(core_port_.lid);
  st = core_mads_->Open(tree::kSsaClass, tree::kSsaClassVersion);
  if (!st.ok()) return st;
  return RunOn(&core_loop_.loop, [this]() -> Status {
    tree::CoreServerOptions co;
    co.port_guid = core_port_.guid;
    co.lid = core_port_.lid;
    Status s = tree::DataAddress::Parse("127.0.0.1:0", &co.listen);
    if (!s.ok()) return s;
    co.data.max_children = 4096;
    core_ = std::make_unique<tree::CoreServer>(&core_loop_.loop, &log_, core_mads_.get(),
                                               core_streams_.get(), co);
    s = core_->Start([this] {
      size_t n = core_->membership()->size();
      members_now_ = n;
      if (n >= members_expected_ && all_joined_ns_ == 0) all_joined_ns_ = NowNs();
    });
    if (!s.ok()) return s;
    smdb::AddrDb addr;
    addr.global_epoch = 1;
    auto bytes = std::make_shared<std::string>();
    s = addr.Serialize(bytes.get());
    if (!s.ok()) return s;
    core_->PublishAddr({1, tree::DigestOf(*bytes), bytes}, nullptr, 0);
    return Status::Ok();
  });
}

void Bench::OnConsumerEpoch(size_t i, uint64_t e, int64_t now) {
  if (i >= counted_epoch_.size() || e != target_epoch_.load() || counted_epoch_[i] == e) return;
  counted_epoch_[i] = e;
  int64_t prev = last_reached_ns_.load();
  while (prev < now && !last_reached_ns_.compare_exchange_weak(prev, now)) {
  }
  ++at_target_;
}

TierBytes Bench::ReadBytes() {
  TierBytes t;
  t.core = RunOn(&core_loop_.loop, [this] { return core_->data_server()->counters().bytes_sent; });
  RunOn(&member_loop_.loop, [this, &t] {
    for (size_t i = 0; i < members_.size(); ++i) {
      uint64_t b = members_[i]->server() ? members_[i]->server()->counters().bytes_sent : 0;
      (i < dist_ports_.size() ? t.distribution : t.access) += b;
    }
  });
  uint64_t joins = 0, errors = 0;
  for (Child& c : children_) {
    ChildReply r;
    if (!Ask(&c, kChildStats, &r).ok()) continue;
    t.consumer_full += r.full_transfers;
    t.consumer_delta += r.delta_transfers;
    t.consumer_bytes += r.bytes_received;
    joins += r.joins_sent;
    errors += r.bridge_errors;
  }
  consumer_joins = joins;
  bridge_errors = errors;
  if (consumers_started != Clock::time_point()) {
    const int renew_s = std::max(1, tree::MembershipOptions{}.lease_s / 3);
    joins_expected = 2 + std::floor(Since(consumers_started) / renew_s);
  }
  return t;
}

PrdbCounts Bench::ReadPrdbCounts() {
  return RunOn(&member_loop_.loop, [&] {
    PrdbCounts c;
    for (const auto& m : members_)
      if (m->prdbs()) {
        c.computed += m->prdbs()->paths_computed();
        c.if_full += m->prdbs()->paths_if_full();
        c.buffers_new += m->prdbs()->buffer_counters().fresh;
      }
    return c;
  });
}

void Bench::Target(uint64_t epoch) {
  RunOn(&member_loop_.loop, [this, epoch] {
    access_at_target_ = prdbs_at_target_ = 0;
    access_smdb_ns_ = prdbs_ns_ = 0;
    target_epoch_ = epoch;
  });
  at_target_ = 0;
  last_reached_ns_ = 0;
}

void Bench::OnAccessSmdb(uint64_t epoch) {
  if (epoch != target_epoch_.load()) return;
  if (++access_at_target_ == static_cast<int>(access_ports_.size())) access_smdb_ns_ = NowNs();
}

void Bench::OnPrdb(const distrib::PrdbVersion& v) {
  if (v.epoch != target_epoch_.load()) return;
  auto it = consumer_index_.find(v.port_guid);
  if (it == consumer_index_.end() || prdb_epoch_at_access_[it->second] == v.epoch) return;
  prdb_epoch_at_access_[it->second] = v.epoch;
  if (++prdbs_at_target_ == static_cast<int>(consumer_ports_.size())) prdbs_ns_ = NowNs();
}

std::vector<pid_t> Bench::Pids() const {
  std::vector<pid_t> pids{getpid()};
  for (const Child& c : children_) pids.push_back(c.pid);
  return pids;
}

Status Bench::WaitPhase(Phase* p, const TierBytes& before, const PrdbCounts& prdb_before,
                        const ssa::bench::CpuByRole& cpu_before) {
  auto deadline = p->published + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(opt_.timeout_s));
  auto next_report = Clock::now(), next_rss = Clock::now();
  uint64_t rss = 0;
  const int n = static_cast<int>(consumer_ports_.size());
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    int reached = at_target_.load();
    // Every process's PSS, once a second (reading them walks page tables).
    if (Clock::now() >= next_rss) {
      rss = AllRss();
      next_rss = Clock::now() + std::chrono::seconds(1);
    }
    if (Clock::now() >= next_report || reached == n) {
      // This process's heap: in use vs free in malloc's arenas (memory
      // that a growth with nothing more in use went to).
      struct mallinfo2 mi = mallinfo2();
      Progress("%s: members %zu/%zu in the book, access nodes holding SMDB epoch %" PRIu64
               ": %d/%zu, PRDBs computed %d/%d, consumers holding them %d/%d, PSS of all processes %.2f GiB (this one %.2f; malloc in use %.2f, free %.2f)",
               p->name, members_now_.load(), members_expected_, p->epoch, access_at_target_.load(),
               access_ports_.size(), prdbs_at_target_.load(), n, reached, n, Gib(rss), Gib(parent_pss),
               Gib(mi.uordblks + mi.hblkhd), Gib(mi.fordblks));
      next_report = Clock::now() + std::chrono::seconds(2);
    }
    if (reached == n) {
      p->done = true;
    } else if (Gib(rss) > opt_.max_rss_gib) {
      p->stopped_why = "RSS " + Num(Gib(rss), 1) + " GiB passed --max-rss-gib";
    } else if (Clock::now() > deadline) {
      p->stopped_why =
          "not done after --timeout " + std::to_string(static_cast<int>(opt_.timeout_s)) + " s";
    }
    if (!p->done && p->stopped_why.empty()) continue;
    p->reached = reached;
    if (p->done) p->all_s = Between(p->published, FromNs(last_reached_ns_.load()));
    p->cpu = ssa::bench::CpuSpent(cpu_before, ssa::bench::ReadCpuByRole(Pids()));
    if (access_smdb_ns_.load())
      p->access_smdb_s = Between(p->published, FromNs(access_smdb_ns_.load()));
    if (prdbs_ns_.load()) p->prdbs_s = Between(p->published, FromNs(prdbs_ns_.load()));
    // Let the last sends and acknowledgements finish before reading counters.
    if (p->done) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    TierBytes after = ReadBytes();
    p->bytes.core = after.core - before.core;
    p->bytes.distribution = after.distribution - before.distribution;
    p->bytes.access = after.access - before.access;
    p->bytes.consumer_full = after.consumer_full - before.consumer_full;
    p->bytes.consumer_delta = after.consumer_delta - before.consumer_delta;
    p->bytes.consumer_bytes = after.consumer_bytes - before.consumer_bytes;
    PrdbCounts prdb = ReadPrdbCounts();
    p->paths_computed = prdb.computed - prdb_before.computed;
    p->paths_if_full = prdb.if_full - prdb_before.if_full;
    p->prdb_buffers_new = prdb.buffers_new - prdb_before.buffers_new;
    return Status::Ok();
  }
}

Status Bench::RunStartup(Phase* p) {
  p->name = "start-up";
  p->epoch = db1_->global_epoch;
  Target(p->epoch);
  TierBytes zero;
  ssa::bench::CpuByRole cpu_before = ssa::bench::ReadCpuByRole(Pids());
  // The core publishes the first SMDB; members and consumers start now.
  p->published = RunOn(&core_loop_.loop, [this] {
    auto t = Clock::now();
    core_->PublishSmdb(db1_, ser1_, nullptr, 0);
    return t;
  });
  Status st = RunOn(&member_loop_.loop, [this]() -> Status {
    std::vector<Port> all = dist_ports_;
    all.insert(all.end(), access_ports_.begin(), access_ports_.end());
    for (size_t i = 0; i < all.size(); ++i) {
      distrib::IbssaOptions o;
      o.roles = i < dist_ports_.size() ? distrib::kRoleDistribution : distrib::kRoleAccess;
      o.listen = "127.0.0.1:0";
      o.max_children = 8192;
      o.prdb_threads = opt_.prdb_threads;
      member_mads_.push_back(mads_.NewTransport(all[i].lid));
      Status s = member_mads_.back()->Open(tree::kSsaClass, tree::kSsaClassVersion);
      if (!s.ok()) return s;
      members_.push_back(
          std::make_unique<distrib::IbssaMember>(&member_loop_.loop, &log_, o, pool_.get()));
      distrib::MemberPort mp;
      mp.port_guid = all[i].guid;
      mp.gid_prefix = gid_prefix_;
      mp.sm_lid = core_port_.lid;
      if (o.roles & distrib::kRoleAccess) {
        members_.back()->set_on_smdb([this](uint64_t e) { OnAccessSmdb(e); });
        members_.back()->set_on_prdb([this](const distrib::PrdbVersion& v) { OnPrdb(v); });
      }
      s = members_.back()->Start(mp, member_mads_.back().get(), member_streams_.get());
      if (!s.ok()) return s;
    }
    return Status::Ok();
  });
  if (!st.ok()) return st.WithContext("members");
  // Consumers join once their parents are in the book (a consumer that
  // finds no access node backs off for seconds).
  size_t parents = dist_ports_.size() + access_ports_.size();
  while (members_now_.load() < parents) {
    if (Since(p->published) > opt_.timeout_s)
      return Status::Error(ETIMEDOUT, "members did not join");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  rss_before_consumers = AllRss();
  auto consumers_start = Clock::now();
  consumers_started = consumers_start;
  // Every process starts its share at once; each answers when all of its
  // consumers are started.
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildStart;
    if (send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL) != sizeof(cmd))
      return Status::Error(EPIPE, "consumer process " + std::to_string(c.pid) + " is gone");
  }
  for (Child& c : children_) {
    ChildReply r;
    if (recv(c.cmd_fd, &r, sizeof(r), 0) != sizeof(r))
      return Status::Error(EPIPE, "consumer process " + std::to_string(c.pid) + " is gone");
    if (!r.ok) st = Status::Error(EINVAL, std::string("consumer process: ") + r.error);
  }
  if (!st.ok()) return st;
  Progress("start-up: %zu distribution, %zu access node(s) joined; %zu consumers started in %.2f s",
           dist_ports_.size(), access_ports_.size(), consumer_ports_.size(),
           Since(consumers_start));
  st = WaitPhase(p, zero, PrdbCounts(), cpu_before);
  if (all_joined_ns_.load()) join_burst_s = Between(consumers_start, FromNs(all_joined_ns_.load()));
  rss_after_startup = AllRss();
  return st;
}

Status Bench::RunUpdate(Phase* p) {
  p->name = "update";
  p->epoch = db2_->global_epoch;
  // Quiet first: every early epoch report and renewal of the start-up done.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  TierBytes before = ReadBytes();
  PrdbCounts prdb_before = ReadPrdbCounts();
  ssa::bench::CpuByRole cpu_before = ssa::bench::ReadCpuByRole(Pids());
  Target(p->epoch);
  p->published = RunOn(&core_loop_.loop, [this] {
    auto t = Clock::now();
    core_->PublishSmdb(db2_, ser2_, delta_, db1_->global_epoch);
    return t;
  });
  return WaitPhase(p, before, prdb_before, cpu_before);
}

void Bench::Check(const smdb::Smdb& db, bool* equal, size_t* mismatched, double* mem_bytes,
                  double* wire_bytes, double* paths) {
  (void)db;  // each consumer process holds the same SMDB (forked with it)
  *equal = false;
  *mismatched = consumer_ports_.size();
  // Every process checks its own consumers, at once.
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildCheck;
    send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
  }
  uint64_t bad = 0, good = 0, mem = 0, wire = 0, npaths = 0;
  for (Child& c : children_) {
    ChildReply r;
    if (recv(c.cmd_fd, &r, sizeof(r), 0) != sizeof(r) || !r.ok) {
      bad += c.count;
      continue;
    }
    bad += r.bad;
    good += r.good;
    mem += r.mem;
    wire += r.wire;
    npaths += r.paths;
  }
  *mismatched = static_cast<size_t>(bad);
  *equal = bad == 0 && good == consumer_ports_.size() && good > 0;
  *mem_bytes = good ? static_cast<double>(mem) / good : 0;
  *wire_bytes = good ? static_cast<double>(wire) / good : 0;
  *paths = good ? static_cast<double>(npaths) / good : 0;
}

// Every consumer PRDB of a process against BuildPrdb on `db` (its loops
// stopped: the snapshots are stable).
void CheckConsumers(const smdb::Smdb& db, const std::vector<std::unique_ptr<tree::Consumer>>& cs,
                    const std::vector<Port>& ports, ChildReply* r) {
  std::unique_ptr<smdb::SmdbIndex> index;
  if (!smdb::SmdbIndex::Build(db, &index).ok()) {
    r->bad = cs.size();
    return;
  }
  smdb::PathEngine engine(index.get(), smdb::PathEngineOptions::ForPrdb());
  const unsigned threads = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::atomic<uint64_t> bad{0}, good{0}, mem{0}, wire{0}, npaths{0};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      pthread_setname_np(pthread_self(), "check");
      for (size_t i = t; i < cs.size(); i += threads) {
        std::shared_ptr<const smdb::Prdb> got = cs[i] ? cs[i]->prdb() : nullptr;
        smdb::Prdb full;
        if (!got || !smdb::BuildPrdb(engine, ports[i].guid, db.global_epoch, &full).ok() ||
            !(full == *got)) {
          ++bad;
          continue;
        }
        std::string bytes;
        got->Serialize(&bytes);
        ++good;
        wire += bytes.size();
        mem += sizeof(smdb::Prdb) + got->source.records.capacity() * sizeof(smdb::PrdbSource) +
               got->paths.records.capacity() * sizeof(smdb::PrdbPath);
        npaths += got->paths.records.size();
      }
    });
  for (auto& t : pool) t.join();
  r->bad = bad;
  r->good = good;
  r->mem = mem;
  r->wire = wire;
  r->paths = npaths;
}

Status Bench::ForkChildren(int procs) {
  size_t n = consumer_ports_.size();
  procs = std::max(1, std::min(procs, static_cast<int>(std::max<size_t>(n, 1))));
  fflush(stdout);
  fflush(stderr);
  for (int k = 0; k < procs; ++k) {
    int mad[2], cmd[2], ev[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mad) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, cmd) < 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ev) < 0)
      return Status::Error(errno, std::string("socketpair: ") + strerror(errno));
    Child c;
    c.first = n * static_cast<size_t>(k) / static_cast<size_t>(procs);
    c.count = n * static_cast<size_t>(k + 1) / static_cast<size_t>(procs) - c.first;
    children_.push_back(std::move(c));
    pid_t pid = fork();
    if (pid < 0) return Status::Error(errno, std::string("fork: ") + strerror(errno));
    if (pid == 0) {
      close(mad[0]);
      close(cmd[0]);
      close(ev[0]);
      ChildMain(static_cast<size_t>(k), mad[1], cmd[1], ev[1]);
    }
    close(mad[1]);
    close(cmd[1]);
    close(ev[1]);
    Child& p = children_.back();
    p.pid = pid;
    p.mad_fd = mad[0];
    p.cmd_fd = cmd[0];
    p.event_fd = ev[0];
  }
  return Status::Ok();
}

// A consumer process: its own MAD fabric with a gateway at the core's LID
// bridged to this one's, its consumers on their loops, and a command loop
// on the main thread. It ends with _exit: the parent owns every result.
void Bench::ChildMain(size_t k, int mad_fd, int cmd_fd, int event_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (size_t j = 0; j < k; ++j) {  // the parent's ends of the earlier processes
    close(children_[j].mad_fd);
    close(children_[j].cmd_fd);
    close(children_[j].event_fd);
  }
  const size_t first = children_[k].first, count = children_[k].count;
  ssa::Logger log;
  log.Open("stderr", "bench_tree-c" + std::to_string(k)).ok();
  log.set_level(opt_.log_level);
  tree::InprocMadFabric fabric;
  LoopThread bridge_loop;
  std::vector<std::unique_ptr<LoopThread>> loops;
  std::vector<std::unique_ptr<tree::StreamTransport>> streams;
  std::unique_ptr<tree::InprocMadGateway> gateway;
  std::unique_ptr<ssa::bench::MadBridge> bridge;
  std::vector<std::unique_ptr<tree::Consumer>> consumers(count);
  std::vector<Port> ports(consumer_ports_.begin() + static_cast<long>(first),
                          consumer_ports_.begin() + static_cast<long>(first + count));
  std::vector<uint64_t> reported(count, 0);  // per consumer, its loop only
  auto reply = [cmd_fd](const ChildReply& r) { send(cmd_fd, &r, sizeof(r), MSG_NOSIGNAL); };
  auto fail = [&](const Status& st) {
    ChildReply r;
    snprintf(r.error, sizeof(r.error), "%s", st.ToString().c_str());
    reply(r);
  };
  for (;;) {
    ChildCommand cmd;
    ssize_t got = recv(cmd_fd, &cmd, sizeof(cmd), 0);
    if (got != sizeof(cmd) || cmd.op == kChildExit) _exit(0);
    if (cmd.op == kChildStart) {
      Status st = bridge_loop.Start("mad-bridge");
      for (int l = 0; st.ok() && l < opt_.consumer_loops; ++l) {
        loops.push_back(std::make_unique<LoopThread>());
        st = loops.back()->Start("consumers" + std::to_string(l));
        streams.push_back(tree::NewTcpTransport());
      }
      if (st.ok()) st = fabric.NewGateway({core_port_.lid}, tree::kSsaClass, &gateway);
      if (st.ok()) {
        bridge = std::make_unique<ssa::bench::MadBridge>(&bridge_loop.loop, mad_fd, gateway.get());
        st = RunOn(&bridge_loop.loop, [&] { return bridge->Start(); });
      }
      for (size_t l = 0; l < loops.size() && st.ok(); ++l)
        st = RunOn(&loops[l]->loop, [&, l]() -> Status {
          ssa::EventLoop* loop = &loops[l]->loop;
          for (size_t i = l; i < count; i += loops.size()) {
            tree::ConsumerOptions o;
            o.port_guid = ports[i].guid;
            o.gid_prefix = gid_prefix_;
            uint16_t sm = core_port_.lid;
            o.sm_lid = [sm] { return sm; };
            o.want_addr = false;
            std::unique_ptr<ssa::MadTransport> m = fabric.NewTransport(ports[i].lid);
            Status s = m->Open(tree::kSsaClass, tree::kSsaClassVersion);
            if (!s.ok()) return s.WithContext("consumer MAD transport");
            s = tree::Consumer::CreateWith(
                loop, &log, o, std::move(m), streams[l].get(),
                [&consumers, &reported, i, first, event_fd] {
                  std::shared_ptr<const smdb::Prdb> p = consumers[i]->prdb();
                  if (!p || p->global_epoch == reported[i]) return;
                  reported[i] = p->global_epoch;
                  ChildEvent e;
                  e.index = static_cast<uint32_t>(first + i);
                  e.epoch = p->global_epoch;
                  e.ns = NowNs();
                  send(event_fd, &e, sizeof(e), MSG_NOSIGNAL);
                },
                &consumers[i]);
            if (s.ok()) s = consumers[i]->Start();
            if (!s.ok()) return s.WithContext("consumer " + std::to_string(first + i));
          }
          return Status::Ok();
        });
      if (!st.ok()) {
        fail(st);
        continue;
      }
      ChildReply r;
      r.ok = 1;
      reply(r);
    } else if (cmd.op == kChildStats) {
      ChildReply r;
      r.ok = 1;
      for (size_t l = 0; l < loops.size(); ++l)
        RunOn(&loops[l]->loop, [&, l] {
          for (size_t i = l; i < count; i += loops.size()) {
            if (!consumers[i]) continue;
            tree::ConsumerStats cs = consumers[i]->stats();
            r.full_transfers += cs.full_transfers;
            r.delta_transfers += cs.delta_transfers;
            r.bytes_received += cs.bytes_received;
            r.joins_sent += cs.joins;
          }
        });
      if (bridge) r.bridge_errors = RunOn(&bridge_loop.loop, [&] { return bridge->errors(); });
      reply(r);
    } else if (cmd.op == kChildStop) {
      for (auto& l : loops) l->Stop();
      bridge_loop.Stop();
      ChildReply r;
      r.ok = 1;
      reply(r);
    } else if (cmd.op == kChildCheck) {
      for (auto& l : loops) l->Stop();
      bridge_loop.Stop();
      ChildReply r;
      r.ok = 1;
      CheckConsumers(*db2_, consumers, ports, &r);
      reply(r);
    } else {
      fail(Status::Error(EINVAL, "unknown command " + std::to_string(cmd.op)));
    }
  }
}

Status Bench::Ask(Child* c, uint32_t op, ChildReply* r) {
  ChildCommand cmd;
  cmd.op = op;
  if (send(c->cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL) != sizeof(cmd) ||
      recv(c->cmd_fd, r, sizeof(*r), 0) != sizeof(*r))
    return Status::Error(EPIPE, "consumer process " + std::to_string(c->pid) + " is gone");
  return r->ok ? Status::Ok() : Status::Error(EINVAL, r->error);
}

void Bench::ReadEvents(Child* c) {
  pthread_setname_np(pthread_self(), "events");
  for (;;) {
    ChildEvent e;
    ssize_t n = recv(c->event_fd, &e, sizeof(e), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n != sizeof(e)) return;  // the process ended
    OnConsumerEpoch(e.index, e.epoch, e.ns);
  }
}

uint64_t Bench::AllRss() {
  parent_pss = ProcPssBytes(getpid());
  uint64_t rss = parent_pss;
  for (const Child& c : children_) rss += ProcPssBytes(c.pid);
  if (rss > peak_rss) peak_rss = rss;
  return rss;
}

void Bench::StopLoops() {
  mad_counters = mads_.counters();
  if (core_loop_.thread.joinable() && core_)
    core_counters = RunOn(&core_loop_.loop, [this] { return core_->control()->counters(); });
  // The consumers first, so that none sees its parent go.
  for (Child& c : children_) {
    ChildReply r;
    Ask(&c, kChildStop, &r);
  }
  member_loop_.Stop();
  core_loop_.Stop();
}

void Bench::ReleaseTree() {
  // The loops are stopped: tear down on this thread, users before what
  // they use; the pool first (its results would call into the members).
  pool_.reset();
  members_.clear();
  member_mads_.clear();
  core_.reset();
  core_mads_.reset();
}

void Bench::Shutdown() {
  if (shut_) return;
  shut_ = true;
  StopLoops();
  for (Child& c : children_) {
    ChildCommand cmd;
    cmd.op = kChildExit;
    if (c.cmd_fd >= 0) send(c.cmd_fd, &cmd, sizeof(cmd), MSG_NOSIGNAL);
  }
  for (Child& c : children_) {
    if (c.pid > 0) waitpid(c.pid, nullptr, 0);
    if (c.events.joinable()) c.events.join();
  }
  bridge_loop_.Stop();
  for (Child& c : children_) {
    c.bridge.reset();
    c.gateway.reset();
    for (int fd : {c.mad_fd, c.cmd_fd, c.event_fd})
      if (fd >= 0) close(fd);
  }
  ReleaseTree();
}

// ---------------------------------------------------------------------------
// One access node on one core, and the fixed pieces for callgrind.

// `n` consumer port GUIDs spread evenly over the CA ports of `x`.
std::vector<uint64_t> SpreadConsumers(const smdb::SmdbIndex& x, uint64_t sm_guid, size_t n) {
  std::vector<uint64_t> all;
  for (uint32_t e : x.endpoints()) {
    const auto& p = x.port(e);
    if (p.port_guid && p.base_lid && p.port_guid != sm_guid && x.node_of(p).type == smdb::kNodeCa)
      all.push_back(p.port_guid);
  }
  std::vector<uint64_t> out;
  for (size_t i = 0; i < n && !all.empty(); ++i) out.push_back(all[i * all.size() / n]);
  return out;
}

// One update of one access node (see MeasureAccessUpdate).
struct AccessStep {
  double apply_ms = 0, prdbs_ms = 0, total_ms = 0;
  // The process's CPU time over the same span (this thread and the pool's
  // one worker): what the update costs the core, whatever else the machine
  // runs (on a shared machine the wall time also counts waiting for it).
  double cpu_ms = 0;
  uint64_t computed = 0, if_full = 0;
};
struct AccessUpdate {
  AccessStep first;   // the member's first update: its new versions in new memory
  AccessStep steady;  // its third: built in the versions the first released
  size_t consumers = 0;
};

double ProcessCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// A member's next SMDB delta applied, with the epochs and the digest its
// header names (the pair's epochs may be more than one apart: OpenSM may
// sweep again before the second SMDB is taken); the apply checks them.
Status ApplySmdbDelta(tree::DbReplica<smdb::Smdb>* replica,
                      const std::shared_ptr<const std::string>& d) {
  smdb::DeltaHeader h;
  Status st = smdb::ReadDeltaHeader(smdb::Smdb::Schema(),
                                    reinterpret_cast<const uint8_t*>(d->data()), d->size(), &h);
  if (!st.ok()) return st;
  return replica->ApplyDelta(d, h.base_epoch, h.new_epoch, h.new_digest);
}

// The deltas of the link coming back (the first SMDB's records at the next
// epoch) and going down again (the second's at the epoch after).
Status MoreSmdbDeltas(const SmdbPair& pair, std::vector<std::shared_ptr<const std::string>>* out) {
  smdb::Smdb up = pair.before, down = pair.after;
  smdb::BumpEpochs(pair.after, &up);
  smdb::BumpEpochs(up, &down);
  auto d1 = std::make_shared<std::string>(), d2 = std::make_shared<std::string>();
  Status st = smdb::MakeDelta(pair.after, up, d1.get());
  if (st.ok()) st = smdb::MakeDelta(up, down, d2.get());
  if (!st.ok()) return st;
  *out = {d1, d2};
  return Status::Ok();
}

// See the file comment (access_update_100_ms). Three updates in a row: the
// link down, back up, down again; the first and the third are reported
// (a member builds each SMDB version and index in the memory of one it
// released before, so from the third on no new memory is touched: the
// steady state of a running access node).
Status MeasureAccessUpdate(const SmdbPair& pair, size_t consumers, AccessUpdate* out) {
  cpu_set_t saved, one;
  sched_getaffinity(0, sizeof(saved), &saved);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  // Threads made from here on (the pool) inherit the one CPU.
  sched_setaffinity(0, sizeof(one), &one);
  Status st = [&]() -> Status {
    auto ser1 = std::make_shared<std::string>(), delta = std::make_shared<std::string>();
    Status s = pair.before.Serialize(ser1.get());
    if (s.ok()) s = smdb::MakeDelta(pair.before, pair.after, delta.get());
    std::vector<std::shared_ptr<const std::string>> deltas;
    if (s.ok()) s = MoreSmdbDeltas(pair, &deltas);
    if (!s.ok()) return s;
    deltas.insert(deltas.begin(), delta);
    ssa::EventLoop loop;
    s = loop.Init();
    if (!s.ok()) return s;
    ssa::Logger log;
    log.set_level(ssa::LogLevel::kError);
    ssa::WorkerPool pool(&loop, 1);
    size_t published = 0;
    Status failed;
    distrib::PrdbService svc(
        &loop, &pool, &log, [&published](const distrib::PrdbVersion&) { ++published; },
        [&failed](uint64_t, const Status& why) { failed = why; });
    tree::DbReplica<smdb::Smdb> replica;
    replica.RecycleVersions();  // as a member does
    s = replica.ApplyFull(ser1, pair.before.global_epoch, tree::DigestOf(*ser1));
    if (!s.ok()) return s;
    std::unique_ptr<smdb::SmdbIndex> x;
    s = smdb::SmdbIndex::Build(pair.before, &x);
    if (!s.ok()) return s;
    std::vector<uint64_t> guids =
        SpreadConsumers(*x, pair.before.subnet.records[0].sm_port_guid, consumers);
    x.reset();
    for (uint64_t g : guids) svc.AddConsumer(g);
    svc.OnSmdb(replica.db());
    if (!loop.RunUntil([&] { return published >= guids.size() || !failed.ok(); },
                       std::chrono::seconds(600)) ||
        !failed.ok())
      return failed.ok() ? Status::Error(ETIMEDOUT, "first PRDBs") : failed;
    for (size_t k = 0; k < deltas.size(); ++k) {
      uint64_t c0 = svc.paths_computed(), f0 = svc.paths_if_full();
      const double c0_ms = ProcessCpuMs();
      auto t0 = Clock::now();
      s = ApplySmdbDelta(&replica, deltas[k]);
      if (!s.ok()) return s.WithContext("SMDB delta");
      auto t1 = Clock::now();
      svc.OnSmdb(replica.db());
      if (!loop.RunUntil([&] { return published >= (k + 2) * guids.size() || !failed.ok(); },
                         std::chrono::seconds(600)) ||
          !failed.ok())
        return failed.ok() ? Status::Error(ETIMEDOUT, "updated PRDBs") : failed;
      auto t2 = Clock::now();
      AccessStep step;
      step.cpu_ms = ProcessCpuMs() - c0_ms;
      step.apply_ms = Between(t0, t1) * 1e3;
      step.prdbs_ms = Between(t1, t2) * 1e3;
      step.total_ms = Between(t0, t2) * 1e3;
      step.computed = svc.paths_computed() - c0;
      step.if_full = svc.paths_if_full() - f0;
      if (k == 0) out->first = step;
      out->steady = step;
    }
    out->consumers = guids.size();
    return Status::Ok();
  }();
  sched_setaffinity(0, sizeof(saved), &saved);
  return st;
}

// The pieces: each a function of its own (callgrind --toggle-collect).
struct PieceInput {
  const SmdbPair* pair = nullptr;
  std::unique_ptr<smdb::SmdbIndex> x1, x2;
  std::vector<uint64_t> guids;
  smdb::RouteDiff diff;
  std::vector<distrib::PrdbVersion> full, updated;
  std::shared_ptr<const std::string> delta;
};

// The member's SMDB delta (tree::DbReplica keeping the serialization, as
// a distribution or access node holds it), from the first SMDB to the
// second; `replica` holds the first.
__attribute__((noinline)) Status PieceSmdbApply(tree::DbReplica<smdb::Smdb>* replica,
                                                const PieceInput& in, uint32_t digest) {
  return replica->ApplyDelta(in.delta, in.pair->before.global_epoch,
                             in.pair->after.global_epoch, digest);
}

// A member's next delta (after the first).
__attribute__((noinline)) Status PieceSmdbApplyNext(tree::DbReplica<smdb::Smdb>* replica,
                                                    const std::shared_ptr<const std::string>& d) {
  return ApplySmdbDelta(replica, d);
}

// The access node's index of the new SMDB.
__attribute__((noinline)) Status PieceIndex(const smdb::Smdb& db,
                                            std::unique_ptr<smdb::SmdbIndex>* out,
                                            smdb::SmdbIndex::LftBuffers* lft_buffers) {
  return smdb::SmdbIndex::Build(db, out, lft_buffers);
}

__attribute__((noinline)) uint64_t PieceEngine(const PieceInput& in) {
  smdb::PathEngine engine(in.x2.get());
  ibv_path_record rec;
  uint64_t ok = 0;
  for (size_t i = 0; i < 2 && i < in.guids.size(); ++i) {
    uint16_t slid = in.x2->port(in.x2->PortByGuid(in.guids[i])).base_lid;
    for (uint16_t dlid : in.x2->assigned_lids())
      ok += engine.Compute(slid, dlid, &rec) == smdb::PathStatus::kOk;
  }
  return ok;
}

__attribute__((noinline)) size_t PieceRouteDiff(PieceInput* in) {
  in->diff = smdb::DiffRoutes(in->pair->before, *in->x1, in->pair->after, *in->x2);
  return in->diff.dirty_count;
}

__attribute__((noinline)) Status PiecePrdbBuild(const PieceInput& in,
                                                std::vector<distrib::PrdbVersion>* out) {
  std::vector<distrib::PrdbVersion> none(2);
  for (size_t i = 0; i < none.size(); ++i) none[i].port_guid = in.guids[i];
  size_t computed = 0;
  return distrib::PrdbService::UpdateMany(0, in.pair->after, *in.x2, in.diff, none, out, &computed);
}

__attribute__((noinline)) Status PiecePrdbUpdate(PieceInput* in, size_t* computed) {
  return distrib::PrdbService::UpdateMany(in->pair->before.global_epoch, in->pair->after, *in->x2,
                                          in->diff, in->full, &in->updated, computed);
}

// Each consumer's swap as the ssa provider makes it: on ibacm's loop the
// PRDB delta applied (tree::Consumer), a resolve arriving meanwhile waits
// for it (`loop_ms`); then, on the provider's indexing thread
// (ViewBuilder), the view that answers resolves built (`view_ms`), while
// the loop answers from the last view.
__attribute__((noinline)) Status PieceDeltaApply(
    std::vector<std::unique_ptr<tree::DbReplica<smdb::Prdb>>>* replicas,
    const std::vector<distrib::PrdbVersion>& updated, std::vector<double>* loop_ms,
    std::vector<double>* view_ms, std::vector<std::shared_ptr<const ssaprov::PrdbView>>* views) {
  for (size_t i = 0; i < replicas->size(); ++i) {
    const distrib::PrdbVersion& v = updated[i];
    auto t0 = Clock::now();
    Status s = (*replicas)[i]->ApplyDelta(v.delta, v.delta_from, v.epoch, v.digest);
    if (!s.ok()) return s;
    loop_ms->push_back(Since(t0) * 1e3);
    auto t1 = Clock::now();
    auto view = std::make_shared<const ssaprov::PrdbView>((*replicas)[i]->db());
    view_ms->push_back(Since(t1) * 1e3);
    if (view->epoch() != v.epoch) return Status::Error(EILSEQ, "the view holds another epoch");
    views->push_back(std::move(view));
  }
  return Status::Ok();
}

// What the provider does after each swap, on its worker (it was ibacm's
// loop until the export moved there): the path tables for libibssa_path
// published (ShmExport), here one port's, a consumer's view at a time,
// into one object replaced each time as the provider's is.
__attribute__((noinline)) Status PieceShmExport(
    const std::vector<std::shared_ptr<const ssaprov::PrdbView>>& views,
    std::vector<double>* export_ms) {
  char name[64];
  snprintf(name, sizeof(name), "/tmp/bench_tree-%d.sock", static_cast<int>(getpid()));
  ssaprov::ShmExport out(name);
  for (const auto& view : views) {
    ssaprov::ExportPort port;
    port.gid = view->prdb()->paths.records.empty() ? std::array<uint8_t, 16>{}
                                                     : view->prdb()->paths.records[0].sgid;
    port.lid = view->base_lid();
    port.lmc = view->lmc();
    port.view = view;
    port.pkeys.push_back(0xFFFF);
    auto t0 = Clock::now();
    Status st = out.Publish({port}, nullptr, out.generation());
    export_ms->push_back(Since(t0) * 1e3);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

__attribute__((noinline)) size_t PieceFrameCodec(const std::vector<distrib::PrdbVersion>& updated) {
  tree::FrameReader reader;
  size_t frames = 0;
  for (const distrib::PrdbVersion& v : updated) {
    std::string f = tree::EncodeFrame(tree::FrameType::kXferData, *v.delta);
    if (!reader.Feed(reinterpret_cast<const uint8_t*>(f.data()), f.size()).ok()) return 0;
    tree::Frame out;
    while (reader.Next(&out)) ++frames;
  }
  return frames;
}

int RunPieces(const SmdbPair& pair) {
  auto t = Clock::now();
  auto lap = [&t](const char* name, const std::string& what) {
    printf("%-18s %10.3f ms  %s\n", name, Since(t) * 1e3, what.c_str());
    t = Clock::now();
  };
  PieceInput in;
  in.pair = &pair;
  Status st = smdb::SmdbIndex::Build(pair.before, &in.x1);
  if (st.ok()) st = smdb::SmdbIndex::Build(pair.after, &in.x2);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  in.guids = SpreadConsumers(*in.x1, pair.before.subnet.records[0].sm_port_guid, 100);
  // The consumers' versions at the first SMDB: the update's input.
  std::vector<distrib::PrdbVersion> none(in.guids.size());
  for (size_t i = 0; i < none.size(); ++i) none[i].port_guid = in.guids[i];
  size_t computed = 0;
  st = distrib::PrdbService::UpdateMany(0, pair.before, *in.x1, in.diff, none, &in.full, &computed);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<tree::DbReplica<smdb::Prdb>>> replicas;
  for (const distrib::PrdbVersion& v : in.full) {
    replicas.push_back(std::make_unique<tree::DbReplica<smdb::Prdb>>(nullptr, false));
    replicas.back()->ApplyFull(v.bytes, v.epoch, v.digest);
  }
  auto ser1 = std::make_shared<std::string>(), ser2 = std::make_shared<std::string>();
  auto delta = std::make_shared<std::string>();
  st = pair.before.Serialize(ser1.get());
  if (st.ok()) st = pair.after.Serialize(ser2.get());
  if (st.ok()) st = smdb::MakeDelta(pair.before, pair.after, delta.get());
  tree::DbReplica<smdb::Smdb> smdb_replica;
  smdb_replica.RecycleVersions();  // as a member does
  if (st.ok()) st = smdb_replica.ApplyFull(ser1, pair.before.global_epoch, tree::DigestOf(*ser1));
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  in.delta = delta;
  const uint32_t digest2 = tree::DigestOf(*ser2);
  printf("pieces on the cached %zu-LID SMDB pair, %zu consumers (wall times: see callgrind.sh "
         "for instruction counts)\n",
         in.x2->assigned_lids().size(), in.guids.size());
  t = Clock::now();
  st = PieceSmdbApply(&smdb_replica, in, digest2);
  if (st.ok() && *smdb_replica.version().bytes != *ser2)
    st = Status::Error(EILSEQ, "the member's new SMDB bytes differ from the SMDB's");
  lap("smdb_apply_cold", std::to_string(delta->size()) +
                             "-byte SMDB delta applied by a member, its first: " + st.ToString());
  {
    // The link back up and down again: the member's second and third
    // deltas, the third built in the version the first released (the
    // steady state of a member that has updated before).
    std::vector<std::shared_ptr<const std::string>> more;
    if (st.ok()) st = MoreSmdbDeltas(pair, &more);
    const char* names[] = {"smdb_apply_2nd", "smdb_apply"};
    for (size_t i = 0; st.ok() && i < more.size(); ++i) {
      t = Clock::now();
      st = PieceSmdbApplyNext(&smdb_replica, more[i]);
      lap(names[i], "the member's " + std::string(i ? "third" : "second") + " delta (" +
                        std::to_string(more[i]->size()) + " bytes), " +
                        std::to_string(smdb_replica.recycled()) +
                        " built in a recycled version: " + st.ToString());
    }
  }
  {
    // As an access node builds them (PrdbService): the first index in new
    // memory, later ones with the LFT buffer of one released before.
    smdb::SmdbIndex::LftBuffers lft_buffers(1);
    std::unique_ptr<smdb::SmdbIndex> x;
    st = PieceIndex(pair.after, &x, &lft_buffers);
    lap("index_cold", std::to_string(x ? x->ports().size() : 0) + " ports indexed: " + st.ToString());
    x.reset();
    t = Clock::now();
    st = PieceIndex(pair.after, &x, &lft_buffers);
    lap("index", std::to_string(x ? x->ports().size() : 0) +
                     " ports indexed, the LFTs in a recycled buffer: " + st.ToString());
  }
  lap("engine", std::to_string(PieceEngine(in)) + " paths from 2 sources");
  lap("route_diff_cold", std::to_string(PieceRouteDiff(&in)) + " dirty LIDs");
  lap("route_diff", std::to_string(PieceRouteDiff(&in)) + " dirty LIDs, again");
  std::vector<distrib::PrdbVersion> built;
  st = PiecePrdbBuild(in, &built);
  lap("prdb_build", "2 PRDBs built whole: " + st.ToString());
  st = PiecePrdbUpdate(&in, &computed);
  lap("prdb_update_cold", std::to_string(in.updated.size()) + " consumers (first touch of the new buffers)");
  in.updated.clear();
  st = PiecePrdbUpdate(&in, &computed);
  lap("prdb_update", std::to_string(in.updated.size()) + " consumers, " +
                         std::to_string(computed) + " paths recomputed: " + st.ToString());
  if (in.updated.size() != replicas.size()) return 1;
  std::vector<double> swap_ms, view_ms;
  std::vector<std::shared_ptr<const ssaprov::PrdbView>> views;
  st = PieceDeltaApply(&replicas, in.updated, &swap_ms, &view_ms, &views);
  lap("delta_apply", std::to_string(replicas.size()) +
                         " consumer deltas, each with the provider's view built: " + st.ToString());
  if (!swap_ms.empty()) {
    auto line = [](const char* name, std::vector<double>* ms, const char* what) {
      std::sort(ms->begin(), ms->end());
      printf("%-18s %10.3f ms  p50 %.3f ms over %zu consumers (%s)\n", name, ms->back(),
             (*ms)[ms->size() / 2], ms->size(), what);
    };
    line("consumer_swap_max", &swap_ms,
         "ibacm's loop busy per swap, the delta applied: the longest a resolve waits");
    line("consumer_view_max", &view_ms, "the new view built off the loop");
    std::vector<double> export_ms;
    t = Clock::now();
    st = PieceShmExport(views, &export_ms);
    lap("shm_export", std::to_string(export_ms.size()) + " path tables published: " + st.ToString());
    if (st.ok())
      line("shm_export_max", &export_ms, "the path tables published per swap, off the loop");
    else
      printf("shm_export: %s\n", st.ToString().c_str());
  }
  lap("frame_codec", std::to_string(PieceFrameCodec(in.updated)) + " delta frames");
  return st.ok() ? 0 : 1;
}

// ---------------------------------------------------------------------------

void Figure(const std::string& name, const std::string& value) {
  printf("%s = %s\n", name.c_str(), value.c_str());
}
void Figure(const std::string& name, uint64_t value) {
  printf("%s = %" PRIu64 "\n", name.c_str(), value);
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  setvbuf(stdout, nullptr, _IOLBF, 0);
  Options opt;
  if (!ParseArgs(argc, argv, &opt)) {
    Usage(argv[0]);
    return 2;
  }
  std::vector<std::string> notes;
  const int asked_consumers = opt.consumers;

  // Descriptors: in this process one per consumer (the access node's end of
  // its TCP connection), a few per member and per consumer process, some
  // slack; in a consumer process two per consumer (its MAD eventfd, its
  // TCP socket).
  ssa::RaiseFdLimit();
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  const long fd_limit = static_cast<long>(rl.rlim_cur);
  auto access_for = [&](int c) { return opt.access ? opt.access : std::max(1, (c + 999) / 1000); };
  auto dist_for = [&](int a) {
    return opt.distribution ? opt.distribution : std::max(1, (a + 63) / 64);
  };
  auto procs_for = [&](int c) {
    if (opt.consumer_procs) return opt.consumer_procs;
    long per = std::max(1L, (fd_limit - 64) / 2);
    return static_cast<int>(std::max(1L, (c + per - 1) / per));
  };
  auto fds_for = [&](int c) {
    int a = access_for(c), d = dist_for(a), p = procs_for(c);
    long child = 2L * ((c + p - 1) / p) + 64;
    return std::max(1L * c + 8L * (a + d) + 4L * p + 64, child);
  };
  if (fds_for(opt.consumers) > fd_limit) {
    int c = opt.consumers;
    while (c > 1 && fds_for(c) > fd_limit) --c;
    notes.push_back("RLIMIT_NOFILE is " + std::to_string(fd_limit) +
                    " (the hard limit; raising it needs CAP_SYS_RESOURCE, which this process "
                    "lacks): a consumer takes one descriptor here (the access node's end) and two "
                    "in its process (its MAD eventfd, its TCP socket); " +
                    std::to_string(asked_consumers) + " consumers need about " +
                    std::to_string(fds_for(asked_consumers)) + "; running " + std::to_string(c) +
                    " consumers");
    opt.consumers = c;
  }
  opt.consumer_procs = procs_for(opt.consumers);
  int access = access_for(opt.consumers);
  int distribution = dist_for(access);
  int room = opt.pair.hcas - 1 - access - distribution;  // the SM's port is the core
  if (opt.consumers > room) {
    notes.push_back("a " + std::to_string(opt.pair.hcas) + "-HCA fabric has " + std::to_string(room) +
                    " HCA ports left after the core, " + std::to_string(distribution) +
                    " distribution and " + std::to_string(access) + " access port(s): running " +
                    std::to_string(room) + " consumers");
    opt.consumers = room;
  }
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
  if (opt.pieces) return RunPieces(pair);
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
    while (fit > 1 && fit * per_consumer +
                              (access_for(fit) + dist_for(access_for(fit))) * per_member > budget)
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
      opt.consumer_procs = procs_for(fit);
      access = access_for(fit);
      distribution = dist_for(access);
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
  if (opt.consumers < asked_consumers && bench.rss_after_startup > bench.rss_before_consumers) {
    double per =
        static_cast<double>(bench.rss_after_startup - bench.rss_before_consumers) / opt.consumers;
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
  const double kept_gib =
      bench.rss_after_startup > bench.rss_before_consumers
          ? Gib(bench.rss_after_startup - bench.rss_before_consumers)
          : 0;
  printf("memory: touching new memory costs %.2f s of CPU per GiB here (%.2f before the phases, "
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
      printf("one access node, %zu consumers, one core, %s update: SMDB delta applied %.1f ms, "
             "PRDBs %.1f ms (%" PRIu64 " of %" PRIu64 " paths recomputed); %.1f ms of CPU\n",
             access_update.consumers, step == &access_update.first ? "first" : "third",
             step->apply_ms, step->prdbs_ms, step->computed, step->if_full, step->cpu_ms);
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
  if (opt.consumers > 0)
  {
    Figure("joins_per_consumer",
           Num(static_cast<double>(bench.consumer_joins) / opt.consumers, 2));
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
  if (bench.rss_after_startup > bench.rss_before_consumers && opt.consumers > 0)
    Figure("rss_per_consumer_bytes",
           Num(static_cast<double>(bench.rss_after_startup - bench.rss_before_consumers) /
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
  }
  Figure("consumers_equal_full", equal ? "yes" : "no");
  return startup.done && update.done && equal ? 0 : 1;
}
