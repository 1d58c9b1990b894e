// ssa_mad.h: the SSA tree's control MADs (doc/ssa-tree.md). This comment
// is the specification: another implementation needs nothing else.
//
// ## Transport
//
// Management class 0x2C, class version 1, 256-byte MADs on QP1 without
// RMPP, always sent by a member to the SM's LID (where the core, the
// ibssa_osm plugin inside OpenSM, listens) and answered by the core with
// GetResp (0x81), same TID, to the sender's LID and QPN. Only the core ever
// receives an unsolicited MAD (on the simulated fabric nothing else can).
//
//   bytes 0..23   the common MAD header (mad_wire.h): BaseVersion 1,
//                 MgmtClass 0x2C, ClassVersion 1, Method, Status, TID,
//                 AttributeID, AttributeModifier 0
//   bytes 24..223 the attribute (200 bytes), layouts below; unused bytes 0
//   bytes 224..255 reserved: senders write 0, receivers ignore them (on the
//                 simulated fabric umad2sim hands them over garbled)
//
// Every integer is big-endian. A GUID is 8 bytes, a GID 16. An "address"
// is 19 bytes: family u8 (0 none, 4 IPv4, 6 IPv6), port u16, address 16
// bytes (IPv4 in the first 4). A "text" is a length u8 then that many
// bytes (at most the field's size), then zero padding to the field's size.
//
// ## Messages (method, attribute ID)
//
// Join (Set 0x02, 0x0010): a member asks to join, or renews (same token).
//    24 u8  roles          bit 0 distribution, bit 1 access, bit 2 consumer
//    25 u8  reserved 0
//    26 u16 protocol       kProtocolVersion (1)
//    28 u64 port_guid      the member's port
//    36 gid port_gid
//    52 u64 epoch          global epoch of the database it holds (0: none)
//    60 16  token          0 on a first join, the core's token on renewals
//    76 u64 lost_parent    GUID of a parent it just lost (0: none)
//    84 addr data_address  where its children connect (none for consumers)
//   103 text(33) software  e.g. "ibacm-ssa 0.1", at most 32 bytes
//   136 u64 full_transfers   the member's counters, for the tree view
//   144 u64 delta_transfers
//   152 u64 bytes_sent
//   160 u64 refused
//   168 u32 children
//   172 u32 reconnects
//   176 u64 addr_epoch     epoch of the address database it holds (0: none)
//   184 u32 digest         digest (frame.h) of the database at `epoch`
//   188 u32 addr_digest    digest of the address database at `addr_epoch`
//   192..223 reserved 0
// (The core compares the epochs and digests with its own: a member holding
// a higher epoch, or the same epoch with another digest, holds a database
// of another core, and the core's epochs continue after it.)
// Join answer (GetResp): Status 0, or a class-specific code below.
//    24 u64 parent_guid    0: none assigned (Status says why)
//    32 u16 parent_lid
//    34 addr parent_address
//    53 u8  reserved 0
//    54 u64 backup_guid    0: no backup
//    62 u16 backup_lid
//    64 addr backup_address
//    83 u8  reserved 0
//    84 16  token          the member's join token (keep it for renewals)
//   100 u32 lease_s        the lease; the member renews every renew_s
//   104 u32 renew_s
//   108 u64 core_epoch     the core's current global epoch
//   116 16  parent_key     link key of the member and its parent (link_auth.h)
//   132 16  backup_key     link key of the member and its backup (0: none)
//   148 16  core_key       link key of the member and the core (what the
//                          core serves a member directly: route-SL slices)
//   164 32  smdb_sha256    SHA-256 of the core's SMDB serialization at
//                          core_epoch (0: no SMDB yet); a member holding
//                          that epoch compares its own
//   196..223 reserved 0
//
// Leave (Set 0x02, 0x0011): 24 u64 port_guid, 32 16 token. Answer: Status.
//
// TokenCheck (Get 0x01, 0x0012): a parent asks about a child that
// connected to it: 24 u64 child_guid, 32 16 token, 48 u64 parent_guid.
// Answer: 24 u8 valid (1/0), 25 u8 child roles, 26 u16 reason (kCheck*),
// 28 u32 lease_left_s, 32 16 link key of the asking parent and the child
// (valid only; 0 otherwise). The core answers valid only to the child's
// parent or backup asking from its own LID.
//
// CoreInfo (Get 0x01, 0x0013): empty. Answer: 24 u64 core_guid, 32 u16
// core_lid, 34 addr data_address, 53 u8 reserved, 54 u64 epoch, 62 u32
// members.
//
// ## Status (the MAD's Status field)
//
// 0 success; 0x0004 bad version (unsupported class version or protocol:
// protocol 2 added the link keys; a member of protocol 1 is refused);
// 0x001C invalid field value (a malformed attribute); class-specific codes
// in bits 8..14: kStatusRetry (no parent available yet: try again later),
// kStatusNotAllowed (the GUID may not take that role), kStatusIdentity (the
// source LID does not own the claimed GUID), kStatusUnknownMember (Leave or
// renewal with an unknown token).
//
// ## Limits
//
// Decoders check the header (class, class version, method, attribute), every
// enumerated and reserved field, and text lengths; any violation is EBADMSG
// with a message naming the field.
//
// Pure functions; any thread.
#ifndef IBACM_SSA_COMMON_TREE_SSA_MAD_H
#define IBACM_SSA_COMMON_TREE_SSA_MAD_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/mad/mad_wire.h"

namespace ssa {
namespace tree {

constexpr uint8_t kSsaClass = 0x2C;
constexpr uint8_t kSsaClassVersion = 1;
constexpr uint16_t kProtocolVersion = 2;

constexpr uint16_t kAttrJoin = 0x0010;
constexpr uint16_t kAttrLeave = 0x0011;
constexpr uint16_t kAttrTokenCheck = 0x0012;
constexpr uint16_t kAttrCoreInfo = 0x0013;

// Role bits.
constexpr uint8_t kRoleDistribution = 1u << 0;
constexpr uint8_t kRoleAccess = 1u << 1;
constexpr uint8_t kRoleConsumer = 1u << 2;
// "distribution", "access", "distribution,access", "consumer".
std::string RolesName(uint8_t roles);

// MAD Status values.
constexpr uint16_t kStatusBadVersion = 0x0004;
constexpr uint16_t kStatusInvalidField = 0x001C;
constexpr uint16_t kStatusRetry = 0x0100;
constexpr uint16_t kStatusNotAllowed = 0x0200;
constexpr uint16_t kStatusIdentity = 0x0300;
constexpr uint16_t kStatusUnknownMember = 0x0400;
std::string DescribeSsaStatus(uint16_t status);

// TokenCheck reasons.
constexpr uint16_t kCheckOk = 0;
constexpr uint16_t kCheckUnknownToken = 1;  // no member holds it
constexpr uint16_t kCheckWrongParent = 2;   // the member is assigned elsewhere
constexpr uint16_t kCheckWrongGuid = 3;     // the token belongs to another GUID

using Token = std::array<uint8_t, 16>;
using Gid = std::array<uint8_t, 16>;
// link_auth.h: a key the core derives for one parent and child, a tag
// proving it is held, the SHA-256 of a database's serialization.
using LinkKey = std::array<uint8_t, 16>;
using AuthTag = std::array<uint8_t, 32>;
using ContentDigest = std::array<uint8_t, 32>;

// A data-channel address.
struct DataAddress {
  uint8_t family = 0;  // 0 none, 4, 6
  uint16_t port = 0;
  std::array<uint8_t, 16> addr{};
  bool empty() const { return family == 0; }
  // "10.0.0.1:7470", "[fe80::1]:7470", "" for none.
  std::string ToString() const;
  // Parses the same forms (no names). EINVAL on anything else.
  static Status Parse(const std::string& text, DataAddress* out);
};
bool operator==(const DataAddress& a, const DataAddress& b);

struct MemberCounters {
  uint64_t full_transfers = 0;
  uint64_t delta_transfers = 0;
  uint64_t bytes_sent = 0;
  uint64_t refused = 0;
  uint32_t children = 0;
  uint32_t reconnects = 0;
};

struct JoinRequest {
  uint8_t roles = 0;
  uint16_t protocol = kProtocolVersion;
  uint64_t port_guid = 0;
  Gid port_gid{};
  uint64_t epoch = 0;
  uint64_t addr_epoch = 0;
  uint32_t digest = 0;
  uint32_t addr_digest = 0;
  Token token{};
  uint64_t lost_parent = 0;
  DataAddress data_address;
  std::string software;  // <= 32 bytes
  MemberCounters counters;
};

struct ParentInfo {
  uint64_t guid = 0;
  uint16_t lid = 0;
  DataAddress address;
  LinkKey key{};  // the link key of the member and this parent
};

struct JoinAnswer {
  ParentInfo parent;
  ParentInfo backup;
  Token token{};
  uint32_t lease_s = 0;
  uint32_t renew_s = 0;
  uint64_t core_epoch = 0;
  LinkKey core_key{};           // for what the core serves this member itself
  ContentDigest smdb_sha256{};  // of the core's SMDB at core_epoch (all 0: none)
};

struct LeaveRequest {
  uint64_t port_guid = 0;
  Token token{};
};

struct TokenCheckRequest {
  uint64_t child_guid = 0;
  Token token{};
  uint64_t parent_guid = 0;
};

struct TokenCheckAnswer {
  bool valid = false;
  uint8_t roles = 0;
  uint16_t reason = kCheckOk;
  uint32_t lease_left_s = 0;
  LinkKey key{};
};

struct CoreInfoAnswer {
  uint64_t core_guid = 0;
  uint16_t core_lid = 0;
  DataAddress data_address;
  uint64_t epoch = 0;
  uint32_t members = 0;
};

// Encoders write a whole 256-byte MAD: the header (with `tid`, and for
// answers Method GetResp and `status`) and the attribute.
void EncodeJoin(const JoinRequest& r, uint64_t tid, uint8_t* mad);
void EncodeJoinAnswer(const JoinAnswer& a, uint64_t tid, uint16_t status, uint8_t* mad);
void EncodeLeave(const LeaveRequest& r, uint64_t tid, uint8_t* mad);
void EncodeTokenCheck(const TokenCheckRequest& r, uint64_t tid, uint8_t* mad);
void EncodeTokenCheckAnswer(const TokenCheckAnswer& a, uint64_t tid, uint8_t* mad);
void EncodeCoreInfo(uint64_t tid, uint8_t* mad);
void EncodeCoreInfoAnswer(const CoreInfoAnswer& a, uint64_t tid, uint8_t* mad);
// An answer with only a status (errors, Leave).
void EncodeStatusAnswer(uint16_t attr_id, uint64_t tid, uint16_t status, uint8_t* mad);

// Checks the common header of an SSA MAD: length 256, class, class
// version, base version; fills *h.
Status DecodeSsaHeader(const uint8_t* mad, size_t len, mad::MadHeader* h);
// Attribute decoders (the header already checked).
Status DecodeJoin(const uint8_t* mad, JoinRequest* r);
Status DecodeJoinAnswer(const uint8_t* mad, JoinAnswer* a);
Status DecodeLeave(const uint8_t* mad, LeaveRequest* r);
Status DecodeTokenCheck(const uint8_t* mad, TokenCheckRequest* r);
Status DecodeTokenCheckAnswer(const uint8_t* mad, TokenCheckAnswer* a);
Status DecodeCoreInfoAnswer(const uint8_t* mad, CoreInfoAnswer* a);

}  // namespace tree
}  // namespace ssa

#endif
