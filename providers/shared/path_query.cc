// path_query.cc: route and pass-through PathRecord queries and the meaning
// of their answers (see path_query.h).
#include "providers/shared/path_query.h"

#include <infiniband/acm.h>

#include <cerrno>
#include <cstring>

#include "common/mad/mad_wire.h"

namespace ssa {
namespace provider_shared {

namespace mad = ssa::mad;

uint64_t BuildRouteQuery(const QuerySource& src, const RouteKey& dest, uint8_t* out) {
  mad::PathRecord q;
  uint64_t mask = 0;
  if (dest.kind == RouteKey::kGid) {
    memcpy(q.sgid, src.sgid, 16);
    memcpy(q.dgid, dest.dest, 16);
    mask |= mad::kPrCompSgid | mad::kPrCompDgid;
  } else {
    q.slid = src.slid;
    q.dlid = dest.lid();
    mask |= mad::kPrCompSlid | mad::kPrCompDlid;
  }
  q.pkey = src.pkey;
  if (q.pkey) mask |= mad::kPrCompPkey;
  // One reversible path, as upstream ibacm asks: the record serves both
  // directions of a connection.
  q.reversible = true;
  q.numb_path = 1;
  mask |= mad::kPrCompReversible | mad::kPrCompNumbPath;
  mad::EncodePathRecordGet(0, q, mask, out);  // TID 0: the core's SA service assigns it
  return mask;
}

uint64_t BuildPassThroughQuery(const ibv_path_record& path, uint8_t* out) {
  mad::PathRecord q;
  mad::FromIbvPathRecord(path, &q);
  uint64_t mask = mad::PathRecordCompMask(q);
  if (q.numb_path) mask |= mad::kPrCompNumbPath;
  if (q.preference) mask |= mad::kPrCompPreference;
  mad::EncodePathRecordGet(0, q, mask, out);  // TID 0: the core's SA service assigns it
  return mask;
}

SaAnswer InterpretSaAnswer(int status, const uint8_t* resp, size_t len) {
  SaAnswer a;
  if (status == -ECANCELED) {
    a.status = ACM_STATUS_ENOTCONN;
    a.why = "SA query cancelled (port closing)";
    return a;
  }
  if (status == -ETIMEDOUT) {
    a.status = ACM_STATUS_ETIMEDOUT;
    a.cacheable = true;
    a.why = "SA query timed out after all retries";
    return a;
  }
  if (status < 0 || !resp) {
    a.status = ACM_STATUS_ENOTCONN;
    a.cacheable = true;
    a.why = std::string("SA query failed: ") + strerror(status < 0 ? -status : EIO);
    return a;
  }
  uint16_t mad_status = mad::MadStatus(resp, len);
  if (mad_status != 0 && mad_status != 0xffff) {
    uint16_t cls = mad_status & mad::kStatusClassMask;
    a.cacheable = true;
    a.why = "SA answered " + mad::DescribeMadStatus(mad_status);
    if (cls == mad::kSaStatusNoRecords || cls == mad::kSaStatusInvalidGid ||
        cls == mad::kSaStatusReqDenied)
      a.status = ACM_STATUS_EDESTADDR;
    else if ((mad_status & mad::kStatusBusy) || cls == mad::kSaStatusNoResources)
      a.status = ACM_STATUS_ENODATA;
    else
      a.status = ACM_STATUS_EINVAL;
    return a;
  }
  mad::PathRecord rec;
  Status st = mad::DecodePathRecordResponse(resp, len, &rec);
  if (!st.ok()) {
    a.status = ACM_STATUS_EINVAL;
    a.why = "bad SA answer: " + st.message();
    return a;
  }
  // The record's bytes as the SA sent them (reserved bytes included), so a
  // client sees exactly what saquery would show.
  memcpy(&a.path, resp + mad::kSaDataOffset, sizeof(a.path));
  a.status = ACM_STATUS_SUCCESS;
  a.cacheable = true;
  return a;
}

}  // namespace provider_shared
}  // namespace ssa
