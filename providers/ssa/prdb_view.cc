// prdb_view.cc: see prdb_view.h.
#include "providers/ssa/prdb_view.h"

#include <algorithm>
#include <cstring>

#include "common/smdb/off_subnet.h"

namespace ssa {
namespace ssa_provider {

PrdbView::PrdbView(std::shared_ptr<const smdb::Prdb> prdb) : prdb_(std::move(prdb)) {
  if (!prdb_->source.records.empty()) source_ = prdb_->source.records[0];
  const std::vector<smdb::PrdbPath>& r = prdb_->paths.records;
  auto dgid_less = [&r](uint32_t a, uint32_t b) {
    return std::memcmp(r[a].dgid.data(), r[b].dgid.data(), 16) < 0;
  };
  bool by_dgid = true;
  for (size_t i = 1; i < r.size() && by_dgid; ++i)
    by_dgid = std::memcmp(r[i - 1].dgid.data(), r[i].dgid.data(), 16) <= 0;
  if (!by_dgid) {
    order_.resize(r.size());
    for (uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::stable_sort(order_.begin(), order_.end(), dgid_less);
  }
  by_pair_.reserve(r.size());
  for (uint32_t i = 0; i < r.size(); ++i) {
    if (smdb::IsPrefixRow(r[i])) {  // a choice of router, not a path of its own
      prefix_rows_.push_back(r[i]);
      continue;
    }
    if (!(r[i].flags & smdb::kPathReversible)) continue;  // the query asks for reversible paths
    by_pair_.push_back(uint64_t{uint32_t{r[i].slid} << 16 | r[i].dlid} << 32 | i);
  }
  std::sort(by_pair_.begin(), by_pair_.end());
  std::sort(prefix_rows_.begin(), prefix_rows_.end(),
            [](const smdb::PrdbPath& a, const smdb::PrdbPath& b) {
              return std::memcmp(a.dgid.data(), b.dgid.data(), 16) < 0;
            });
}

bool PrdbView::IsRemote(const uint8_t dgid[16]) const {
  return smdb::IsOffSubnetDgid(dgid, source_.subnet_prefix);
}

const smdb::PrdbPath* PrdbView::Find(uint16_t slid, uint16_t dlid) const {
  // Of records sharing a pair (hand-built PRDBs only: BuildPrdb makes one
  // per pair) the last in record order answers, as it always did.
  const uint64_t pair = uint32_t{slid} << 16 | dlid;
  auto it = std::upper_bound(by_pair_.begin(), by_pair_.end(), pair << 32 | 0xFFFFFFFFu);
  if (it == by_pair_.begin() || (*--it >> 32) != pair) return nullptr;
  return &prdb_->paths.records[static_cast<uint32_t>(*it)];
}

const smdb::PrdbPath* PrdbView::ByLid(uint16_t dlid) const { return Find(source_.base_lid, dlid); }

const smdb::PrdbPath* PrdbView::ByGid(const uint8_t dgid[16]) const {
  if (!IsRemote(dgid)) return ByLocalGid(dgid);
  const smdb::PrdbPath* row = smdb::FindPrefixRow(prefix_rows_.data(), prefix_rows_.size(), dgid);
  if (!row || row->dlid == 0) return nullptr;  // no prefix row, or the SA refuses the prefix
  // The router port the row names (by the LID pair chosen when it was
  // made), and the SA's record to it from the current rows.
  const smdb::PrdbPath* router = Find(row->slid, row->dlid);
  return router ? ByLocalGid(router->dgid.data()) : nullptr;
}

const smdb::PrdbPath* PrdbView::ByLocalGid(const uint8_t dgid[16]) const {
  // The records of `dgid`: one run in DGID order.
  size_t lo = 0, hi = prdb_->paths.records.size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (std::memcmp(Record(mid).dgid.data(), dgid, 16) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  // Its DLIDs (of reversible records), ascending, once each: one port's
  // LMC range, at most 128 (no allocation on a resolve). A PRDB naming
  // more for one GID is not one a tree makes; past 128 the rest are
  // ignored.
  uint16_t dl[128];
  size_t m = 0;
  for (size_t i = lo;
       i < prdb_->paths.records.size() && std::memcmp(Record(i).dgid.data(), dgid, 16) == 0; ++i) {
    if (!(Record(i).flags & smdb::kPathReversible)) continue;
    const uint16_t d = Record(i).dlid;
    size_t at = std::lower_bound(dl, dl + m, d) - dl;
    if ((at < m && dl[at] == d) || m == 128) continue;
    std::memmove(dl + at + 1, dl + at, (m - at) * sizeof(dl[0]));
    dl[at] = d;
    ++m;
  }
  uint32_t n = 1u << source_.lmc;
  // (base+k, dbase+k) first (Preference 0), then every other pair, source-major.
  for (uint32_t k = 0; k < n && k < m; ++k)
    if (const smdb::PrdbPath* p = Find(static_cast<uint16_t>(source_.base_lid + k), dl[k]))
      return p;
  for (uint32_t k = 0; k < n; ++k)
    for (size_t j = 0; j < m; ++j)
      if (const smdb::PrdbPath* p = Find(static_cast<uint16_t>(source_.base_lid + k), dl[j]))
        return p;
  return nullptr;
}

}  // namespace ssa_provider
}  // namespace ssa
