// whole_prdb.h: a consumer's whole PRDB, every path from its port's LIDs
// to every assigned LID: as a Prdb (BuildPrdb) or straight as the bytes
// Prdb::Serialize writes (WritePrdbImage, an access node's bring-up).
//
// Both emit the records PathEngine::ComputePrdb gives each pair, in key
// order. Most pairs are not solved one by one: where nothing in the
// record depends on more than the two walks and the two ends' P_Key
// tables (WholePrdbPlan says when), a record is folded from per-
// destination facts gathered once per engine, the source's row of the
// route-suffix table and one P_Key answer per destination table. A pair
// the fold does not cover (the source itself as destination, a
// destination whose link is not to a switch, a switch whose LFT does not
// send its own LID to port 0, a walk back the table cannot vouch for) is
// solved by ComputePrdb. whole_prdb_test.cc checks every port of
// hundreds of fabrics against ComputePrdb pair by pair, byte for byte.
//
// Why: an access node's bring-up builds every consumer's whole PRDB: at
// 10,000 consumers, 10^8 records; solving each pair (two walks, two P_Key
// checks, a record then its encoding) was most of the bring-up (issue 28).
#ifndef IBACM_SSA_COMMON_SMDB_WHOLE_PRDB_H
#define IBACM_SSA_COMMON_SMDB_WHOLE_PRDB_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/route_suffixes.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

// What the fold reads of each destination LID, in a PRDB's key order
// (SmdbIndex::lids_by_guid): one sequential stream instead of the port,
// its node, its link and its switch's row per record. Built by the
// PathEngine that may fold (PathEngine::whole_prdb_plan()); immutable.
class WholePrdbPlan {
 public:
  enum Kind : uint8_t {
    kSolve,   // every pair solved (ComputePrdb)
    kCa,      // an endpoint linked to a switch: the walk back starts at its first step
    kSwitch,  // a switch's port 0: the walk back leaves through its own LFT
  };
  struct Destination {
    uint64_t guid = 0;  // the DGID's port GUID
    uint32_t port = 0;  // SmdbIndex port index
    // The route-suffix row the walk back reads: kCa, its first step's
    // switch; kSwitch, its own.
    uint32_t row = SmdbIndex::kNone;
    uint32_t pkey_table = SmdbIndex::kNone;
    uint16_t lid = 0;
    Kind kind = kSolve;
    uint8_t rate_caps = 0;
  };
  // The plan for `x` with its route-suffix table `t`.
  WholePrdbPlan(const SmdbIndex& x, const RouteSuffixes& t);
  const std::vector<Destination>& destinations() const { return dest_; }

 private:
  std::vector<Destination> dest_;
};

// Every path (kOk only) from every LID of the port with `port_guid` to
// every assigned LID, and the prefix rows for other subnets' DGIDs
// (prefix_rows.h), as a PRDB stamped with `smdb_epoch`. ENOENT if no
// endpoint port has that GUID. The engine's options say which query the
// records answer: PathEngineOptions::ForPrdb() for what consumers serve.
Status BuildPrdb(const PathEngine& engine, uint64_t port_guid, uint64_t smdb_epoch, Prdb* out);

// The same PRDB serialized (the bytes Prdb::Serialize writes for
// BuildPrdb's PRDB) into *out, whose memory is reused; *paths: its path
// records; *digest (if not null): the CRC32 of all of *out, combined from
// the parts' (no pass over the bytes of its own). On an error *out is
// cleared.
Status WritePrdbImage(const PathEngine& engine, uint64_t port_guid, uint64_t smdb_epoch,
                      std::string* out, size_t* paths, uint32_t* digest = nullptr);

}  // namespace smdb
}  // namespace ssa

#endif
