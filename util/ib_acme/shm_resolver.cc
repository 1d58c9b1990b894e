// shm_resolver.cc: see shm_resolver.h.
#include "util/ib_acme/shm_resolver.h"

#include <ibacm_ssa/path.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace acme {

namespace {

bool IsZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

// The daemon's answer for the library's error, as the socket carries it
// (the reverse of AcmStatusToErrno); transport errors stay errors.
bool ToAcmStatus(int err, uint8_t* status) {
  switch (err) {
    case ENOMEM: *status = acm::kStatusENoMem; return true;
    case EINVAL: *status = acm::kStatusEInval; return true;
    case ENODATA: *status = acm::kStatusENoData; return true;
    case ENOTCONN: *status = acm::kStatusENotConn; return true;
    case ETIMEDOUT: *status = acm::kStatusETimedOut; return true;
    case EADDRNOTAVAIL: *status = acm::kStatusEDestAddr; return true;
    default: return false;
  }
}

size_t AddressBytes(uint16_t type, const std::array<uint8_t, acm::kMaxAddress>& info) {
  if (type == acm::kAddrIp) return 4;
  if (type == acm::kAddrIp6) return 16;
  return strnlen(reinterpret_cast<const char*>(info.data()), info.size());
}

}  // namespace

Status ShmResolver::Open(const std::string& svc, int timeout_ms) {
  Close();
  if (svc.empty() || svc[0] != '/')
    return Status::Error(EINVAL, "--shm needs a unix socket path for -S, not " + svc);
  ibssa_path_options o{};
  o.size = sizeof(o);
  o.timeout_ms = timeout_ms;
  int rc = ibssa_path_open(svc.c_str(), &o, &h_);
  if (rc) return Status::Error(-rc, std::string("ibssa_path_open: ") + strerror(-rc));
  return Status::Ok();
}

void ShmResolver::Close() {
  ibssa_path_close(h_);
  h_ = nullptr;
}

bool ShmResolver::Takes(const std::vector<acm::EpAddr>& entries) {
  for (const acm::EpAddr& e : entries)
    if (e.type == acm::kAddrPath && (e.flags & acm::kFlagQuerySa)) return false;
  return !entries.empty();
}

Status ShmResolver::Resolve(const std::vector<acm::EpAddr>& entries, acm::ResolveResponse* out) {
  *out = acm::ResolveResponse();
  out->hdr.opcode = acm::kOpResolve | acm::kOpAck;
  ibv_path_record path{};
  ibssa_path_answer answer{};
  int rc;
  const acm::EpAddr& dest = entries.back();
  if (dest.type == acm::kAddrPath) {
    ibv_path_record q = dest.path();
    uint16_t pkey = FromBe16(q.pkey);
    // The daemon names the destination by DGID first (sa_resolve.cc).
    if (!IsZero(q.dgid.raw, 16))
      rc = ibssa_path_by_gid(h_, q.sgid.raw, q.dgid.raw, pkey, &path, &answer);
    else
      rc = ibssa_path_by_lid(h_, FromBe16(q.slid), FromBe16(q.dlid), pkey, &path, &answer);
  } else {
    const acm::EpAddr* src = entries.size() > 1 ? &entries.front() : nullptr;
    rc = ibssa_path_by_addr(h_, dest.type, dest.info.data(), AddressBytes(dest.type, dest.info),
                            src ? src->info.data() : nullptr,
                            src ? AddressBytes(src->type, src->info) : 0, &path, &answer);
  }
  if (rc < 0) {
    if (!ToAcmStatus(-rc, &out->hdr.status)) return Status::Error(-rc, strerror(-rc));
    return Status::Ok();
  }
  out->hdr.status = acm::kStatusSuccess;
  acm::PathData pd;
  pd.path = path;
  out->paths.push_back(pd);
  if (answer.src_type) {
    out->has_source = true;
    out->source.flags = acm::kEpFlagSource;
    out->source.type = answer.src_type;
    memcpy(out->source.info.data(), answer.src_addr, out->source.info.size());
  }
  return Status::Ok();
}

bool ShmResolver::TablesUsable(std::string* why) const {
  char text[512];
  int rc = ibssa_path_status(h_, text, sizeof(text));
  *why = text;
  return rc == 0;
}

std::string ShmResolver::StatsLine() const {
  ibssa_path_stats s;
  ibssa_path_get_stats(h_, &s);
  char line[256];
  snprintf(line, sizeof(line),
           "libibssa_path: %llu from the shared-memory tables (epoch %llu), %llu through the "
           "socket, %llu tables rejected, %llu lookups while the daemon was stopped\n",
           static_cast<unsigned long long>(s.table_answers),
           static_cast<unsigned long long>(ibssa_path_epoch(h_, 0)),
           static_cast<unsigned long long>(s.socket_answers),
           static_cast<unsigned long long>(s.bad_tables), static_cast<unsigned long long>(s.stale));
  return line;
}

}  // namespace acme
}  // namespace ssa
