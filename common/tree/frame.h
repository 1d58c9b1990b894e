// frame.h: the SSA tree's data channel (doc/ssa-tree.md): how a parent
// sends database versions to a child over a reliable byte stream (TCP, or
// rsockets on an RDMA fabric). This comment is the specification.
//
// ## Frames
//
// The stream is a sequence of frames. Every integer is big-endian.
//    0 u32 magic        0x53534146 ("SSAF")
//    4 u8  version      1. A reader rejects any other version.
//    5 u8  type         below
//    6 u16 hcheck       the low 16 bits of the CRC32 of header bytes 0-5
//                       and 8-15 (so a damaged length is caught at once,
//                       not after waiting for a payload that never ends)
//    8 u32 length       payload bytes, at most kMaxFramePayload (4 MiB)
//   12 u32 crc          CRC32 (smdb_format.h) of the payload
//   16 ...              payload
// A reader checks magic, version, type, hcheck and length before buffering
// the payload, and the CRC after: any violation ends the connection (the
// peer logs and counts why).
//
// ## Types and payloads
//
//  1 HELLO (child -> parent, first frame)
//      u16 protocol (2), u8 roles (ssa_mad.h bits), u8 kind (1 SMDB,
//      2 PRDB, 3 address DB, 4 route-SL slice), u64 child port GUID,
//      16 join token, u64 held epoch (0 none), u32 held digest, 16 nonce
//      (fresh random bytes for each connection)
//  2 WELCOME (parent -> child): u64 parent GUID, u64 parent's epoch (0: none
//      yet), 16 nonce (fresh), 32 tag: link_auth.h WelcomeTag over the
//      HELLO payload and the WELCOME's fields before the tag
//  3 REFUSE (parent -> child, then close): u16 reason (kRefuse*), u8 n, n text
//      bytes (n at most kMaxRefuseText, 200)
//  4 XFER_BEGIN (parent -> child): u8 kind (1 full, 2 delta), u64 from epoch
//      (0 for full), u64 to epoch, u64 total bytes, u32 digest of the
//      resulting database's whole serialization (CRC32)
//  5 XFER_DATA: raw bytes of the transfer (chunks of at most 1 MiB)
//  6 XFER_END: empty. The chunks between BEGIN and END add up to total.
//  7 ACK (child -> parent): u64 epoch, u32 digest now held
//  8 NEED_FULL (child -> parent): u8 reason (kNeed*)
//  9 KEEPALIVE (both ways): empty; sent after 5 s without traffic, a
//      connection silent for kDeadAfter (20 s) is closed
// 10 QUERY (tool -> any parent, instead of HELLO): u8 n, n bytes name (n at
//      most kMaxQueryName, 64)
// 11 QUERY_REPLY: the answer's bytes (e.g. the tree's state as JSON)
// 12 PROOF (child -> parent, right after WELCOME): 32 tag: link_auth.h
//      ProofTag over the HELLO payload and the whole WELCOME payload
//
// ## Session
//
// The child connects and sends HELLO; the parent checks the token with
// the core (TokenCheck MAD), which also gives it the link key of the two
// (link_auth.h), and answers WELCOME or REFUSE. The child checks that the
// WELCOME names the parent the core assigned and that its tag proves the
// link key the core gave the child for that parent; otherwise it closes,
// counts and logs, and joins again naming that parent lost: a process that
// took the parent's port serves nothing. The child answers PROOF; the
// parent sends nothing more until the proof checks (a wrong one: closed,
// counted, logged). The parent then brings the child to its current version: nothing when the
// child's epoch and digest match, the delta chain when it has every delta from the child's epoch,
// the full database otherwise. Every later version is pushed the same way. The child applies each
// transfer to a copy, checks the digest, ACKs, or sends NEED_FULL (then the parent sends the full
// one).
//
// Pure functions and a stateless-between-calls reader; any thread.
#ifndef IBACM_SSA_COMMON_TREE_FRAME_H
#define IBACM_SSA_COMMON_TREE_FRAME_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/base/status.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

constexpr uint32_t kFrameMagic = 0x53534146;
constexpr uint8_t kFrameVersion = 1;
constexpr size_t kFrameHeaderSize = 16;
constexpr uint32_t kMaxFramePayload = 4u << 20;
constexpr size_t kXferChunk = 1u << 20;

enum class FrameType : uint8_t {
  kHello = 1,
  kWelcome = 2,
  kRefuse = 3,
  kXferBegin = 4,
  kXferData = 5,
  kXferEnd = 6,
  kAck = 7,
  kNeedFull = 8,
  kKeepalive = 9,
  kQuery = 10,
  kQueryReply = 11,
  kProof = 12,
};
const char* FrameTypeName(FrameType t);

// kRouteSl: an access node's route-SL slice, from the core itself
// (route_sl_slices.h).
enum class DbKind : uint8_t { kSmdb = 1, kPrdb = 2, kAddr = 3, kRouteSl = 4 };
const char* DbKindName(DbKind k);

constexpr uint16_t kRefuseBadHello = 1;
constexpr uint16_t kRefuseBadToken = 2;
constexpr uint16_t kRefuseNotYourParent = 3;
constexpr uint16_t kRefuseTooMany = 4;
constexpr uint16_t kRefuseUnavailable = 5;  // nothing to serve of that kind
constexpr uint16_t kRefuseCoreUnreachable = 6;
constexpr uint16_t kRefuseBadProof = 7;  // the child's PROOF did not check
const char* RefuseReasonName(uint16_t reason);

// Text limits: encoders cut longer text to these, decoders reject more.
constexpr size_t kMaxRefuseText = 200;
constexpr size_t kMaxQueryName = 64;

constexpr uint8_t kNeedDigestMismatch = 1;
constexpr uint8_t kNeedCannotApply = 2;

using Nonce = std::array<uint8_t, 16>;

struct Hello {
  uint16_t protocol = kProtocolVersion;
  uint8_t roles = 0;
  DbKind kind = DbKind::kSmdb;
  uint64_t guid = 0;
  Token token{};
  uint64_t epoch = 0;
  uint32_t digest = 0;
  Nonce nonce{};
};
struct Welcome {
  uint64_t parent_guid = 0;
  uint64_t epoch = 0;
  Nonce nonce{};
  AuthTag tag{};
};
struct Refuse {
  uint16_t reason = 0;
  std::string text;
};
struct XferBegin {
  uint8_t kind = 1;  // 1 full, 2 delta
  uint64_t from = 0;
  uint64_t to = 0;
  uint64_t total = 0;
  uint32_t digest = 0;
};
struct Ack {
  uint64_t epoch = 0;
  uint32_t digest = 0;
};

struct Frame {
  FrameType type = FrameType::kKeepalive;
  std::string payload;
  uint32_t crc = 0;  // the header's payload CRC (checked)
};

// A whole frame (header + payload).
std::string EncodeFrame(FrameType type, const std::string& payload);
// The header alone, for a payload sent from elsewhere (`crc` its CRC32).
std::string EncodeFrameHeader(FrameType type, uint32_t length, uint32_t crc);
std::string EncodeHello(const Hello& h);
// The HELLO's payload (what the handshake's tags cover).
std::string HelloPayload(const Hello& h);
std::string EncodeWelcome(const Welcome& w);
// The WELCOME's payload before its tag (what WelcomeTag covers), and whole.
std::string WelcomeFields(const Welcome& w);
std::string WelcomePayload(const Welcome& w);
std::string EncodeProof(const AuthTag& tag);
std::string EncodeRefuse(const Refuse& r);
std::string EncodeXferBegin(const XferBegin& b);
std::string EncodeAck(const Ack& a);
std::string EncodeNeedFull(uint8_t reason);
std::string EncodeQuery(const std::string& name);

// Payload decoders: EBADMSG naming the field on any violation.
Status DecodeHello(const std::string& p, Hello* h);
Status DecodeWelcome(const std::string& p, Welcome* w);
Status DecodeProof(const std::string& p, AuthTag* tag);
Status DecodeRefuse(const std::string& p, Refuse* r);
Status DecodeXferBegin(const std::string& p, XferBegin* b);
Status DecodeAck(const std::string& p, Ack* a);
Status DecodeNeedFull(const std::string& p, uint8_t* reason);
Status DecodeQuery(const std::string& p, std::string* name);

// Splits a byte stream into frames. Feed what arrives; Next() yields whole
// frames. The first error is sticky.
//
// A payload larger than kKeptCapacity that has not arrived whole gets its
// own buffer as soon as its header is checked, which becomes the frame's
// payload: Direct() says where the rest of it goes, so a reader can read
// the stream straight into it (Commit() then) instead of through a buffer
// of its own and Feed: a consumer's whole PRDB crosses memory once, not
// three times (issue 28). Feed still works for every byte.
class FrameReader {
 public:
  Status Feed(const uint8_t* data, size_t len);
  // True with *out filled when a whole frame is buffered.
  bool Next(Frame* out);
  // Where the large payload being read goes next and, in *room, how many
  // bytes it still needs; null when nothing is read that way now.
  uint8_t* Direct(size_t* room);
  // `n` (at most *room) bytes were written at Direct().
  void Commit(size_t n) { big_have_ += n; }
  size_t buffered() const {
    return buf_.size() - pos_ + (in_big_ ? kFrameHeaderSize + big_have_ : 0);
  }
  // The error that stopped the reader (OK while it reads).
  const Status& error() const { return error_; }

 private:
  Status CheckHeader(const uint8_t* h);
  // The header at pos_ starts a large payload: it moves to big_.
  void StartBig();
  static constexpr size_t kKeptCapacity = 256 * 1024;
  std::string buf_;
  size_t pos_ = 0;
  Status error_;
  // The large payload being read (its header, the bytes so far); buf_
  // holds only what follows it.
  bool in_big_ = false;
  uint8_t big_header_[kFrameHeaderSize] = {};
  std::string big_;
  size_t big_have_ = 0;
};

}  // namespace tree
}  // namespace ssa

#endif
