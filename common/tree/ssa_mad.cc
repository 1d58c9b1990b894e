// ssa_mad.cc: the SSA control MAD codecs (layouts in ssa_mad.h).
#include "common/tree/ssa_mad.h"

#include <arpa/inet.h>

#include <cstring>

#include "common/base/big_endian.h"
#include "common/base/text_util.h"

namespace ssa {
namespace tree {
namespace {

constexpr size_t kAttr = mad::kMadHeaderSize;  // 24: first attribute byte
// Receivers check reserved bytes only up to here: on the simulated fabric
// bytes 224..255 of a received MAD are not what was sent (umad2sim), so
// the protocol keeps every field below 224 and ignores the rest.
constexpr size_t kCheckedEnd = 224;

void Header(uint8_t method, uint16_t attr, uint64_t tid, uint16_t status, uint8_t* mad) {
  memset(mad, 0, mad::kMadSize);
  mad::MadHeader h;
  h.mgmt_class = kSsaClass;
  h.class_version = kSsaClassVersion;
  h.method = method;
  h.status = status;
  h.tid = tid;
  h.attr_id = attr;
  mad::EncodeMadHeader(h, mad);
}

void PutAddress(const DataAddress& a, uint8_t* p) {
  p[0] = a.family;
  PutBe16(p + 1, a.port);
  memcpy(p + 3, a.addr.data(), 16);
}

Status GetAddress(const uint8_t* p, const char* field, DataAddress* a) {
  a->family = p[0];
  a->port = GetBe16(p + 1);
  memcpy(a->addr.data(), p + 3, 16);
  if (a->family != 0 && a->family != 4 && a->family != 6)
    return Status::Error(EBADMSG,
                         std::string(field) + ": address family " + std::to_string(a->family));
  if (a->family == 4)
    for (int i = 4; i < 16; ++i)
      if (a->addr[i]) return Status::Error(EBADMSG, std::string(field) + ": IPv4 padding not zero");
  if (a->family == 0 && (a->port || a->addr != std::array<uint8_t, 16>{}))
    return Status::Error(EBADMSG, std::string(field) + ": empty address with bytes set");
  return Status::Ok();
}

Status Zero(const uint8_t* mad, size_t from, size_t to, const char* what) {
  for (size_t i = from; i < to; ++i)
    if (mad[i])
      return Status::Error(
          EBADMSG, std::string(what) + ": reserved byte " + std::to_string(i) + " not zero");
  return Status::Ok();
}

void PutParent(const ParentInfo& p, uint8_t* at) {
  PutBe64(at, p.guid);
  PutBe16(at + 8, p.lid);
  PutAddress(p.address, at + 10);
}

Status GetParent(const uint8_t* at, const char* field, ParentInfo* p) {
  p->guid = GetBe64(at);
  p->lid = GetBe16(at + 8);
  Status st = GetAddress(at + 10, field, &p->address);
  if (!st.ok()) return st;
  if (p->guid == 0 && (p->lid || !p->address.empty()))
    return Status::Error(EBADMSG, std::string(field) + ": no GUID but a LID or address");
  return Status::Ok();
}

}  // namespace

std::string RolesName(uint8_t roles) {
  std::string s;
  auto add = [&s](const char* n) { s += s.empty() ? n : std::string(",") + n; };
  if (roles & kRoleDistribution) add("distribution");
  if (roles & kRoleAccess) add("access");
  if (roles & kRoleConsumer) add("consumer");
  return s.empty() ? "none" : s;
}

std::string DescribeSsaStatus(uint16_t status) {
  switch (status) {
    case 0: return "success";
    case kStatusBadVersion: return "bad version";
    case kStatusInvalidField: return "invalid field";
    case kStatusRetry: return "no parent available yet, retry";
    case kStatusNotAllowed: return "role not allowed for this GUID";
    case kStatusIdentity: return "source LID does not own the claimed GUID";
    case kStatusUnknownMember: return "unknown member or token";
    default:
      return "status 0x" + [status] {
        char b[8];
        snprintf(b, sizeof(b), "%04x", status);
        return std::string(b);
      }();
  }
}

std::string DataAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = "";
  if (family == 4)
    inet_ntop(AF_INET, addr.data(), buf, sizeof(buf));
  else if (family == 6)
    inet_ntop(AF_INET6, addr.data(), buf, sizeof(buf));
  else
    return "";
  std::string host = family == 6 ? std::string("[") + buf + "]" : buf;
  return host + ":" + std::to_string(port);
}

Status DataAddress::Parse(const std::string& text, DataAddress* out) {
  DataAddress a;
  std::string host, port;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return Status::Error(EINVAL, "'" + text + "': expected [IPv6]:PORT");
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
    a.family = 6;
    if (inet_pton(AF_INET6, host.c_str(), a.addr.data()) != 1)
      return Status::Error(EINVAL, "'" + host + "' is not an IPv6 address");
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos)
      return Status::Error(EINVAL, "'" + text + "': expected ADDR:PORT");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    a.family = 4;
    if (inet_pton(AF_INET, host.c_str(), a.addr.data()) != 1)
      return Status::Error(EINVAL, "'" + host + "' is not an IPv4 address");
  }
  char* end = nullptr;
  unsigned long p = strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end || p > 65535)
    return Status::Error(EINVAL, "'" + port + "' is not a port number");
  a.port = static_cast<uint16_t>(p);
  *out = a;
  return Status::Ok();
}

bool operator==(const DataAddress& a, const DataAddress& b) {
  return a.family == b.family && a.port == b.port && a.addr == b.addr;
}

void EncodeJoin(const JoinRequest& r, uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodSet, kAttrJoin, tid, 0, mad);
  uint8_t* p = mad + kAttr;
  p[0] = r.roles;
  PutBe16(p + 2, r.protocol);
  PutBe64(p + 4, r.port_guid);
  memcpy(p + 12, r.port_gid.data(), 16);
  PutBe64(p + 28, r.epoch);
  memcpy(p + 36, r.token.data(), 16);
  PutBe64(p + 52, r.lost_parent);
  PutAddress(r.data_address, p + 60);
  size_t n = std::min<size_t>(r.software.size(), 32);
  p[79] = static_cast<uint8_t>(n);
  memcpy(p + 80, r.software.data(), n);
  PutBe64(p + 112, r.counters.full_transfers);
  PutBe64(p + 120, r.counters.delta_transfers);
  PutBe64(p + 128, r.counters.bytes_sent);
  PutBe64(p + 136, r.counters.refused);
  PutBe32(p + 144, r.counters.children);
  PutBe32(p + 148, r.counters.reconnects);
  PutBe64(p + 152, r.addr_epoch);
  PutBe32(p + 160, r.digest);
  PutBe32(p + 164, r.addr_digest);
}

Status DecodeJoin(const uint8_t* mad, JoinRequest* r) {
  const uint8_t* p = mad + kAttr;
  JoinRequest j;
  j.roles = p[0];
  if (j.roles == 0 || (j.roles & ~(kRoleDistribution | kRoleAccess | kRoleConsumer)))
    return Status::Error(EBADMSG, "join: roles " + HexText(j.roles) + " invalid");
  if ((j.roles & kRoleConsumer) && j.roles != kRoleConsumer)
    return Status::Error(EBADMSG, "join: a consumer takes no other role");
  if (p[1]) return Status::Error(EBADMSG, "join: reserved byte 25 not zero");
  j.protocol = GetBe16(p + 2);
  j.port_guid = GetBe64(p + 4);
  if (j.port_guid == 0) return Status::Error(EBADMSG, "join: port GUID 0");
  memcpy(j.port_gid.data(), p + 12, 16);
  j.epoch = GetBe64(p + 28);
  memcpy(j.token.data(), p + 36, 16);
  j.lost_parent = GetBe64(p + 52);
  Status st = GetAddress(p + 60, "join: data_address", &j.data_address);
  if (!st.ok()) return st;
  if (p[79] > 32) return Status::Error(EBADMSG, "join: software text longer than 32");
  j.software.assign(reinterpret_cast<const char*>(p + 80), p[79]);
  st = Zero(mad, kAttr + 80 + p[79], kAttr + 112, "join: software padding");
  if (!st.ok()) return st;
  j.counters.full_transfers = GetBe64(p + 112);
  j.counters.delta_transfers = GetBe64(p + 120);
  j.counters.bytes_sent = GetBe64(p + 128);
  j.counters.refused = GetBe64(p + 136);
  j.counters.children = GetBe32(p + 144);
  j.counters.reconnects = GetBe32(p + 148);
  j.addr_epoch = GetBe64(p + 152);
  j.digest = GetBe32(p + 160);
  j.addr_digest = GetBe32(p + 164);
  st = Zero(mad, kAttr + 168, kCheckedEnd, "join");
  if (!st.ok()) return st;
  *r = j;
  return Status::Ok();
}

void EncodeJoinAnswer(const JoinAnswer& a, uint64_t tid, uint16_t status, uint8_t* mad) {
  Header(mad::kMethodGetResp, kAttrJoin, tid, status, mad);
  uint8_t* p = mad + kAttr;
  PutParent(a.parent, p);
  PutParent(a.backup, p + 30);
  memcpy(p + 60, a.token.data(), 16);
  PutBe32(p + 76, a.lease_s);
  PutBe32(p + 80, a.renew_s);
  PutBe64(p + 84, a.core_epoch);
  memcpy(p + 92, a.parent.key.data(), 16);
  memcpy(p + 108, a.backup.key.data(), 16);
  memcpy(p + 124, a.core_key.data(), 16);
  memcpy(p + 140, a.smdb_sha256.data(), 32);
}

Status DecodeJoinAnswer(const uint8_t* mad, JoinAnswer* out) {
  const uint8_t* p = mad + kAttr;
  JoinAnswer a;
  Status st = GetParent(p, "join answer: parent", &a.parent);
  if (st.ok()) st = Zero(mad, kAttr + 29, kAttr + 30, "join answer");
  if (st.ok()) st = GetParent(p + 30, "join answer: backup", &a.backup);
  if (st.ok()) st = Zero(mad, kAttr + 59, kAttr + 60, "join answer");
  if (!st.ok()) return st;
  memcpy(a.token.data(), p + 60, 16);
  a.lease_s = GetBe32(p + 76);
  a.renew_s = GetBe32(p + 80);
  a.core_epoch = GetBe64(p + 84);
  memcpy(a.parent.key.data(), p + 92, 16);
  memcpy(a.backup.key.data(), p + 108, 16);
  memcpy(a.core_key.data(), p + 124, 16);
  memcpy(a.smdb_sha256.data(), p + 140, 32);
  if (a.parent.guid && (a.lease_s == 0 || a.renew_s == 0 || a.renew_s > a.lease_s))
    return Status::Error(EBADMSG, "join answer: lease " + std::to_string(a.lease_s) + " s, renew " +
                                      std::to_string(a.renew_s) + " s");
  st = Zero(mad, kAttr + 172, kCheckedEnd, "join answer");
  if (!st.ok()) return st;
  *out = a;
  return Status::Ok();
}

void EncodeLeave(const LeaveRequest& r, uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodSet, kAttrLeave, tid, 0, mad);
  PutBe64(mad + kAttr, r.port_guid);
  memcpy(mad + kAttr + 8, r.token.data(), 16);
}

Status DecodeLeave(const uint8_t* mad, LeaveRequest* r) {
  r->port_guid = GetBe64(mad + kAttr);
  memcpy(r->token.data(), mad + kAttr + 8, 16);
  return Zero(mad, kAttr + 24, kCheckedEnd, "leave");
}

void EncodeTokenCheck(const TokenCheckRequest& r, uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodGet, kAttrTokenCheck, tid, 0, mad);
  PutBe64(mad + kAttr, r.child_guid);
  memcpy(mad + kAttr + 8, r.token.data(), 16);
  PutBe64(mad + kAttr + 24, r.parent_guid);
}

Status DecodeTokenCheck(const uint8_t* mad, TokenCheckRequest* r) {
  r->child_guid = GetBe64(mad + kAttr);
  memcpy(r->token.data(), mad + kAttr + 8, 16);
  r->parent_guid = GetBe64(mad + kAttr + 24);
  return Zero(mad, kAttr + 32, kCheckedEnd, "token check");
}

void EncodeTokenCheckAnswer(const TokenCheckAnswer& a, uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodGetResp, kAttrTokenCheck, tid, 0, mad);
  mad[kAttr] = a.valid ? 1 : 0;
  mad[kAttr + 1] = a.roles;
  PutBe16(mad + kAttr + 2, a.reason);
  PutBe32(mad + kAttr + 4, a.lease_left_s);
  if (a.valid) memcpy(mad + kAttr + 8, a.key.data(), 16);
}

Status DecodeTokenCheckAnswer(const uint8_t* mad, TokenCheckAnswer* a) {
  if (mad[kAttr] > 1) return Status::Error(EBADMSG, "token check answer: valid not 0/1");
  a->valid = mad[kAttr] == 1;
  a->roles = mad[kAttr + 1];
  a->reason = GetBe16(mad + kAttr + 2);
  a->lease_left_s = GetBe32(mad + kAttr + 4);
  if (a->valid != (a->reason == kCheckOk))
    return Status::Error(EBADMSG, "token check answer: valid and reason disagree");
  memcpy(a->key.data(), mad + kAttr + 8, 16);
  return Zero(mad, kAttr + (a->valid ? 24 : 8), kCheckedEnd, "token check answer");
}

void EncodeCoreInfo(uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodGet, kAttrCoreInfo, tid, 0, mad);
}

void EncodeCoreInfoAnswer(const CoreInfoAnswer& a, uint64_t tid, uint8_t* mad) {
  Header(mad::kMethodGetResp, kAttrCoreInfo, tid, 0, mad);
  PutBe64(mad + kAttr, a.core_guid);
  PutBe16(mad + kAttr + 8, a.core_lid);
  PutAddress(a.data_address, mad + kAttr + 10);
  PutBe64(mad + kAttr + 30, a.epoch);
  PutBe32(mad + kAttr + 38, a.members);
}

Status DecodeCoreInfoAnswer(const uint8_t* mad, CoreInfoAnswer* a) {
  a->core_guid = GetBe64(mad + kAttr);
  a->core_lid = GetBe16(mad + kAttr + 8);
  Status st = GetAddress(mad + kAttr + 10, "core info: data_address", &a->data_address);
  if (st.ok()) st = Zero(mad, kAttr + 29, kAttr + 30, "core info");
  if (!st.ok()) return st;
  a->epoch = GetBe64(mad + kAttr + 30);
  a->members = GetBe32(mad + kAttr + 38);
  return Zero(mad, kAttr + 42, kCheckedEnd, "core info");
}

void EncodeStatusAnswer(uint16_t attr_id, uint64_t tid, uint16_t status, uint8_t* mad) {
  Header(mad::kMethodGetResp, attr_id, tid, status, mad);
}

Status DecodeSsaHeader(const uint8_t* mad, size_t len, mad::MadHeader* h) {
  if (len != mad::kMadSize)
    return Status::Error(EBADMSG, "SSA MAD of " + std::to_string(len) + " bytes, not 256");
  Status st = mad::DecodeMadHeader(mad, len, h);
  if (!st.ok()) return st;
  if (h->base_version != mad::kBaseVersion || h->mgmt_class != kSsaClass)
    return Status::Error(EBADMSG, "not an SSA MAD (base version " +
                                      std::to_string(h->base_version) + ", class " +
                                      std::to_string(h->mgmt_class) + ")");
  if (h->class_version != kSsaClassVersion)
    return Status::Error(EPROTONOSUPPORT, "SSA class version " + std::to_string(h->class_version));
  if (h->attr_mod != 0) return Status::Error(EBADMSG, "attribute modifier not 0");
  return Status::Ok();
}

}  // namespace tree
}  // namespace ssa
