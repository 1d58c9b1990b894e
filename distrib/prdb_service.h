// prdb_service.h: the access role's work: for every consumer child, the
// path record database (PRDB) from that consumer's port to every LID,
// computed with the path engine from the SMDB the access node holds, and
// the delta from the consumer's previous PRDB.
//
// A consumer's PRDB is stamped with the SMDB's global epoch and its table
// epochs are 0, so it is a pure function of (SMDB version, port GUID): two
// access nodes holding the same SMDB send byte-identical PRDBs, and a
// consumer that moves to its backup parent needs no transfer at all.
//
// Incremental: with each new SMDB the service also computes which paths
// can differ from the previous one (smdb::DiffRoutes); a consumer whose own
// port is untouched keeps its other paths and gets only the (source,
// destination) pairs whose walk, either way, can read a change recomputed
// (RouteDiff::PairMayDiffer). The result equals a full recomputation
// (route_diff_test.cc proves the rule, prdb_service_test.cc the service;
// bench_tree checks every consumer).
//
// What it keeps per consumer is the current version's image only
// (smdb::PrdbImage: a whole serialization and the records that differ
// from it; shared with the data server's publication of it, so one copy)
// and its digest: a patch adds the records that changed to the image and
// carries the CRCs along arithmetically (smdb::PatchPrdb); nothing copies,
// parses, sorts or re-hashes a whole PRDB unless the consumer's own port
// changed, paths appear or disappear, or the image's overrides pass
// kMaxOverrideShare of its paths (then it is written whole again). A
// child asking for a full transfer makes the whole serialization once
// (PrdbImage::Bytes), and the next patch starts from it. Whole
// serializations are made in the memory of a version released earlier
// (BufferRecycler), so an update touches no new memory.
//
// With route-SL slices (route_sl_client.h) a PRDB is a function of the
// slice too: a consumer the slice does not cover (yet) gets the routing
// engine's records marked not exact, and its PRDB is made again, under the
// same epoch, when a slice covers it. At a new routing the consumers keep
// their previous PRDBs until the slice of that routing comes, and a new
// consumer waits for a slice that covers it (at most 5 s each time), instead
// of getting marked records for that moment.
//
// Computation runs on a WorkerPool (the SMDB index and engine are immutable
// and shared by the jobs); results come back to the loop thread, which
// hands each new version to `publish`. A newer SMDB arriving while jobs run
// supersedes them: results computed from an older SMDB are dropped.
//
// Jobs in flight are bounded (kJobsPerThread per pool thread; the other
// consumers wait in a FIFO): each finished job holds a new serialization
// until the loop publishes it and lets the old one go, so workers running
// ahead of a busy loop would otherwise hold a second copy of every
// consumer's PRDB at once (at 10k HCAs, 0.5 MB per consumer: the whole
// access node's memory again, during every update).
//
// Owned by the ibssa daemon; every method on the loop thread.
#ifndef IBACM_SSA_DISTRIB_PRDB_SERVICE_H
#define IBACM_SSA_DISTRIB_PRDB_SERVICE_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/buffer_recycler.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/smdb/lft_lineage.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/prdb_patch.h"
#include "common/smdb/route_diff.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace distrib {

// One consumer's new PRDB version.
struct PrdbVersion {
  uint64_t port_guid = 0;
  uint64_t epoch = 0;   // the SMDB's global epoch
  uint32_t digest = 0;  // CRC32 of the serialization
  std::shared_ptr<const smdb::PrdbImage> image;
  // The serialization whole (made once per version when it has overrides).
  std::shared_ptr<const std::string> bytes() const { return image ? image->Bytes() : nullptr; }
  // The delta from `delta_from` (the consumer's previous PRDB), or null.
  std::shared_ptr<const std::string> delta;
  uint64_t delta_from = 0;
  size_t paths = 0;
};

class PrdbService {
 public:
  using PublishFn = std::function<void(const PrdbVersion&)>;
  // Called once per consumer whose PRDB cannot be built (e.g. its GUID is
  // not in the SMDB): the owner refuses or disconnects that child.
  using FailFn = std::function<void(uint64_t port_guid, const Status&)>;

  // `pool`, `loop` and `log` are borrowed and must outlive the service.
  PrdbService(EventLoop* loop, WorkerPool* pool, Logger* log, PublishFn publish, FailFn fail);
  ~PrdbService();
  PrdbService(const PrdbService&) = delete;
  PrdbService& operator=(const PrdbService&) = delete;

  // A new SMDB: every consumer's PRDB is recomputed. `delta` (may be
  // null), the SMDB delta from epoch `delta_from` that made it, spares the
  // route diff a walk over both versions' LFTs (DiffRoutes).
  void OnSmdb(std::shared_ptr<const smdb::Smdb> db,
              std::shared_ptr<const std::string> delta = nullptr, uint64_t delta_from = 0);
  // A consumer to serve (idempotent): its PRDB is computed now if an SMDB
  // is held, else with the first one.
  void AddConsumer(uint64_t port_guid);
  // The access node's route-SL slice (route_sl_client.h): with an SMDB of
  // its routing, the consumers it covers get the engine's SLs instead of
  // records marked not exact; those computed without it are made again
  // (same epoch, other bytes). Bad slices are logged and ignored.
  void OnRouteSlSlice(std::shared_ptr<const smdb::Smdb> slice);
  void RemoveConsumer(uint64_t port_guid);
  // The route-suffix table's bound (PathEngineOptions::route_suffix_max_entries)
  // for SMDBs that rebuild every PRDB whole; 0: none. From the next SMDB on.
  void set_route_table_max_entries(size_t n) { route_table_max_entries_ = n; }
  static constexpr size_t kDefaultRouteTableMaxEntries = size_t{32} << 20;  // 64 MB
  // Whether the PRDBs carry the prefix rows (PathEngineOptions::prefix_rows;
  // ibssa's prefix_rows option). From the next SMDB on.
  void set_prefix_rows(bool on) { prefix_rows_ = on; }

  uint64_t smdb_epoch() const { return db_ ? db_->global_epoch : 0; }
  // Paths computed since start (engine calls), the paths a full
  // recomputation of the same versions would have computed (so
  // paths_computed / paths_if_full over an update is the share the
  // incremental rule recomputed), paths held by the versions published
  // (their sum), and PRDB versions published.
  uint64_t paths_computed() const { return paths_computed_; }
  uint64_t paths_if_full() const { return paths_if_full_; }
  uint64_t paths_published() const { return paths_published_; }
  uint64_t versions_published() const { return versions_published_; }
  // SMDB indexes built since start whose LFT bytes were caught up from a
  // recycled buffer (only the changed blocks written), and those written
  // whole (the first, after a gap or a full transfer, a layout change).
  uint64_t index_lft_catch_ups() const { return index_lft_catch_ups_; }
  uint64_t index_lft_full_builds() const { return index_lft_full_builds_; }
  // Jobs submitted and not yet back on the loop, consumers waiting for a
  // job slot, and the most jobs ever in flight at once (<= max_jobs()).
  size_t jobs_in_flight() const { return in_flight_; }
  size_t jobs_waiting() const { return waiting_.size(); }
  size_t jobs_in_flight_peak() const { return in_flight_peak_; }
  size_t max_jobs() const { return max_jobs_; }
  // Whether consumers' updates wait for a route-SL slice that covers them
  // (WaitForSlice), and how long they may (default 5 s).
  bool holding_for_slice() const { return slice_wait_ != 0; }
  void set_slice_wait(std::chrono::milliseconds wait) { slice_wait_ms_ = wait; }
  // Route-SL slices that could not be used (bad tables), since start.
  uint64_t slices_rejected() const { return slices_rejected_; }
  // Consumers whose current PRDB was made without the routing engine's
  // SLs that the SMDB leaves to route-SL slices (records marked).
  size_t consumers_without_engine_sls() const {
    size_t n = 0;
    for (const auto& c : consumers_) n += c.second.image && !c.second.sl_covered;
    return n;
  }
  static constexpr size_t kJobsPerThread = 2;
  // An image is written whole again when its overrides pass 1/64 of its
  // paths (1.6 % more memory; a lookup per record read stays cheap).
  static constexpr size_t kMaxOverrideShare = 64;
  // The current PRDB of a consumer (parsed from its serialization), or null.
  std::shared_ptr<const smdb::Prdb> Current(uint64_t port_guid) const;
  // Bytes held for consumers' PRDBs (their images' bases and overrides,
  // a base shared by several versions counted once per consumer).
  uint64_t bytes_held() const;
  BufferRecycler::Counters buffer_counters() const { return buffers_->counters(); }

  // What the workers run, without the loop and pool: each consumer's
  // version at `new_db`'s epoch from `previous` (each names the consumer
  // in port_guid; its version at `old_epoch`, or no bytes for none).
  // *computed counts the engine calls. For benchmarks (bench_tree
  // --pieces) and tests; `new_index` and `diff` are borrowed.
  static Status UpdateMany(uint64_t old_epoch, const smdb::Smdb& new_db,
                           const smdb::SmdbIndex& new_index, const smdb::RouteDiff& diff,
                           const std::vector<PrdbVersion>& previous, std::vector<PrdbVersion>* out,
                           size_t* computed);

 private:
  struct Engine {
    std::shared_ptr<const smdb::Smdb> db;
    std::shared_ptr<smdb::SmdbIndex> index;
    std::shared_ptr<const smdb::RouteSlTable> slice;  // the engine borrows it
    std::unique_ptr<smdb::PathEngine> engine;
    // What can differ from the engine of SMDB epoch `diff_from` (0: no
    // previous engine, recompute everything).
    uint64_t diff_from = 0;
    smdb::RouteDiff diff;
  };
  struct Consumer {
    std::shared_ptr<const smdb::PrdbImage> image;  // current version, or null
    uint64_t epoch = 0;                            // its epoch
    uint32_t digest = 0;
    uint64_t computing_for = 0;   // SMDB epoch of the job in flight, 0: none
    bool waiting = false;         // in waiting_, for a job slot
    bool sl_covered = true;       // `image` had the engine's SLs (EngineCovers)
    bool awaiting_slice = false;  // its update waits for a slice (WaitForSlice)
  };
  struct JobResult {
    Status status;
    PrdbVersion version;
    size_t computed = 0;  // engine calls made
    size_t if_full = 0;   // engine calls a full build would have made
    bool sl_covered = true;
  };
  // Whether `e` knows the routing engine's SLs from `port_guid`'s port: no
  // slices in use, or its slice is of the SMDB's routing and covers it.
  // What this service's engines are built with (ForPrdb and its options).
  smdb::PathEngineOptions EngineOptions() const;
  static bool EngineCovers(const Engine& e, uint64_t port_guid);
  // Whether this SMDB leaves an SL-choosing engine's SLs to slices.
  static bool UsesSlices(const smdb::SmdbIndex& x);
  // A slice of the current engine's routing newer than the engine's: an
  // engine with it, and the consumers it now covers made again.
  void ApplySlice();
  // Every consumer's PRDB for the current engine (those up to date skip).
  void ComputeAll();
  // `c`'s update waits for a slice covering it, at most slice_wait_ms_.
  void WaitForSlice(Consumer* c);
  // Cancels WaitForSlice's deadline when no consumer waits any more.
  void EndSliceWaitIfOver();

  // The consumer's version at `epoch` from `previous` (its current one),
  // its bytes built in a buffer from `buffers`.
  static JobResult BuildOrPatch(const Engine& e, const Consumer& previous, uint64_t port_guid,
                                uint64_t epoch, BufferRecycler* buffers);
  static Status BuildWhole(const Engine& e, const Consumer& previous, uint64_t port_guid,
                           uint64_t epoch, BufferRecycler* buffers, JobResult* r);
  // Submits the consumer's job if it needs one and a slot is free, else
  // queues it in waiting_.
  void Compute(uint64_t port_guid);
  void OnComputed(uint64_t port_guid, uint64_t epoch, JobResult result);
  // Submits waiting consumers while slots are free.
  void StartWaiting();

  EventLoop* loop_;
  WorkerPool* pool_;
  Logger* log_;
  PublishFn publish_;
  FailFn fail_;
  std::shared_ptr<const smdb::Smdb> db_;
  std::shared_ptr<const Engine> engine_;  // built from db_, shared with jobs
  uint64_t engine_pending_ = 0;           // SMDB epoch whose engine is being built
  std::map<uint64_t, Consumer> consumers_;
  std::deque<uint64_t> waiting_;                     // port GUIDs; a removed one is skipped
  std::shared_ptr<const smdb::RouteSlTable> slice_;  // the newest route-SL slice
  EventLoop::TimerId slice_wait_ = 0;                // WaitForSlice's deadline
  std::chrono::milliseconds slice_wait_ms_{5000};
  // The routing whose slice did not come in time: its consumers no longer wait.
  uint64_t wait_over_generation_ = 0;
  size_t max_jobs_;
  size_t route_table_max_entries_ = kDefaultRouteTableMaxEntries;
  bool prefix_rows_ = true;
  size_t in_flight_ = 0;
  size_t in_flight_peak_ = 0;
  // The serializations' memory, reused from one version to the next
  // (shared with the jobs and the published buffers' deleters).
  std::shared_ptr<BufferRecycler> buffers_;
  std::shared_ptr<smdb::SmdbIndex::LftBuffers> lft_buffers_;  // for each SMDB's index
  // The SMDB versions indexed and the LFT blocks their deltas change, so
  // an index catches a recycled buffer up (SmdbIndex::Build).
  std::shared_ptr<smdb::LftLineage> lft_lineage_;
  uint64_t index_lft_catch_ups_ = 0;
  uint64_t index_lft_full_builds_ = 0;
  uint64_t paths_computed_ = 0;
  uint64_t paths_if_full_ = 0;
  uint64_t paths_published_ = 0;
  uint64_t versions_published_ = 0;
  uint64_t slices_rejected_ = 0;
};

}  // namespace distrib
}  // namespace ssa

#endif
