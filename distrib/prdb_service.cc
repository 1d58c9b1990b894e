// prdb_service.cc: see prdb_service.h.
#include "distrib/prdb_service.h"

#include <algorithm>
#include <cinttypes>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace distrib {

// The consumer's PRDB at `epoch`: patched from `previous` when the route
// diff allows (only paths to dirty destinations recomputed), else built
// whole. *computed counts the engine calls, *if_full those a whole build
// makes.
Status PrdbService::BuildOrPatch(const Engine& e, const smdb::Prdb* previous, uint64_t port_guid,
                                 uint64_t epoch, smdb::Prdb* out, size_t* computed,
                                 size_t* if_full) {
  const smdb::SmdbIndex& x = *e.index;
  uint32_t src = x.PortByGuid(port_guid);
  *if_full = x.assigned_lids().size() << (src == smdb::SmdbIndex::kNone ? 0 : x.port(src).lmc);
  bool patch = previous && e.diff_from != 0 && previous->global_epoch == e.diff_from &&
               !e.diff.all && src != smdb::SmdbIndex::kNone;
  if (patch) {
    const smdb::SmdbIndex::Port& s = x.port(src);
    const smdb::PrdbSource& ps = previous->source.records[0];
    patch = ps.base_lid == s.base_lid && ps.lmc == s.lmc;
    for (uint32_t k = 0; patch && k < (1u << s.lmc); ++k)
      patch = !e.diff.IsDirty(static_cast<uint16_t>(s.base_lid + k));
  }
  if (!patch) {
    Status st = smdb::BuildPrdb(*e.engine, port_guid, epoch, out);
    *computed = *if_full;
    return st;
  }
  const smdb::SmdbIndex::Port& s = x.port(src);
  *out = *previous;
  out->global_epoch = epoch;
  out->source.records[0].smdb_epoch = epoch;
  auto& paths = out->paths.records;
  paths.erase(std::remove_if(paths.begin(), paths.end(),
                             [&e](const smdb::PrdbPath& p) { return e.diff.IsDirty(p.dlid); }),
              paths.end());
  ibv_path_record rec;
  size_t n = 0;
  for (uint32_t k = 0; k < (1u << s.lmc); ++k) {
    uint16_t slid = static_cast<uint16_t>(s.base_lid + k);
    for (uint16_t dlid : x.assigned_lids()) {
      if (!e.diff.IsDirty(dlid)) continue;
      ++n;
      if (e.engine->Compute(slid, dlid, &rec) != smdb::PathStatus::kOk) continue;
      paths.emplace_back();
      smdb::ToPrdbPath(rec, &paths.back());
    }
  }
  *computed = n;
  out->SortRecords();
  return Status::Ok();
}

PrdbService::PrdbService(EventLoop* loop, WorkerPool* pool, Logger* log, PublishFn publish,
                         FailFn fail)
    : loop_(loop), pool_(pool), log_(log), publish_(std::move(publish)), fail_(std::move(fail)) {}

void PrdbService::OnSmdb(std::shared_ptr<const smdb::Smdb> db) {
  if (!db || (db_ && db->global_epoch == db_->global_epoch)) return;
  db_ = db;
  uint64_t epoch = db->global_epoch;
  engine_pending_ = epoch;
  log_->Log(LogLevel::kInfo, "SMDB epoch %" PRIu64 ": building the path engine for %zu consumer(s)",
            epoch, consumers_.size());
  // The index build and the route diff walk the whole SMDB: a worker's
  // job, not the loop's.
  std::shared_ptr<const Engine> previous = engine_;
  pool_->SubmitWithResult<std::shared_ptr<Engine>>(
      [db, previous]() {
        auto e = std::make_shared<Engine>();
        e->db = db;
        Status st = smdb::SmdbIndex::Build(*db, &e->index);
        if (!st.ok()) return std::shared_ptr<Engine>();
        e->engine = std::make_unique<smdb::PathEngine>(e->index.get());
        if (previous) {
          e->diff = smdb::DiffRoutes(*previous->db, *previous->index, *db, *e->index);
          e->diff_from = previous->db->global_epoch;
        }
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
        if (e->diff_from)
          log_->Log(LogLevel::kInfo, "SMDB epoch %" PRIu64 " vs %" PRIu64 ": %s", epoch,
                    e->diff_from,
                    e->diff.all
                        ? "global change, every path recomputed"
                        : (std::to_string(e->diff.dirty_count) + " destination LID(s) to recompute")
                              .c_str());
        std::string limits = e->engine->Limitations();
        if (!limits.empty())
          log_->Log(LogLevel::kWarn, "path records may differ from the SA's: %s", limits.c_str());
        for (auto& c : consumers_) Compute(c.first);
      });
}

void PrdbService::AddConsumer(uint64_t port_guid) {
  auto inserted = consumers_.emplace(port_guid, Consumer{});
  if (!inserted.second) return;
  if (engine_) Compute(port_guid);
}

void PrdbService::RemoveConsumer(uint64_t port_guid) { consumers_.erase(port_guid); }

std::shared_ptr<const smdb::Prdb> PrdbService::Current(uint64_t port_guid) const {
  auto it = consumers_.find(port_guid);
  return it == consumers_.end() ? nullptr : it->second.prdb;
}

void PrdbService::Compute(uint64_t port_guid) {
  auto it = consumers_.find(port_guid);
  if (it == consumers_.end() || !engine_) return;
  uint64_t epoch = engine_->db->global_epoch;
  if (it->second.computing_for == epoch) return;
  if (it->second.prdb && it->second.prdb->global_epoch == epoch) return;
  it->second.computing_for = epoch;
  std::shared_ptr<const Engine> engine = engine_;
  std::shared_ptr<const smdb::Prdb> previous = it->second.prdb;
  pool_->SubmitWithResult<JobResult>(
      [engine, previous, port_guid, epoch]() {
        JobResult r;
        auto prdb = std::make_shared<smdb::Prdb>();
        r.status = BuildOrPatch(*engine, previous.get(), port_guid, epoch, prdb.get(), &r.computed,
                                &r.if_full);
        if (!r.status.ok()) return r;
        auto bytes = std::make_shared<std::string>();
        r.status = prdb->Serialize(bytes.get());
        if (!r.status.ok()) return r;
        PrdbVersion& v = r.version;
        v.port_guid = port_guid;
        v.epoch = epoch;
        v.digest = smdb::Crc32(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
        v.paths = prdb->paths.records.size();
        if (previous) {
          auto delta = std::make_shared<std::string>();
          if (smdb::MakeDelta(*previous, *prdb, delta.get()).ok()) {
            v.delta = delta;
            v.delta_from = previous->global_epoch;
          }
        }
        v.bytes = bytes;
        r.prdb = prdb;
        return r;
      },
      [this, port_guid, epoch](JobResult r) { OnComputed(port_guid, epoch, std::move(r)); });
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
  it->second.prdb = r.prdb;
  log_->Log(LogLevel::kDebug,
            "PRDB for port 0x%016" PRIx64 " at epoch %" PRIu64 ": %zu paths, %zu bytes%s",
            port_guid, epoch, r.version.paths, r.version.bytes->size(),
            r.version.delta ? ", delta made" : "");
  publish_(r.version);
}

}  // namespace distrib
}  // namespace ssa
