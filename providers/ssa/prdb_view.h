// prdb_view.h: one PRDB snapshot (the paths the tree delivered for a
// port) indexed for answering resolves: by destination LID and by
// destination GID, the way the SA answers the sa provider's query (the
// Reversible bit set in the query: non-reversible paths do not exist).
//
// Immutable once built; the provider swaps whole views (shared_ptr), so a
// request never sees half of one epoch.
//
// Built off ibacm's loop (view_builder.h), and two flat arrays, not maps
// (at the full subnet, 48,748 paths, the maps took 8-18 ms). By LID: the
// (SLID, DLID) keys of the reversible records, sorted, searched in
// O(log n). By GID: the PRDB's own order, which sorts records by DGID
// first (smdb_prdb.h); a PRDB not in that order (hand-built) gets an
// order array.
#ifndef IBACM_SSA_PROVIDERS_SSA_PRDB_VIEW_H
#define IBACM_SSA_PROVIDERS_SSA_PRDB_VIEW_H

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "common/smdb/prefix_rows.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace ssa_provider {

class PrdbView {
 public:
  explicit PrdbView(std::shared_ptr<const smdb::Prdb> prdb);

  const smdb::Prdb* prdb() const { return prdb_.get(); }
  uint64_t epoch() const { return prdb_->global_epoch; }
  size_t paths() const { return prdb_->paths.records.size(); }
  uint16_t base_lid() const { return source_.base_lid; }
  uint8_t lmc() const { return source_.lmc; }

  // The record for SLID (our base LID) -> `dlid`; nullptr: no record. A
  // record marked smdb::kPathInexact* is not the SA's answer: the caller
  // must not serve it as such.
  const smdb::PrdbPath* ByLid(uint16_t dlid) const;
  // The record for SGID (ours) -> `dgid`: the first LID pair with a path,
  // (base+k, base+k) first, as OpenSM orders them. For a DGID of another
  // subnet (IsRemote), the record to the router port the PRDB's prefix row
  // names (smdb/prefix_rows.h), found as ByGid finds the router port's:
  // the caller makes it the SA's with smdb::RouteThroughRouter. Null too
  // when the PRDB has no prefix row for it or says the SA refuses it.
  const smdb::PrdbPath* ByGid(const uint8_t dgid[16]) const;
  // Whether the SA takes `dgid` for one of another subnet than ours.
  bool IsRemote(const uint8_t dgid[16]) const;
  // Every local destination GID ByGid knows (one with a reversible
  // record), in GID order: not the prefix rows'.
  template <class F>
  void ForEachDgid(F&& f) const {
    const size_t n = prdb_->paths.records.size();
    for (size_t i = 0; i < n;) {
      const uint8_t* dgid = Record(i).dgid.data();
      bool any = false;
      bool prefix_row = smdb::IsPrefixRow(Record(i));
      for (; i < n && std::memcmp(Record(i).dgid.data(), dgid, 16) == 0; ++i)
        any |= (Record(i).flags & smdb::kPathReversible) != 0;
      if (any && !prefix_row) f(dgid);
    }
  }

 private:
  const smdb::PrdbPath* Find(uint16_t slid, uint16_t dlid) const;
  const smdb::PrdbPath* ByLocalGid(const uint8_t dgid[16]) const;
  // The i-th record in DGID order.
  const smdb::PrdbPath& Record(size_t i) const {
    return prdb_->paths.records[order_.empty() ? i : order_[i]];
  }

  std::shared_ptr<const smdb::Prdb> prdb_;
  smdb::PrdbSource source_;
  // (slid << 16 | dlid) << 32 | record index, of the reversible records,
  // ascending.
  std::vector<uint64_t> by_pair_;
  std::vector<uint32_t> order_;  // record indexes in DGID order; empty: the records' own
  std::vector<smdb::PrdbPath> prefix_rows_;  // by DGID
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
