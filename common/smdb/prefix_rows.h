// prefix_rows.h: the PRDB rows for the prefixes of other subnets (one row
// per remote prefix, not per remote destination): what a consumer needs,
// with its rows for the local router ports, to answer a path record to
// any DGID of another subnet as OpenSM's SA does (off_subnet.h).
//
// A prefix row is a PrdbPath whose DGID is PREFIX:0 (no port has GUID 0):
// one for each prefix a prefix route names before the first wildcard
// route, and one for the wildcard (DGID ::, prefix 0) when there is one;
// prefixes the SA takes as local (fe80::/10, the subnet's own) get none.
// Its SLID and DLID say where the SA sends that prefix: the LID pair of
// the router port it answers (the path's, as ComputeByGid gives it; the
// base LIDs when there is no path), or DLID 0 when it refuses the prefix
// (a route naming no router port). Its other fields are ComputeByGid's
// record to PREFIX:0 when there is a path, for tools; a consumer takes
// the record from its own row for the router port (which the access
// node's patches keep current) and only the choice from the prefix row.
// Keys of other subnets' DGIDs: the row of the DGID's prefix, else the
// wildcard's; none: the SA refuses.
//
// The choice changes only with the prefix routes, the subnet prefix or
// the set of router ports (RouterPortsDiffer): RouteDiff then recomputes
// everything, so the access node writes the PRDB whole.
//
// Pure functions; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_PREFIX_ROWS_H
#define IBACM_SSA_COMMON_SMDB_PREFIX_ROWS_H

#include <cstdint>
#include <vector>

#include "common/smdb/path_engine.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

// Whether `p` is a prefix row (its DGID's interface id is 0).
bool IsPrefixRow(const PrdbPath& p);

// The prefix rows of the source port `src` (an index with a LID), in key
// order, into *out (cleared first); none when the engine's options say
// so (PathEngineOptions::prefix_rows).
void BuildPrefixRows(const PathEngine& engine, uint32_t src, std::vector<PrdbPath>* out);

// The prefix row a consumer looks at for `dgid` (of another subnet), in
// `rows` sorted by DGID (a PRDB's paths): the DGID prefix's, else the
// wildcard's; null when neither is there.
const PrdbPath* FindPrefixRow(const PrdbPath* rows, size_t n, const uint8_t dgid[16]);

// Whether the router ports (port GUID and LIDs of router nodes' ports)
// of two SMDB versions differ: OpenSM's "first router" may then differ.
bool RouterPortsDiffer(const Smdb& a, const Smdb& b);

}  // namespace smdb
}  // namespace ssa

#endif
