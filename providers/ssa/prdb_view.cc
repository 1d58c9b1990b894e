// prdb_view.cc: see prdb_view.h.
#include "providers/ssa/prdb_view.h"

#include <algorithm>
#include <cstring>


namespace ssa {
namespace ssa_provider {

PrdbView::PrdbView(std::shared_ptr<const smdb::Prdb> prdb) : prdb_(std::move(prdb)) {
  if (!prdb_->source.records.empty()) source_ = prdb_->source.records[0];
  by_pair_.reserve(prdb_->paths.records.size());
  for (const smdb::PrdbPath& p : prdb_->paths.records) {
    if (!(p.flags & smdb::kPathReversible)) continue;  // the query asks for reversible paths
    by_pair_[uint32_t{p.slid} << 16 | p.dlid] = &p;
    auto& v = dlids_[p.dgid];
    if (std::find(v.begin(), v.end(), p.dlid) == v.end()) v.push_back(p.dlid);
  }
  for (auto& kv : dlids_) std::sort(kv.second.begin(), kv.second.end());
}

const smdb::PrdbPath* PrdbView::Find(uint16_t slid, uint16_t dlid) const {
  auto it = by_pair_.find(uint32_t{slid} << 16 | dlid);
  return it == by_pair_.end() ? nullptr : it->second;
}

const smdb::PrdbPath* PrdbView::ByLid(uint16_t dlid) const {
  return Find(source_.base_lid, dlid);
}

const smdb::PrdbPath* PrdbView::ByGid(const uint8_t dgid[16]) const {
  std::array<uint8_t, 16> key;
  memcpy(key.data(), dgid, 16);
  auto it = dlids_.find(key);
  if (it == dlids_.end()) return nullptr;
  const std::vector<uint16_t>& dl = it->second;
  uint32_t n = 1u << source_.lmc;
  // (base+k, dbase+k) first (Preference 0), then every other pair, source-major.
  for (uint32_t k = 0; k < n && k < dl.size(); ++k)
    if (const smdb::PrdbPath* p = Find(static_cast<uint16_t>(source_.base_lid + k), dl[k]))
      return p;
  for (uint32_t k = 0; k < n; ++k)
    for (uint16_t d : dl)
      if (const smdb::PrdbPath* p = Find(static_cast<uint16_t>(source_.base_lid + k), d)) return p;
  return nullptr;
}

}  // namespace ssa_provider
}  // namespace ssa
