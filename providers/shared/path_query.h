// path_query.h: the SubnAdmGet(PathRecord) MADs the sa and acmp providers
// send and what they make of the answers.
//
// Route queries (cached resolves) ask for one reversible path with the
// endpoint's P_Key, by the pair of identifiers the destination was given
// as, the way saquery asks:
//   GID destination: SGID + DGID + P_Key + Reversible + NumbPath (1)
//                    (as `saquery -p --sgid-to-dgid S-D`)
//   LID destination: SLID + DLID + P_Key + Reversible + NumbPath (1)
//                    (as `saquery -p --slid S --dlid D`)
// QUERY_SA requests pass the client's record through: the component mask
// has a bit for each field the client set (upstream ibacm's rule), nothing
// forced.
//
// Pure functions on caller-owned buffers; any thread.
#ifndef IBACM_SSA_PROVIDERS_SHARED_PATH_QUERY_H
#define IBACM_SSA_PROVIDERS_SHARED_PATH_QUERY_H

#include <infiniband/sa.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "providers/shared/route_key.h"

namespace ssa {
namespace provider_shared {

// What the endpoint contributes to a route query (host order, GID bytes).
struct QuerySource {
  uint8_t sgid[16] = {};
  uint16_t slid = 0;
  uint16_t pkey = 0;
};

// Writes the 256-byte route query for `dest` into `mad`; returns its
// component mask.
uint64_t BuildRouteQuery(const QuerySource& src, const RouteKey& dest, uint8_t* mad);

// Writes the 256-byte pass-through query for `path` (network order, as a
// client sent it); returns its component mask.
uint64_t BuildPassThroughQuery(const ibv_path_record& path, uint8_t* mad);

// What an SA completion means for the requests waiting on it.
struct SaAnswer {
  uint8_t status = 0;      // ACM_STATUS_*
  bool cacheable = false;  // may go into the (negative) cache
  ibv_path_record path{};  // on success: the record bytes exactly as the SA sent them
  std::string why;         // for the log
};
// `status`, `mad`, `len` as ssa_sa_done_fn receives them:
//   answer with a record            -> SUCCESS, cacheable
//   SA ERR_NO_RECORDS, ERR_INVALID_GID, ERR_REQ_DENIED
//                                   -> EDESTADDR (no such destination, or none
//                                      reachable with this P_Key), cacheable
//   SA busy, ERR_NO_RESOURCES       -> ENODATA (try later), cacheable
//   other SA errors                 -> EINVAL, cacheable (the same query fails again)
//   malformed answer                -> EINVAL, not cacheable
//   -ETIMEDOUT after the retries    -> ETIMEDOUT, cacheable
//   -ECANCELED (the port is closing)-> ENOTCONN, not cacheable
//   another -errno (no SM, ...)     -> ENOTCONN, cacheable
SaAnswer InterpretSaAnswer(int status, const uint8_t* mad, size_t len);

}  // namespace provider_shared
}  // namespace ssa

#endif
