// acmp_wire.cc: encode/decode of the ACM message and the MGID layout
// documented in acmp_wire.h.
#include "providers/acmp/acmp_wire.h"

#include <arpa/inet.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace acmp {

namespace {

bool ValidType(uint8_t type) { return type >= kAddrName && type <= kAddrLid; }

Status Reject(DecodeError reason, DecodeError* why, const std::string& what) {
  *why = reason;
  return Status::Error(EBADMSG, what);
}

// Checks one address of a request: its type, its length and, for a name,
// that it ends inside the field.
Status CheckAddress(const char* which, const AcmAddress& a, DecodeError* why) {
  char buf[96];
  if (!ValidType(a.type)) {
    snprintf(buf, sizeof(buf), "%s address type %u is not 1..5", which, a.type);
    return Reject(DecodeError::kBadAddressType, why, buf);
  }
  if (a.length > kAcmAddressSize) {
    snprintf(buf, sizeof(buf), "%s address length %u is over 64", which, a.length);
    return Reject(DecodeError::kBadAddress, why, buf);
  }
  if (a.type == kAddrName && (a.data[0] == 0 || !memchr(a.data, 0, kAcmAddressSize))) {
    snprintf(buf, sizeof(buf), "%s name is %s", which,
             a.data[0] ? "not NUL-terminated within 64 bytes" : "empty");
    return Reject(DecodeError::kBadAddress, why, buf);
  }
  return Status::Ok();
}

}  // namespace

const char* DecodeErrorName(DecodeError e) {
  switch (e) {
    case DecodeError::kNone: return "none";
    case DecodeError::kShort: return "short";
    case DecodeError::kNotAcm: return "not ACM";
    case DecodeError::kBadControl: return "bad control";
    case DecodeError::kBadMethod: return "bad method";
    case DecodeError::kBadAddressType: return "bad address type";
    case DecodeError::kBadAddress: return "bad address";
    case DecodeError::kBadGidCount: return "bad GID count";
    case DecodeError::kCount: break;
  }
  return "?";
}

void EncodeAcmMessage(const AcmMessage& msg, uint8_t* out) {
  memset(out, 0, kAcmMessageSize);
  out[0] = kAcmBaseVersion;
  out[1] = kAcmMgmtClass;
  out[2] = kAcmClassVersion;
  out[3] = msg.method;
  PutBe16(out + 4, msg.status);
  PutBe16(out + 6, kAcmControlResolve);
  PutBe64(out + 8, msg.tid);
  uint8_t* rec = out + kAcmRecordOffset;
  size_t gids = msg.gid_count < kAcmMaxGids ? msg.gid_count : kAcmMaxGids;
  rec[0] = msg.dest.type;
  rec[1] = msg.dest.length;
  rec[2] = msg.src.type;
  rec[3] = msg.src.length;
  rec[4] = static_cast<uint8_t>(gids);
  rec[5] = msg.resp_resources;
  rec[6] = msg.init_depth;
  memcpy(out + kAcmDestOffset, msg.dest.data, kAcmAddressSize);
  memcpy(out + kAcmSrcOffset, msg.src.data, kAcmAddressSize);
  for (size_t i = 0; i < gids; ++i) memcpy(out + kAcmGidOffset + 16 * i, msg.gids[i].raw, 16);
}

Status DecodeAcmMessage(const uint8_t* in, size_t len, AcmMessage* msg, DecodeError* why) {
  *why = DecodeError::kNone;
  char buf[128];
  if (len < kAcmGidOffset) {
    snprintf(buf, sizeof(buf), "%zu bytes, a resolve record needs %zu", len, kAcmGidOffset);
    return Reject(DecodeError::kShort, why, buf);
  }
  if (in[0] != kAcmBaseVersion || in[1] != kAcmMgmtClass || in[2] != kAcmClassVersion) {
    snprintf(buf, sizeof(buf), "base version %u, class 0x%02x, class version %u (ACM: 1, 0x2C, 1)",
             in[0], in[1], in[2]);
    return Reject(DecodeError::kNotAcm, why, buf);
  }
  if (GetBe16(in + 6) != kAcmControlResolve) {
    snprintf(buf, sizeof(buf), "control 0x%04x (resolve: 0x0001)", GetBe16(in + 6));
    return Reject(DecodeError::kBadControl, why, buf);
  }
  msg->method = in[3];
  if (msg->method != kAcmMethodResolve && msg->method != (kAcmMethodResolve | kAcmMethodResponse)) {
    snprintf(buf, sizeof(buf), "method 0x%02x (resolve: 0x01, response: 0x81)", msg->method);
    return Reject(DecodeError::kBadMethod, why, buf);
  }
  msg->status = GetBe16(in + 4);
  msg->tid = GetBe64(in + 8);
  const uint8_t* rec = in + kAcmRecordOffset;
  msg->dest.type = rec[0];
  msg->dest.length = rec[1];
  msg->src.type = rec[2];
  msg->src.length = rec[3];
  msg->gid_count = rec[4];
  msg->resp_resources = rec[5];
  msg->init_depth = rec[6];
  memcpy(msg->dest.data, in + kAcmDestOffset, kAcmAddressSize);
  memcpy(msg->src.data, in + kAcmSrcOffset, kAcmAddressSize);
  if (msg->gid_count > kAcmMaxGids || kAcmGidOffset + 16u * msg->gid_count > len) {
    snprintf(buf, sizeof(buf), "%u GIDs in a %zu-byte message (at most %zu fit)", msg->gid_count,
             len,
             (len - kAcmGidOffset) / 16 < kAcmMaxGids ? (len - kAcmGidOffset) / 16 : kAcmMaxGids);
    return Reject(DecodeError::kBadGidCount, why, buf);
  }
  for (size_t i = 0; i < msg->gid_count; ++i)
    memcpy(msg->gids[i].raw, in + kAcmGidOffset + 16 * i, 16);
  if (msg->is_response()) {
    if (msg->acm_status() == 0 && msg->gid_count == 0)
      return Reject(DecodeError::kBadGidCount, why, "successful response without a GID");
    return Status::Ok();
  }
  Status st = CheckAddress("source", msg->src, why);
  if (st.ok()) st = CheckAddress("destination", msg->dest, why);
  return st;
}

dgram::Gid AcmMgid(uint16_t pkey, uint8_t tos, uint8_t rate, uint8_t mtu) {
  dgram::Gid g;
  g.raw[0] = 0xff;
  g.raw[1] = 0x10 | 0x05;  // transient, site-local
  g.raw[2] = 0x40;
  g.raw[3] = 0x01;
  pkey |= 0x8000;
  g.raw[4] = static_cast<uint8_t>(pkey >> 8);
  g.raw[5] = static_cast<uint8_t>(pkey);
  g.raw[6] = tos;
  g.raw[7] = rate;
  g.raw[8] = mtu;
  return g;
}

std::string AddressKey(uint8_t type, const uint8_t* data) {
  std::string key(1 + kAcmAddressSize, '\0');
  key[0] = static_cast<char>(type);
  if (type == kAddrName) {
    for (size_t i = 0; i < kAcmAddressSize && data[i]; ++i)
      key[1 + i] = static_cast<char>(tolower(data[i]));
  } else {
    size_t n = type == kAddrIp                        ? 4
               : type == kAddrLid                     ? 2
               : type == kAddrIp6 || type == kAddrGid ? 16
                                                      : kAcmAddressSize;
    memcpy(&key[1], data, n);
  }
  return key;
}

std::string AddressText(uint8_t type, const uint8_t* data) {
  char buf[INET6_ADDRSTRLEN + 8];
  switch (type) {
    case kAddrName: {
      size_t n = strnlen(reinterpret_cast<const char*>(data), kAcmAddressSize);
      return std::string(reinterpret_cast<const char*>(data), n);
    }
    case kAddrIp: return inet_ntop(AF_INET, data, buf, sizeof(buf)) ? buf : "?";
    case kAddrIp6: return inet_ntop(AF_INET6, data, buf, sizeof(buf)) ? buf : "?";
    case kAddrGid:
      return std::string("GID ") + (inet_ntop(AF_INET6, data, buf, sizeof(buf)) ? buf : "?");
    case kAddrLid: return "LID " + std::to_string(GetBe16(data));
    default: return "address type " + std::to_string(type);
  }
}

}  // namespace acmp
}  // namespace ssa
