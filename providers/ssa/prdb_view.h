// prdb_view.h: one PRDB snapshot (the paths the tree delivered for a
// port) indexed for answering resolves: by destination LID and by
// destination GID, the way the SA answers the sa provider's query (the
// Reversible bit set in the query: non-reversible paths do not exist).
//
// Immutable once built; the provider swaps whole views (shared_ptr), so a
// request never sees half of one epoch.
#ifndef IBACM_SSA_PROVIDERS_SSA_PRDB_VIEW_H
#define IBACM_SSA_PROVIDERS_SSA_PRDB_VIEW_H

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

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
  // (base+k, base+k) first, as OpenSM orders them.
  const smdb::PrdbPath* ByGid(const uint8_t dgid[16]) const;
  // Every destination GID ByGid knows, in GID order.
  template <class F>
  void ForEachDgid(F&& f) const {
    for (const auto& kv : dlids_) f(kv.first.data());
  }

 private:
  const smdb::PrdbPath* Find(uint16_t slid, uint16_t dlid) const;

  std::shared_ptr<const smdb::Prdb> prdb_;
  smdb::PrdbSource source_;
  std::unordered_map<uint32_t, const smdb::PrdbPath*> by_pair_;     // slid << 16 | dlid
  std::map<std::array<uint8_t, 16>, std::vector<uint16_t>> dlids_;  // DGID -> its DLIDs, ascending
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
