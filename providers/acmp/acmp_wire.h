// acmp_wire.h: the ACM protocol's datagram (upstream ibacm's "acm_mad"),
// its resolve record, and the multicast GIDs acmp endpoints join, with
// explicit encode/decode. Byte layouts are written down here only.
//
// An ACM message is one 256-byte UD datagram, sent with Q_Key 0x80010000:
//    0 BaseVersion (1) = 1        8 TransactionID (8)
//    1 MgmtClass   (1) = 0x2C    16 resolve record (240 bytes):
//    2 ClassVersion(1) = 1          16 DestType (1)    20 GidCount (1)
//    3 Method (1): 0x01 resolve     17 DestLength (1)  21 RespResources (1)
//       request, 0x81 its response  18 SrcType (1)     22 InitDepth (1)
//    4 Status (2): ACM_STATUS_*     19 SrcLength (1)   23 reserved (1)
//       in the high byte            24 Dest address (64)
//    6 Control (2) = 0x0001         88 Src address (64)
//       (resolve)                  152 GIDs: GidCount x 16 bytes, the
//                                      sender's multicast groups, lowest
//                                      preference first (at most 6 fit)
// Address types are ACM_ADDRESS_* (1 name, 2 IPv4, 3 IPv6, 4 GID, 5 LID);
// names are NUL-padded, IPs/GIDs/LIDs in network order at the start of the
// 64 bytes. A request carries the requester's source address (Src), the
// address it looks for (Dest) and its groups; the owner of Dest answers by
// unicast with the request's TID, status 0 and one GID: the group it chose.
// Upstream leaves Dest/Src of a response zero; we echo them (upstream
// ignores them), and accept responses either way.
//
// Multicast GIDs (upstream acmp's layout; P_Key with the full-member bit):
//   ff15:4001:PPPP:TTRR:MM00:0000:0000:0000
//   ff = multicast, 1 = transient flag, 5 = site-local scope, 4001 = ACM,
//   PPPP = P_Key | 0x8000, TT = TOS, RR = rate code, MM = MTU code.
//
// Pure functions on caller-owned data; any thread.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_WIRE_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_WIRE_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace acmp {

constexpr size_t kAcmMessageSize = 256;
constexpr uint8_t kAcmBaseVersion = 1;
constexpr uint8_t kAcmMgmtClass = 0x2c;
constexpr uint8_t kAcmClassVersion = 1;
constexpr uint8_t kAcmMethodResolve = 0x01;   // IB Get
constexpr uint8_t kAcmMethodResponse = 0x80;  // response bit
constexpr uint16_t kAcmControlResolve = 0x0001;
constexpr uint32_t kAcmQkey = 0x80010000;
constexpr size_t kAcmAddressSize = 64;
constexpr size_t kAcmRecordOffset = 16;
constexpr size_t kAcmDestOffset = 24;
constexpr size_t kAcmSrcOffset = 88;
constexpr size_t kAcmGidOffset = 152;
constexpr size_t kAcmMaxGids = (kAcmMessageSize - kAcmGidOffset) / 16;  // 6

// ACM_ADDRESS_* (equal to the provider ABI's SSA_ADDR_*).
constexpr uint8_t kAddrName = 1;
constexpr uint8_t kAddrIp = 2;
constexpr uint8_t kAddrIp6 = 3;
constexpr uint8_t kAddrGid = 4;
constexpr uint8_t kAddrLid = 5;

struct AcmAddress {
  uint8_t type = 0;
  uint8_t length = 0;  // as sent; upstream always says 64
  uint8_t data[kAcmAddressSize] = {};
};

struct AcmMessage {
  uint8_t method = kAcmMethodResolve;
  uint16_t status = 0;  // the whole field; the ACM status is its high byte
  uint64_t tid = 0;
  AcmAddress dest;
  AcmAddress src;
  uint8_t resp_resources = 0;
  uint8_t init_depth = 0;
  uint8_t gid_count = 0;
  std::array<dgram::Gid, kAcmMaxGids> gids;

  bool is_response() const { return (method & kAcmMethodResponse) != 0; }
  uint8_t acm_status() const { return static_cast<uint8_t>(status >> 8); }
};

// Why a datagram was not a valid ACM message (counted per reason).
enum class DecodeError {
  kNone = 0,
  kShort,           // fewer bytes than a resolve record needs
  kNotAcm,          // base version, class or class version not ACM's
  kBadControl,      // control other than resolve
  kBadMethod,       // neither a resolve request nor its response
  kBadAddressType,  // request: source or destination type not 1..5
  kBadAddress,      // length over 64, or a name without its NUL
  kBadGidCount,     // more GIDs than fit, or a success response without one
  kCount
};
const char* DecodeErrorName(DecodeError e);

// Writes exactly kAcmMessageSize bytes (zero-padded). At most kAcmMaxGids
// GIDs are written; gid_count is clamped.
void EncodeAcmMessage(const AcmMessage& msg, uint8_t* out);
// Checks and decodes; on failure sets *why and says what was wrong.
Status DecodeAcmMessage(const uint8_t* in, size_t len, AcmMessage* msg, DecodeError* why);

// The multicast GID for (P_Key, TOS, rate code, MTU code).
dgram::Gid AcmMgid(uint16_t pkey, uint8_t tos, uint8_t rate, uint8_t mtu);

// A name, IP, GID or LID as a cache key: the type byte and the 64 address
// bytes, names lower-cased (the core compares names case-insensitively).
std::string AddressKey(uint8_t type, const uint8_t* data);
// "node7", "10.0.0.7", "fd00::7", "GID fe80::...", "LID 7" for logs.
std::string AddressText(uint8_t type, const uint8_t* data);

}  // namespace acmp
}  // namespace ssa

#endif
