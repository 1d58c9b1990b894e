// off_subnet.h: where OpenSM's SA (3.3.23, osm_sa_path_record.c,
// osm_pr_get_end_points and find_router) sends a PathRecord query whose
// DGID lies on another subnet, read from an SMDB.
//
// The SA takes a GID for one of another subnet when it is not link-local
// (fe80::/10), not multicast, and its prefix is not opt.subnet_prefix.
// Such a DGID goes to a local router port: the first prefix route (the
// prefix_routes table, OpenSM's prefix_routes_file, in its order) whose
// prefix is that DGID's or 0 ("*") decides, and only the first: a route
// naming a port GUID that is no router port of the subnet makes the SA
// refuse the query (ERR_NO_RECORDS: it logs the reason, INVALID_GID, and
// answers an empty list) even when a later route would serve.
// A route with GUID 0 ("*") names "the first router": the head of
// OpenSM's router table, a map keyed by port GUIDs in network byte order
// and compared as host integers of the SM's host (kSubnetSmBigEndian): on
// a little-endian one the router port whose byte-swapped GUID is smallest
// (measured on ibsim: of 0x0100000000000a01 and 0x0200000000000501 the SA
// picks the second), on a big-endian one the smallest GUID.
// No route, or no router: the SA refuses the query.
//
// Pure functions of the SmdbIndex; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_OFF_SUBNET_H
#define IBACM_SSA_COMMON_SMDB_OFF_SUBNET_H

#include <infiniband/sa.h>

#include <cstdint>

#include "common/smdb/smdb_index.h"

namespace ssa {
namespace smdb {

// fe80::/10, which the SA takes as local whatever the subnet prefix.
inline bool IsLinkLocalGid(const uint8_t gid[16]) {
  return gid[0] == 0xFE && (gid[1] & 0xC0) == 0x80;
}
inline bool IsMulticastGid(const uint8_t gid[16]) { return gid[0] == 0xFF; }
// The GID's first 8 bytes as a host-order prefix.
uint64_t GidPrefix(const uint8_t gid[16]);
// The GID's last 8 bytes as a host-order interface id (port GUID).
uint64_t GidGuid(const uint8_t gid[16]);

// The SA's test for a DGID of another subnet.
inline bool IsOffSubnetDgid(const uint8_t dgid[16], uint64_t subnet_prefix) {
  return !IsLinkLocalGid(dgid) && !IsMulticastGid(dgid) && GidPrefix(dgid) != subnet_prefix;
}
// The SA's test for an SGID it refuses (INVALID_GID): not link-local and
// of another prefix.
inline bool IsForeignSgid(const uint8_t sgid[16], uint64_t subnet_prefix) {
  return !IsLinkLocalGid(sgid) && GidPrefix(sgid) != subnet_prefix;
}

// The port GUID of the router port the SA sends a DGID with this prefix
// (host order) to; 0 when it refuses the query.
uint64_t RouterPortFor(const SmdbIndex& index, uint64_t prefix);
// OpenSM's "first router" (the head of its router table, see above); 0
// when the subnet has no router port.
uint64_t FirstRouterPort(const SmdbIndex& index);

// What the SA writes into the path to the router port for an off-subnet
// `dgid` (pr_rcv_build_pr): that DGID, HopLimit 255, FlowLabel 0 (TClass
// is 0 in every record it answers). *rec is in network order.
void RouteThroughRouter(const uint8_t dgid[16], ibv_path_record* rec);

}  // namespace smdb
}  // namespace ssa

#endif
