// route_sl_table.h: the routing engine's path SLs as the path engine looks
// them up (route_sls and route_sl_hints, smdb_qos_records.h): for a pair
// (slid, dlid) and the SL the SA hands the engine as the hint, the SL the
// engine answers and how many SLs from it DFSSSP draws among.
//
// Two sources fill one:
//   - an SMDB that carries every pair (kSubnetRouteSls): every source LID
//     is covered;
//   - a route-SL slice (kSubnetRouteSlSlices, doc/fidelity.md): the core
//     keeps the rows and sends each access node only those of the ports it
//     serves. A slice is an Smdb holding just guid_lids (the ports whose
//     rows it has: their whole LID ranges are covered), route_sls and
//     route_sl_hints. Its route_sl_hints table epoch is the routing it was
//     cut from (`generation`), which must equal the SMDB's for it to apply.
// A source LID that is not covered has no answer (Find() false), and the
// engine then marks the record not exact.
//
// Immutable once built; const methods may run concurrently.
#ifndef IBACM_SSA_COMMON_SMDB_ROUTE_SL_TABLE_H
#define IBACM_SSA_COMMON_SMDB_ROUTE_SL_TABLE_H

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace smdb {

class RouteSlTable {
 public:
  RouteSlTable() = default;

  // From `db`'s route_sl_hints and route_sls. `slice`: `db` is a slice,
  // and only its guid_lids' LID ranges are covered; else every source LID
  // is. EINVAL (naming the table) for rows out of key order or SL ranges
  // past SL 15, which no SA answers.
  static Status Build(const Smdb& db, bool slice, RouteSlTable* out);

  // The engine's SL for slid -> dlid under `hint` (`hint` itself unless a
  // row says otherwise) and in *span how many SLs from *sl it draws among
  // (1: exactly *sl). False when the hint or the source LID is not covered.
  bool Find(uint16_t slid, uint16_t dlid, uint8_t hint, uint8_t* sl, uint8_t* span) const;
  // Whether the rows of source LID `slid` are here.
  bool Covers(uint16_t slid) const;

  // The route_sl_hints table epoch: which routing the rows are of, as
  // numbered by the SM whose port is sm_port_guid() (another core numbers
  // its own routings: after an SM failover the same number may name
  // another routing).
  uint64_t generation() const { return generation_; }
  uint64_t sm_port_guid() const { return sm_port_guid_; }
  // Whether these rows are of the routing of an SMDB with this subnet
  // record and route_sl_hints table epoch.
  bool Of(const SmdbSubnet& subnet, uint64_t generation) const {
    return generation_ == generation && sm_port_guid_ == subnet.sm_port_guid;
  }
  uint16_t hints() const { return hints_; }
  size_t rows() const { return keys_.size(); }
  bool is_slice() const { return slice_; }
  // Covered LID ranges of a slice: (first LID, count), ascending.
  const std::vector<std::pair<uint16_t, uint16_t>>& covered() const { return covered_; }

 private:
  bool slice_ = false;
  uint64_t generation_ = 0;
  uint64_t sm_port_guid_ = 0;
  uint16_t hints_ = 0;                    // bit k: hint k is covered
  std::array<uint8_t, 16> hint_spans_{};  // span of unlisted pairs, per hint
  std::vector<uint64_t> keys_;            // slid << 24 | dlid << 8 | hint, ascending
  std::vector<uint8_t> values_;           // sl | (span - 1) << 4
  std::vector<std::pair<uint16_t, uint16_t>> covered_;
};

}  // namespace smdb
}  // namespace ssa

#endif
