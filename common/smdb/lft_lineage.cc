// lft_lineage.cc: LftLineage (lft_lineage.h).
#include "common/smdb/lft_lineage.h"

#include <algorithm>
#include <atomic>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace smdb {
namespace {

// Process-wide: two lineages never hand out the same serial, so a buffer
// recycled across them (a test's, or a second service's) never matches.
std::atomic<uint64_t> next_serial{1};

}  // namespace

uint64_t LftLineage::Add(const Smdb& db, const std::string* delta) {
  Version v;
  v.serial = next_serial.fetch_add(1);
  v.epoch = db.global_epoch;
  DeltaTableKeys k;
  // The delta must read and end at this version; else nothing is known of it.
  const bool read =
      delta && ReadDeltaLftBlocks(*delta, &k, &v.blocks).ok() && k.new_epoch == db.global_epoch;
  if (read) {
    v.has_digest = true;
    v.digest = k.new_digest;
  } else {
    v.blocks.clear();
  }
  MutexLock lock(&mutex_);
  if (read && !versions_.empty()) {
    const Version& before = versions_.back();
    v.chained = before.has_digest && before.epoch == k.base_epoch && before.digest == k.base_digest;
  }
  versions_.push_back(std::move(v));
  while (versions_.size() > depth_) versions_.pop_front();
  return versions_.back().serial;
}

bool LftLineage::ChangedBlocks(uint64_t from, uint64_t to, std::vector<Block>* blocks) const {
  blocks->clear();
  if (from == 0 || to == 0) return false;
  MutexLock lock(&mutex_);
  auto by_serial = [this](uint64_t s) REQUIRES(mutex_) {
    return std::find_if(versions_.begin(), versions_.end(),
                        [s](const Version& v) { return v.serial == s; });
  };
  auto f = by_serial(from), t = by_serial(to);
  if (f == versions_.end() || t == versions_.end() || t < f) return false;
  for (auto it = f + 1; it <= t; ++it) {
    if (!it->chained) {
      blocks->clear();
      return false;
    }
    blocks->insert(blocks->end(), it->blocks.begin(), it->blocks.end());
  }
  std::sort(blocks->begin(), blocks->end());
  blocks->erase(std::unique(blocks->begin(), blocks->end()), blocks->end());
  return true;
}

}  // namespace smdb
}  // namespace ssa
