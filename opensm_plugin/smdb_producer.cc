// smdb_producer.cc: SmdbProducer (see smdb_producer.h).
#include "opensm_plugin/smdb_producer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <type_traits>
#include <vector>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_dump.h"

namespace ssa {
namespace opensm_plugin {
namespace {

// A walk that overflows is repeated after growing the buffers; more than
// this many in a row means the fabric changes faster than we can copy it.
constexpr int kMaxWalks = 4;

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string Ms(double ms) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.3f", ms);
  return buf;
}

std::string ChangedTables(const smdb::Smdb& db) {
  std::string names;
  smdb::Smdb::ForEachTable(db, [&](const auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    if (table.epoch == db.global_epoch)
      names += std::string(names.empty() ? "" : " ") + R::kTableName;
  });
  return names;
}

}  // namespace

SmdbProducer::SmdbProducer(const PluginOptions& options, std::unique_ptr<VersionStore> store,
                           ExtractFn extract, PluginLog* log)
    : options_(options), store_(std::move(store)), extract_(std::move(extract)), log_(log) {}

void SmdbProducer::LoadPrevious() {
  if (!store_) return;
  std::vector<uint64_t> epochs = store_->ListVersions();
  uint64_t highest = epochs.empty() ? 0 : epochs.back();
  smdb::Smdb db;
  bool found = false;
  Status st = store_->LoadLatest(&db, &found);
  if (st.ok() && found && db.global_epoch >= highest) {
    previous_ = std::move(db);
    previous_on_disk_ = true;
    log_->Key("continuing from epoch " + std::to_string(previous_.global_epoch) + " (" +
              store_->LatestPath() + ")");
    return;
  }
  if (highest == 0) {
    if (!st.ok())
      log_->Warn("ignoring the previous version in " + store_->dir() + ": " + st.ToString());
    else if (found)
      log_->Warn("ignoring " + store_->LatestPath() + ": it claims epoch 0");
    return;
  }
  std::string why = !st.ok() ? st.ToString()
                    : !found ? "missing"
                             : "epoch " + std::to_string(db.global_epoch) + ", older than " +
                                   store_->VersionPath(highest);
  // The highest version on disk is the one readers may already hold.
  smdb::Smdb top;
  Status top_st = store_->LoadVersion(highest, &top);
  if (top_st.ok() && top.global_epoch == highest) {
    previous_ = std::move(top);
    previous_on_disk_ = true;
    log_->Warn(store_->LatestPath() + " is unusable (" + why + "); continuing from epoch " +
               std::to_string(highest) + " (" + store_->VersionPath(highest) + ")");
    return;
  }
  if (top_st.ok())
    top_st = Status::Error(EINVAL, "it claims epoch " + std::to_string(top.global_epoch));
  epoch_floor_ = highest;
  log_->Warn(store_->LatestPath() + " is unusable (" + why + ") and so is " +
             store_->VersionPath(highest) + " (" + top_st.ToString() +
             "); the next version is epoch " + std::to_string(highest + 1) + ", written whole");
}

bool SmdbProducer::CurrentVersion(ProduceResult* out) const {
  if (previous_.global_epoch == 0) return false;
  auto bytes = std::make_shared<std::string>();
  if (!previous_.Serialize(bytes.get()).ok()) return false;
  out->epoch = previous_.global_epoch;
  out->db = std::make_shared<const smdb::Smdb>(previous_);
  out->serialized = bytes;
  out->bytes = bytes->size();
  out->route_sl_rows = slice_rows_;
  return true;
}

void SmdbProducer::LeaveRowsToSlices(
    smdb::Smdb* next, std::shared_ptr<const std::vector<smdb::SmdbRouteSl>>* rows) const {
  uint32_t& flags = next->subnet.records[0].flags;
  if (!(flags & smdb::kSubnetRouteSls) ||
      next->route_sls.records.size() <= static_cast<size_t>(options_.route_sl_smdb_rows))
    return;
  *rows =
      std::make_shared<const std::vector<smdb::SmdbRouteSl>>(std::move(next->route_sls.records));
  next->route_sls.records.clear();
  flags = (flags & ~smdb::kSubnetRouteSls) | smdb::kSubnetRouteSlSlices;
}

bool SmdbProducer::Extract(ProduceResult* r) {
  for (r->walks = 1; r->walks <= kMaxWalks; ++r->walks) {
    ssa_extract_times t{};
    int rc = extract_(raw_.buffers(), &t);
    r->lock_wait_ms += t.wait_ms;
    r->lock_hold_ms += t.hold_ms;  // every walk stalled OpenSM, the counting ones too
    if (rc == 0) {
      if (raw_.raw().truncated)
        log_->Warn("a subnet table was longer than its own count; this version may be incomplete");
      return true;
    }
    if (rc != 1) {
      log_->Error("extraction failed (" + std::to_string(rc) + ")");
      return false;
    }
    raw_.Grow();  // outside the lock; the next walk fits unless the fabric grew again
    log_->Debug("raw buffers grown to " + std::to_string(raw_.CapacityBytes()) + " bytes");
  }
  r->walks = kMaxWalks;
  log_->Error("the subnet kept growing during " + std::to_string(kMaxWalks) +
              " walks; no version this time");
  return false;
}

ProduceResult SmdbProducer::Produce(const std::string& reason, double sweep_ms) {
  ProduceResult r;
  // Without a previous version the epochs go on from the highest on disk.
  smdb::Smdb after_disk;
  after_disk.global_epoch = epoch_floor_;
  const smdb::Smdb& base = previous_.global_epoch != 0 ? previous_ : after_disk;
  r.epoch = base.global_epoch;
  if (!Extract(&r)) return r;
  r.route_sl_state = raw_.raw().subnet.route_sl_state;

  auto t_build = std::chrono::steady_clock::now();
  smdb::Smdb next;
  BuildReport report;
  BuildSmdb(raw_.raw(), &next, &report);
  if (report.duplicate_keys || report.dangling_links)
    log_->Warn("OpenSM's tables were inconsistent: dropped " +
               std::to_string(report.duplicate_keys) + " duplicate records and " +
               std::to_string(report.dangling_links) + " dangling links");
  std::shared_ptr<const std::vector<smdb::SmdbRouteSl>> slice_rows;
  LeaveRowsToSlices(&next, &slice_rows);
  smdb::BumpEpochs(base, &next);
  // Rows that left the SMDB still name their routing in it: a new one
  // gets a new route_sl_hints epoch (the generation slices must match).
  auto same_row = [](const smdb::SmdbRouteSl& a, const smdb::SmdbRouteSl& b) {
    return a.slid == b.slid && a.dlid == b.dlid && a.hint == b.hint && a.sl == b.sl &&
           a.span == b.span;
  };
  if (slice_rows &&
      (!slice_rows_ || slice_rows_->size() != slice_rows->size() ||
       !std::equal(slice_rows->begin(), slice_rows->end(), slice_rows_->begin(), same_row))) {
    next.global_epoch = base.global_epoch + 1;
    next.route_sl_hints.epoch = next.global_epoch;
  } else if (slice_rows) {
    slice_rows = slice_rows_;  // the same rows: share the held copy
  }
  std::string walk = "lock held " + Ms(r.lock_hold_ms) + " ms (waited " + Ms(r.lock_wait_ms) +
                     " ms, " + std::to_string(r.walks) + (r.walks == 1 ? " walk)" : " walks)");
  if (next.global_epoch == base.global_epoch) {
    log_->Info("no change since epoch " + std::to_string(r.epoch) + "; " + walk + "; after " +
               reason);
    return r;
  }
  r.changed = ChangedTables(next);
  Publish(std::move(next), &r);
  if (!r.new_version) return r;
  slice_rows_ = slice_rows;
  r.route_sl_rows = slice_rows;
  if (slice_rows)
    log_->Info("epoch " + std::to_string(r.epoch) + ": " + std::to_string(slice_rows->size()) +
               " routing-engine SL rows (more than route_sl_smdb_rows) go to access nodes in "
               "route-SL slices, generation " +
               std::to_string(r.db->route_sl_hints.epoch));
  r.build_ms = MsSince(t_build) - r.write_ms;

  std::string line = "epoch " + std::to_string(r.epoch) + ": tables changed: " + r.changed + "; " +
                     walk + "; build " + Ms(r.build_ms) + " ms, write " + Ms(r.write_ms) + " ms, " +
                     std::to_string(r.bytes) + " bytes; after " + reason;
  if (sweep_ms >= 0) line += " (heavy sweep " + Ms(sweep_ms) + " ms)";
  log_->Key(line);
  return r;
}

ProduceResult SmdbProducer::ContinueAfter(uint64_t seen) {
  ProduceResult r;
  r.epoch = previous_.global_epoch;
  if (previous_.global_epoch == 0) {
    if (seen > epoch_floor_) {
      epoch_floor_ = seen;
      log_->Key("a member holds epoch " + std::to_string(seen) +
                " from another core; the first version will follow it");
    }
    return r;
  }
  if (seen < previous_.global_epoch) return r;
  uint64_t was = previous_.global_epoch;
  smdb::Smdb next = previous_;
  uint64_t epoch = seen + 1;
  next.global_epoch = epoch;
  smdb::Smdb::ForEachTable(next, [epoch](auto& table) { table.epoch = epoch; });
  r.changed = "every table (epochs renumbered)";
  Publish(std::move(next), &r);
  r.route_sl_rows = slice_rows_;
  if (r.new_version)
    log_->Key("epoch " + std::to_string(r.epoch) + ": the same subnet as epoch " +
              std::to_string(was) + ", renumbered after epoch " + std::to_string(seen) +
              " that a member holds from another core (an SM failover?): epochs never go "
              "backwards");
  return r;
}

// Serializes `next`, writes it (and its delta) when there is a dump
// directory, and makes it the previous version.
void SmdbProducer::Publish(smdb::Smdb next, ProduceResult* r) {
  std::string bytes;
  Status st = next.Serialize(&bytes);
  if (!st.ok()) {
    // BuildSmdb sorts and de-duplicates, so this is a bug, not bad input.
    log_->Error("cannot serialize epoch " + std::to_string(next.global_epoch) + ": " +
                st.ToString());
    return;
  }
  r->bytes = bytes.size();
  // The delta from the previous version serves both the dump directory and
  // the tree's children; without a previous version there is none.
  std::string delta;
  bool have_delta = previous_.global_epoch != 0;
  if (have_delta) {
    st = smdb::MakeDelta(previous_, next, &delta);
    if (!st.ok()) {
      log_->Error("cannot make the delta to epoch " + std::to_string(next.global_epoch) + ": " +
                  st.ToString());
      have_delta = false;
    }
  }
  bool on_disk = false;
  if (store_) {
    bool with_delta = options_.write_deltas && previous_on_disk_ && have_delta;
    std::string text;
    if (options_.dump_text) text = smdb::DumpSmdb(next);
    auto t_write = std::chrono::steady_clock::now();
    st = store_->Write(next.global_epoch, bytes, with_delta ? &delta : nullptr,
                       previous_.global_epoch, options_.dump_text ? &text : nullptr);
    r->write_ms = MsSince(t_write);
    if (st.ok()) {
      on_disk = true;
    } else {
      // The version still becomes current; the next one is written whole
      // (no delta), since readers lack this one as a base.
      log_->Error("cannot write epoch " + std::to_string(next.global_epoch) + ": " + st.ToString());
    }
  }
  if (have_delta) {
    r->delta = std::make_shared<const std::string>(std::move(delta));
    r->delta_from = previous_.global_epoch;
  }
  r->serialized = std::make_shared<const std::string>(std::move(bytes));
  r->db = std::make_shared<const smdb::Smdb>(next);
  r->new_version = true;
  r->epoch = next.global_epoch;
  previous_ = std::move(next);
  previous_on_disk_ = on_disk;
}

}  // namespace opensm_plugin
}  // namespace ssa
