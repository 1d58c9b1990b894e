// tree_bench.h: bench_tree's tree: a core, distribution and access
// members in this process and the consumers in child processes, driven
// through a start-up and an update phase (bench_tree.cc's file comment
// says what is measured).
#ifndef IBACM_SSA_TEST_BENCH_TREE_BENCH_H
#define IBACM_SSA_TEST_BENCH_TREE_BENCH_H

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/mad/mad_transport.h"
#include "common/smdb/smdb.h"
#include "common/tree/core_control.h"
#include "common/tree/core_server.h"
#include "common/tree/inproc_mad.h"
#include "common/tree/stream.h"
#include "distrib/ibssa_member.h"
#include "distrib/prdb_service.h"
#include "test/bench/mad_bridge.h"
#include "test/bench/smdb_pair_cache.h"
#include "test/bench/thread_cpu.h"
#include "test/bench/tree_bench_util.h"

namespace ssa {
namespace bench {

struct BenchOptions {
  // The SMDB pair: --hcas (default 10,000), --link-down (L1:19), --routing
  // (OpenSM's -R; empty: its default, minhop), --qos-policy (QoS on with
  // that policy file), --regen.
  ssa::bench::SmdbPairSpec pair;
  int consumers = 10000;
  int access = 0;          // 0: one per 1,000 consumers
  int distribution = 0;    // 0: one per 64 access nodes
  int consumer_procs = 0;  // 0: as few as the descriptor limit allows
  int consumer_loops = 2;  // per consumer process
  int prdb_threads = 2;
  // The first N consumers also hold the address database (bench_federation;
  // 0: none, as a consumer of bench_tree's needs none).
  int addr_consumers = 0;
  // --route-table-mb: the access nodes' prdb_route_table_mb (ibssa_opts.cfg(5)),
  // and the pieces' engine's.
  int route_table_mb = 64;
  double timeout_s = 600;
  double max_rss_gib = 21;
  bool pieces = false;  // --pieces: the fixed CPU-bound workloads only
  ssa::LogLevel log_level = ssa::LogLevel::kError;
};

// The tree for a number of consumers: access nodes (--access, else one per
// 1,000 consumers), distribution nodes (--distribution, else one per 64
// access nodes) and consumer processes (--consumer-procs, else as few as
// the descriptor limit allows).
struct TreeSize {
  int consumers = 0, access = 0, distribution = 0, procs = 0;
};
TreeSize SizeFor(const BenchOptions& o, int consumers);
// o.consumers sized down to what the descriptor limit and the fabric's HCA
// ports allow; each cut is said in `notes`. Raises the descriptor limit
// first.
TreeSize SizeTree(const BenchOptions& o, std::vector<std::string>* notes);

struct Port {
  uint64_t guid = 0;
  uint16_t lid = 0;
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
enum ChildEventKind : uint32_t { kEventPrdb = 0, kEventAddr = 1 };
struct ChildEvent {
  uint32_t index = 0;  // of the consumer, over all processes
  uint32_t kind = kEventPrdb;
  uint64_t epoch = 0;  // of the PRDB (or address database) it holds now
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
  explicit Bench(const BenchOptions& o) : opt_(o) {}
  ~Bench() { Shutdown(); }

  Status Setup(const SmdbPair& pair, int consumers, int access, int distribution);
  Status RunStartup(Phase* p);
  Status RunUpdate(Phase* p);
  // After the phases: every consumer's PRDB against BuildPrdb, and the
  // memory of one against its wire size.
  void Check(const smdb::Smdb& db, bool* equal, size_t* mismatched, double* mem_bytes,
             double* wire_bytes, double* paths);
  void StopLoops();
  // The address database the core serves: the first version before Setup
  // (default: empty, epoch 1, as the plugin without a hosts file), later
  // ones any time after it (posted to the core's loop).
  void SetInitialAddr(const tree::DbVersion& v) { addr0_ = v; }
  void PublishAddr(const tree::DbVersion& v, tree::Bytes delta, uint64_t delta_from);
  // Called with (consumer index, address epoch, steady ns) each time a
  // consumer of the first addr_consumers holds a new address database
  // (on a reader thread). Set before Setup.
  std::function<void(size_t, uint64_t, int64_t)> on_addr;
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
  uint64_t peak_rss = 0;    // the most AllPss saw
  uint64_t parent_pss = 0;  // this process's part of the last AllPss
  size_t procs() const { return children_.size(); }
  uint64_t pss_before_consumers = 0, pss_after_startup = 0;  // AllPss, bytes
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
  // Every process's PSS (slow: walks page tables); updates peak_rss.
  uint64_t AllPss();
  // Every process's RSS (cheap; shared pages counted in each).
  uint64_t AllResident();
  PrdbCounts ReadPrdbCounts();
  // A phase's epoch: the counters below start again.
  void Target(uint64_t epoch);
  void OnConsumerEpoch(size_t i, uint64_t e, int64_t ns);
  void OnAccessSmdb(uint64_t epoch);
  void OnPrdb(const distrib::PrdbVersion& v);

  BenchOptions opt_;
  ssa::Logger log_;
  tree::InprocMadFabric mads_;
  Port core_port_;
  std::vector<Port> dist_ports_, access_ports_, consumer_ports_;
  uint64_t gid_prefix_ = 0;
  tree::DbVersion addr0_;
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

}  // namespace bench
}  // namespace ssa

#endif
