// prdb_service.cc: see prdb_service.h.
#include "distrib/prdb_service.h"

#include <algorithm>
#include <cinttypes>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/whole_prdb.h"

namespace ssa {
namespace distrib {

// The consumer's PRDB at `epoch`, built whole (with the delta from the
// previous version when there is one).
Status PrdbService::BuildWhole(const Engine& e, const Consumer& previous, uint64_t port_guid,
                               uint64_t epoch, BufferRecycler* buffers, JobResult* r) {
  std::string serialized = buffers->Take(previous.image ? previous.image->size() : 0);
  size_t paths = 0;
  PrdbVersion& v = r->version;
  Status st = smdb::WritePrdbImage(*e.engine, port_guid, epoch, &serialized, &paths, &v.digest);
  if (!st.ok()) return st;
  std::shared_ptr<const std::string> bytes = buffers->Share(std::move(serialized));
  v.paths = paths;
  std::shared_ptr<const std::string> old_bytes = previous.image ? previous.image->Bytes() : nullptr;
  smdb::Prdb old, now;
  // The delta compares records: both versions parsed (a whole rebuild
  // after an update; a bring-up has no previous version).
  if (old_bytes &&
      smdb::Prdb::Parse(reinterpret_cast<const uint8_t*>(old_bytes->data()), old_bytes->size(),
                        &old)
          .ok() &&
      smdb::Prdb::Parse(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size(), &now)
          .ok()) {
    auto delta = std::make_shared<std::string>();
    if (smdb::MakeDelta(old, now, delta.get()).ok()) {
      v.delta = delta;
      v.delta_from = previous.epoch;
    }
  }
  v.image = std::make_shared<const smdb::PrdbImage>(std::move(bytes));
  r->computed = r->if_full;
  return Status::Ok();
}

// Patched from the previous version when the route diff allows (only the
// pairs whose walks can read a change recomputed: RouteDiff::PairMayDiffer),
// else built whole.
PrdbService::JobResult PrdbService::BuildOrPatch(const Engine& e, const Consumer& previous,
                                                 uint64_t port_guid, uint64_t epoch,
                                                 BufferRecycler* buffers) {
  JobResult r;
  r.version.port_guid = port_guid;
  r.version.epoch = epoch;
  const smdb::SmdbIndex& x = *e.index;
  uint32_t src = x.PortByGuid(port_guid);
  r.if_full = x.assigned_lids().size() << (src == smdb::SmdbIndex::kNone ? 0 : x.port(src).lmc);
  r.sl_covered = EngineCovers(e, port_guid);
  // A consumer the slice covers now but did not then: every record again.
  bool patch = previous.image && e.diff_from != 0 && previous.epoch == e.diff_from && !e.diff.all &&
               !e.diff.lids_left && src != smdb::SmdbIndex::kNone &&
               (previous.sl_covered || !r.sl_covered);
  const smdb::SmdbIndex::Port* s = patch ? &x.port(src) : nullptr;
  if (patch) {
    // The previous version was made for this very port.
    smdb::PrdbSource was;
    patch = smdb::PrdbSourceOf(*previous.image, &was).ok() && was.port_guid == port_guid &&
            was.subnet_prefix == x.subnet().subnet_prefix && was.base_lid == s->base_lid &&
            was.lmc == s->lmc;
    for (uint32_t k = 0; patch && k < (1u << s->lmc); ++k)
      patch = !e.diff.IsOwnerDirty(static_cast<uint16_t>(s->base_lid + k));
  }
  if (!patch) {
    r.status = BuildWhole(e, previous, port_guid, epoch, buffers, &r);
    return r;
  }
  std::vector<smdb::PathUpdate> updates;
  std::vector<uint16_t> dlids;
  for (uint32_t k = 0; k < (1u << s->lmc); ++k) {
    uint16_t slid = static_cast<uint16_t>(s->base_lid + k);
    // The destinations PairMayDiffer flags, listed from the diff.
    e.diff.PairsFrom(slid, &dlids);
    for (uint16_t dlid : dlids) {
      updates.emplace_back();
      smdb::PathUpdate& u = updates.back();
      if (e.engine->ComputePrdb(slid, dlid, &u.path) == smdb::PathStatus::kOk) {
        u.present = true;
        continue;
      }
      // No path now: the key of the record that would be there.
      const smdb::SmdbIndex::Port& d = x.port(x.PortByLid(dlid));
      std::copy(x.prefix_bytes().begin(), x.prefix_bytes().end(), u.path.dgid.begin());
      std::copy(x.prefix_bytes().begin(), x.prefix_bytes().end(), u.path.sgid.begin());
      for (int i = 0; i < 8; ++i) {
        u.path.dgid[8 + i] = static_cast<uint8_t>(d.port_guid >> (56 - 8 * i));
        u.path.sgid[8 + i] = static_cast<uint8_t>(port_guid >> (56 - 8 * i));
      }
      u.path.dlid = dlid;
      u.path.slid = slid;
    }
  }
  r.computed = updates.size();
  smdb::PatchedPrdb patched;
  r.status = smdb::PatchPrdb(*previous.image, previous.digest, epoch, std::move(updates),
                             r.if_full / kMaxOverrideShare, buffers, &patched);
  if (!r.status.ok()) {
    r.status = BuildWhole(e, previous, port_guid, epoch, buffers, &r);
    return r;
  }
  PrdbVersion& v = r.version;
  v.digest = patched.digest;
  v.paths = patched.paths;
  v.image = std::move(patched.image);
  v.delta = std::make_shared<std::string>(std::move(patched.delta));
  v.delta_from = previous.epoch;
  return r;
}

Status PrdbService::UpdateMany(uint64_t old_epoch, const smdb::Smdb& new_db,
                               const smdb::SmdbIndex& new_index, const smdb::RouteDiff& diff,
                               const std::vector<PrdbVersion>& previous,
                               std::vector<PrdbVersion>* out, size_t* computed) {
  Engine e;
  // Borrowed for the call (a shared_ptr that owns nothing).
  e.index = std::shared_ptr<smdb::SmdbIndex>(std::shared_ptr<void>(),
                                             const_cast<smdb::SmdbIndex*>(&new_index));
  e.engine = std::make_unique<smdb::PathEngine>(&new_index, smdb::PathEngineOptions::ForPrdb());
  e.diff_from = old_epoch;
  e.diff = diff;
  // The same build path as the service's jobs; the results outlive it
  // (their buffers are then freed normally).
  BufferRecycler buffers(2);
  Status st;
  *computed = 0;
  out->clear();
  for (const PrdbVersion& p : previous) {
    Consumer c;
    c.image = p.image;
    c.epoch = p.epoch;
    c.digest = p.digest;
    JobResult r = BuildOrPatch(e, c, p.port_guid, new_db.global_epoch, &buffers);
    if (!r.status.ok()) {
      st = r.status;
      break;
    }
    out->push_back(r.version);
    *computed += r.computed;
  }
  return st;
}

PrdbService::~PrdbService() {
  if (slice_wait_) loop_->CancelTimer(slice_wait_);
}

PrdbService::PrdbService(EventLoop* loop, WorkerPool* pool, Logger* log, PublishFn publish,
                         FailFn fail)
    : loop_(loop),
      pool_(pool),
      log_(log),
      publish_(std::move(publish)),
      fail_(std::move(fail)),
      max_jobs_(kJobsPerThread * std::max<size_t>(1, pool->thread_count())),
      // Enough for the jobs in flight and as many released meanwhile.
      buffers_(std::make_shared<BufferRecycler>(2 * max_jobs_)),
      // The index of epoch N is built while N - 1's is still in use (the
      // route diff reads both): N - 2's LFT buffer is the one to reuse.
      lft_buffers_(std::make_shared<smdb::SmdbIndex::LftBuffers>(1)),
      lft_lineage_(std::make_shared<smdb::LftLineage>()) {}

void PrdbService::OnSmdb(std::shared_ptr<const smdb::Smdb> db,
                         std::shared_ptr<const std::string> delta, uint64_t delta_from) {
  if (!db || (db_ && db->global_epoch == db_->global_epoch)) return;
  db_ = db;
  uint64_t epoch = db->global_epoch;
  engine_pending_ = epoch;
  log_->Log(LogLevel::kInfo, "SMDB epoch %" PRIu64 ": building the path engine for %zu consumer(s)",
            epoch, consumers_.size());
  // The index build and the route diff walk the whole SMDB: a worker's
  // job, not the loop's.
  std::shared_ptr<const Engine> previous = engine_;
  const size_t table_max = route_table_max_entries_;
  const smdb::PathEngineOptions base = EngineOptions();
  std::shared_ptr<smdb::SmdbIndex::LftBuffers> lft_buffers = lft_buffers_;
  std::shared_ptr<const smdb::LftLineage> lineage = lft_lineage_;
  // In arrival order, here on the loop thread: the lineage links each
  // version to the one before by its delta's base (lft_lineage.h).
  const uint64_t serial = lft_lineage_->Add(*db, delta.get());
  std::shared_ptr<const smdb::RouteSlTable> slice = slice_;
  pool_->SubmitWithResult<std::shared_ptr<Engine>>(
      [db, previous, table_max, base, lft_buffers, lineage, serial, delta, delta_from, slice]() {
        auto e = std::make_shared<Engine>();
        e->db = db;
        std::unique_ptr<smdb::SmdbIndex> index;
        Status st = smdb::SmdbIndex::Build(*db, &index, lft_buffers.get(), lineage.get(), serial);
        if (!st.ok()) return std::shared_ptr<Engine>();
        e->index = std::move(index);
        if (previous) {
          // The delta is of use only when it starts where the previous
          // engine's SMDB is (an SMDB that arrived while that engine was
          // being built was skipped, and the delta is from it).
          const bool from_previous = delta && delta_from == previous->db->global_epoch;
          e->diff = smdb::DiffRoutes(*previous->db, *previous->index, *db, *e->index,
                                     from_previous ? delta.get() : nullptr);
          e->diff_from = previous->db->global_epoch;
        }
        // Every consumer's PRDB built whole (the first SMDB, a global
        // change): the route-suffix table turns each path's two walks into
        // lookups, for about the cost of one walk per (switch, LID). An
        // update patches a few paths and walks them.
        smdb::PathEngineOptions o = base;
        if (!previous || e->diff.all) o.route_suffix_max_entries = table_max;
        e->slice = slice;
        o.route_sl_slice = slice.get();
        e->engine = std::make_unique<smdb::PathEngine>(e->index.get(), o);
        return e;
      },
      [this, epoch](std::shared_ptr<Engine> e) {
        if (epoch != engine_pending_) return;  // superseded by a newer SMDB
        engine_pending_ = 0;
        if (!e) {
          log_->Log(LogLevel::kError,
                    "SMDB epoch %" PRIu64 " cannot be indexed; keeping the previous PRDBs", epoch);
          return;
        }
        engine_ = e;
        if (e->index->lft_caught_up())
          ++index_lft_catch_ups_;
        else
          ++index_lft_full_builds_;
        log_->Log(LogLevel::kInfo,
                  "SMDB epoch %" PRIu64 ": index LFTs %s (%" PRIu64 " caught up, %" PRIu64
                  " written whole so far)",
                  epoch,
                  e->index->lft_caught_up()
                      ? ("caught up, " + std::to_string(e->index->lft_blocks_rewritten()) +
                         " block(s) rewritten")
                            .c_str()
                      : "written whole",
                  index_lft_catch_ups_, index_lft_full_builds_);
        if (e->diff_from)
          log_->Log(
              LogLevel::kInfo, "SMDB epoch %" PRIu64 " vs %" PRIu64 ": %s", epoch, e->diff_from,
              e->diff.all
                  ? "global change, every path recomputed"
                  : (std::to_string(e->diff.owner_dirty_count) + " LID(s) whose port changed, " +
                     std::to_string(e->diff.route_dirty_count) + " whose routes changed")
                        .c_str());
        if (e->engine->options().route_suffix_max_entries != 0)
          log_->Log(LogLevel::kInfo, "SMDB epoch %" PRIu64 ": %s", epoch,
                    e->engine->has_route_suffixes()
                        ? "whole PRDBs use the route-suffix table"
                        : "whole PRDBs walk every path (the route-suffix table would pass "
                          "prdb_route_table_mb, or SL2VL tables drop SLs per hop)");
        if (slice_ != e->slice) ApplySlice();  // a slice came while it was built
        ComputeAll();
      });
}

// The core sends an access node's slice right after the SMDB, and cuts it
// again 50 ms after a consumer joins: rather than give a consumer records
// marked not exact for that moment (errors with fallback = none, SA queries
// with fallback = sa, at every routing change and every join), its update
// waits, keeping the PRDB it has, as during any update. After kSliceWait
// without a slice that covers them, the waiting consumers get their PRDBs
// with those records marked, and consumers of that routing no longer wait.
void PrdbService::WaitForSlice(Consumer* c) {
  c->awaiting_slice = true;
  // One deadline from when the first consumer began to wait: a new routing
  // (a link flapping makes one every sweep) never extends it, so nobody
  // keeps a PRDB of an old routing longer than slice_wait_ms_.
  if (slice_wait_) return;
  log_->Log(LogLevel::kInfo,
            "SMDB epoch %" PRIu64
            ": waiting up to %lld ms for a route-SL slice of routing "
            "generation %" PRIu64 " that covers the consumers to update",
            engine_->db->global_epoch, static_cast<long long>(slice_wait_ms_.count()),
            engine_->index->route_sl_generation());
  slice_wait_ = loop_->AddTimer(slice_wait_ms_, [this] {
    slice_wait_ = 0;
    size_t n = 0;
    for (auto& c : consumers_) n += c.second.awaiting_slice;
    // Nobody waits any more (their slice came): the next wait starts anew.
    if (!engine_ || n == 0) return;
    wait_over_generation_ = engine_->index->route_sl_generation();
    log_->Log(LogLevel::kWarn,
              "SMDB epoch %" PRIu64
              ": no route-SL slice covering %zu consumer(s) after %lld ms; "
              "updating them with the routing engine's records marked not exact",
              engine_->db->global_epoch, n, static_cast<long long>(slice_wait_ms_.count()));
    ComputeAll();
  });
}

void PrdbService::ComputeAll() {
  std::string limits = engine_->engine->Limitations();
  // Without the slice yet: WaitForSlice says so, and the records are not
  // marked unless the wait runs out (which it logs).
  const bool slice_pending = UsesSlices(*engine_->index) && !engine_->engine->route_sls();
  if (!limits.empty() && !slice_pending)
    log_->Log(LogLevel::kWarn,
              "SMDB epoch %" PRIu64
              ": path records marked not exact (consumers ask the SA for them or fail, as their "
              "fallback says): %s",
              engine_->db->global_epoch, limits.c_str());
  for (auto& c : consumers_) Compute(c.first);
  EndSliceWaitIfOver();
}

// The deadline belongs to a wait in progress: once nobody waits (their
// slice came, or they left), the next wait must get its whole time, not
// what remains of this one's. A timer left running would end a new
// routing's wait early, and its consumers would answer errors for
// destinations they know.
void PrdbService::EndSliceWaitIfOver() {
  if (!slice_wait_) return;
  for (const auto& c : consumers_)
    if (c.second.awaiting_slice) return;
  loop_->CancelTimer(slice_wait_);
  slice_wait_ = 0;
}

void PrdbService::OnRouteSlSlice(std::shared_ptr<const smdb::Smdb> slice) {
  if (!slice) return;
  auto t = std::make_shared<smdb::RouteSlTable>();
  Status st = smdb::RouteSlTable::Build(*slice, /*slice=*/true, t.get());
  if (!st.ok()) {
    // The previous slice stays in use; the core sends the next as usual.
    ++slices_rejected_;
    log_->Log(LogLevel::kError, "route-SL slice %" PRIu64 " ignored (%" PRIu64 " so far): %s",
              slice->global_epoch, slices_rejected_, st.ToString().c_str());
    return;
  }
  slice_ = std::move(t);
  if (!engine_pending_) ApplySlice();  // else when that engine is done
}

bool PrdbService::UsesSlices(const smdb::SmdbIndex& x) {
  const uint32_t flags = x.subnet().flags;
  return (flags & smdb::kSubnetRoutingSl) && (flags & smdb::kSubnetRouteSlSlices);
}

bool PrdbService::EngineCovers(const Engine& e, uint64_t port_guid) {
  const smdb::SmdbIndex& x = *e.index;
  if (!UsesSlices(x)) return true;
  // The engine took the slice only if it is of this SMDB's routing.
  const smdb::RouteSlTable* t = e.engine->route_sls();
  uint32_t port = x.PortByGuid(port_guid);
  return t && port != smdb::SmdbIndex::kNone && t->Covers(x.port(port).base_lid);
}

smdb::PathEngineOptions PrdbService::EngineOptions() const {
  smdb::PathEngineOptions o = smdb::PathEngineOptions::ForPrdb();
  o.prefix_rows = prefix_rows_;
  return o;
}

void PrdbService::ApplySlice() {
  if (!engine_ || !slice_ || engine_->slice == slice_ || !UsesSlices(*engine_->index)) return;
  // The same SMDB, index and route diff; only the engine's SLs are new.
  auto e = std::make_shared<Engine>();
  e->db = engine_->db;
  e->index = engine_->index;
  e->diff_from = engine_->diff_from;
  e->diff = engine_->diff;
  e->slice = slice_;
  smdb::PathEngineOptions o = EngineOptions();
  o.route_sl_slice = slice_.get();
  e->engine = std::make_unique<smdb::PathEngine>(e->index.get(), o);
  // The engine takes a slice only of its SMDB's routing; another waits.
  if (e->engine->route_sls() != slice_.get()) return;
  engine_ = e;
  size_t again = 0;
  for (const auto& c : consumers_)
    again += c.second.image && c.second.epoch == e->db->global_epoch && !c.second.sl_covered &&
             EngineCovers(*e, c.first);
  log_->Log(LogLevel::kInfo,
            "SMDB epoch %" PRIu64
            ": route-SL slice of %zu rows in use; %zu consumer PRDB(s) "
            "made again with the engine's SLs",
            e->db->global_epoch, slice_->rows(), again);
  // Also those waiting for it (WaitForSlice); Compute skips the up to date.
  ComputeAll();
}

void PrdbService::AddConsumer(uint64_t port_guid) {
  auto inserted = consumers_.emplace(port_guid, Consumer{});
  if (!inserted.second) return;
  if (engine_) Compute(port_guid);
}

void PrdbService::RemoveConsumer(uint64_t port_guid) {
  consumers_.erase(port_guid);
  EndSliceWaitIfOver();
}

std::shared_ptr<const smdb::Prdb> PrdbService::Current(uint64_t port_guid) const {
  auto it = consumers_.find(port_guid);
  if (it == consumers_.end() || !it->second.image) return nullptr;
  auto prdb = std::make_shared<smdb::Prdb>();
  // Made here, not kept (Bytes() would keep a second copy in the image).
  std::string b;
  it->second.image->Materialize(&b);
  if (!smdb::Prdb::Parse(reinterpret_cast<const uint8_t*>(b.data()), b.size(), prdb.get()).ok())
    return nullptr;
  return prdb;
}

uint64_t PrdbService::bytes_held() const {
  uint64_t n = 0;
  for (const auto& c : consumers_)
    if (c.second.image)
      n += c.second.image->size() +
           c.second.image->override_count() * sizeof(smdb::PrdbImage::Override);
  return n;
}

void PrdbService::Compute(uint64_t port_guid) {
  auto it = consumers_.find(port_guid);
  if (it == consumers_.end() || !engine_) return;
  Consumer& c = it->second;
  uint64_t epoch = engine_->db->global_epoch;
  if (c.waiting || c.computing_for == epoch) return;
  // Up to date, unless made without the engine's SLs that a slice now has.
  const bool covered = EngineCovers(*engine_, port_guid);
  if (c.image && c.epoch == epoch && (c.sl_covered || !covered)) return;
  if (!covered && engine_->index->route_sl_generation() != wait_over_generation_)
    return WaitForSlice(&c);
  c.awaiting_slice = false;
  if (in_flight_ >= max_jobs_) {
    c.waiting = true;
    waiting_.push_back(port_guid);
    return;
  }
  c.computing_for = epoch;
  ++in_flight_;
  in_flight_peak_ = std::max(in_flight_peak_, in_flight_);
  std::shared_ptr<const Engine> engine = engine_;
  std::shared_ptr<BufferRecycler> buffers = buffers_;
  // A child's full transfer made this version whole (PrdbImage::Bytes):
  // patch from that, and hold one serialization instead of two.
  if (c.image && !c.image->whole())
    if (std::shared_ptr<const std::string> made = c.image->MadeBytes())
      c.image = std::make_shared<const smdb::PrdbImage>(std::move(made));
  Consumer previous = c;
  pool_->SubmitWithResult<JobResult>(
      [engine, previous, port_guid, epoch, buffers]() {
        return BuildOrPatch(*engine, previous, port_guid, epoch, buffers.get());
      },
      [this, port_guid, epoch](JobResult r) {
        --in_flight_;
        OnComputed(port_guid, epoch, std::move(r));
        StartWaiting();
      });
}

void PrdbService::StartWaiting() {
  while (in_flight_ < max_jobs_ && !waiting_.empty()) {
    uint64_t guid = waiting_.front();
    waiting_.pop_front();
    auto it = consumers_.find(guid);
    if (it == consumers_.end() || !it->second.waiting) continue;  // removed meanwhile
    it->second.waiting = false;
    Compute(guid);  // with the newest engine, if it still needs a job
  }
}

void PrdbService::OnComputed(uint64_t port_guid, uint64_t epoch, JobResult r) {
  auto it = consumers_.find(port_guid);
  if (it == consumers_.end()) return;  // the consumer left meanwhile
  if (it->second.computing_for == epoch) it->second.computing_for = 0;
  if (!engine_ || engine_->db->global_epoch != epoch) {
    Compute(port_guid);  // a newer SMDB came: this result is stale
    return;
  }
  if (!r.status.ok()) {
    log_->Log(LogLevel::kWarn, "PRDB for port 0x%016" PRIx64 " at epoch %" PRIu64 ": %s", port_guid,
              epoch, r.status.ToString().c_str());
    if (fail_) fail_(port_guid, r.status);
    return;
  }
  paths_computed_ += r.computed;
  paths_if_full_ += r.if_full;
  paths_published_ += r.version.paths;
  ++versions_published_;
  it->second.image = r.version.image;
  it->second.epoch = epoch;
  it->second.digest = r.version.digest;
  it->second.sl_covered = r.sl_covered;
  log_->Log(LogLevel::kDebug,
            "PRDB for port 0x%016" PRIx64 " at epoch %" PRIu64 ": %zu paths, %zu bytes%s",
            port_guid, epoch, r.version.paths, r.version.image->size(),
            r.version.delta ? ", delta made" : "");
  publish_(r.version);
  // A slice came while it was computed without it.
  if (!r.sl_covered && EngineCovers(*engine_, port_guid)) Compute(port_guid);
}

}  // namespace distrib
}  // namespace ssa
