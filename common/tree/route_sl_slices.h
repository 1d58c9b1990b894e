// route_sl_slices.h: the core's route-SL slices (doc/fidelity.md, "Engine
// SLs per access node"). When a routing engine's path SLs differ from the
// hint for more pairs than every SMDB should carry, the plugin leaves them
// out of the SMDB (kSubnetRouteSlSlices) and hands the rows to the core,
// which sends each access node only the rows of the ports it serves, as
// parent or as backup: its route-SL slice, an Smdb holding guid_lids (the
// ports covered), route_sls and route_sl_hints (route_sl_table.h). A slice
// is served on the core's own data channel under "routesl:<access GUID>"
// (DbKind::kRouteSl), full then as deltas like any database.
//
// When slices change: a new routing (new rows, a new generation: the
// SMDB's route_sl_hints epoch) changes every one; a consumer joining,
// leaving or moving changes those of the access nodes involved. The
// membership changes at every join, so the core calls Refresh() a moment
// after the last change (RefreshSoon) and only slices whose ports or
// generation changed are cut again.
//
// Epochs: a slice's global epoch is the SMDB epoch it was cut at, shifted
// left 32 bits, plus a count of refreshes since: it grows with every
// version, and across an SM failover too (SMDB epochs never go back).
//
// Ownership: borrows the reactor, the data server and the membership (the
// CoreServer's). Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_ROUTE_SL_SLICES_H
#define IBACM_SSA_COMMON_TREE_ROUTE_SL_SLICES_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/log.h"
#include "common/base/reactor.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "common/tree/data_server.h"
#include "common/tree/membership.h"

namespace ssa {
namespace tree {

// The engine's rows the SMDB left out, sorted by (slid, dlid, hint).
using RouteSlRows = std::shared_ptr<const std::vector<smdb::SmdbRouteSl>>;

// One access node's slice of `rows`: the rows whose source LID belongs to
// one of `ports` (port GUIDs; those `index` does not know are left out),
// those ports' guid_lids records, and `db`'s route_sl_hints with its epoch.
// Epochs other than route_sl_hints' are left to the caller.
void CutRouteSlSlice(const smdb::Smdb& db, const smdb::SmdbIndex& index,
                     const std::vector<smdb::SmdbRouteSl>& rows, const std::vector<uint64_t>& ports,
                     smdb::Smdb* out);

// The data server key of an access node's slice.
std::string RouteSlKey(uint64_t access_guid);

class RouteSlSlices {
 public:
  RouteSlSlices(Reactor* reactor, Logger* log, DataServer* server, const Membership* membership);
  ~RouteSlSlices();
  RouteSlSlices(const RouteSlSlices&) = delete;
  RouteSlSlices& operator=(const RouteSlSlices&) = delete;

  // A new SMDB (borrowed with its index until the next call) and the rows
  // it left out (null: the SMDB carries them or there are none): slices
  // are cut again at once when the rows changed.
  void OnSmdb(std::shared_ptr<const smdb::Smdb> db, std::shared_ptr<const smdb::SmdbIndex> index,
              RouteSlRows rows);
  // The membership changed: refreshes within a moment.
  void RefreshSoon();
  // Whether there are slices to serve (the SMDB leaves rows out).
  bool active() const { return rows_ != nullptr; }
  size_t slices() const { return cut_.size(); }
  uint64_t versions_published() const { return versions_; }

 private:
  struct Cut {
    std::vector<uint64_t> ports;
    uint64_t generation = 0;
    uint64_t guid_lids_epoch = 0;  // the SMDB's LIDs it was cut with
    std::shared_ptr<const smdb::Smdb> slice;
  };
  void Refresh();

  Reactor* reactor_;
  Logger* log_;
  DataServer* server_;
  const Membership* membership_;
  std::shared_ptr<const smdb::Smdb> db_;
  std::shared_ptr<const smdb::SmdbIndex> index_;
  RouteSlRows rows_;
  std::map<uint64_t, Cut> cut_;  // by access node GUID
  uint64_t refreshes_ = 0;       // since db_'s epoch
  uint64_t versions_ = 0;
  Reactor::TimerId timer_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
