// acm_wire.h: the ibacm client protocol (<infiniband/acm.h>, version 1) as
// plain structs with explicit encode/decode.
//
// This is what librdmacm and ib_acme speak to the ibacm daemon over its
// socket. The server side (PeekFrame, DecodeRequest, Encode*Response) is for
// core/; the client side (Encode*Request/Query, Decode*Response) is for our
// ib_acme and for tests. Every decoder reads explicitly from bytes and never
// trusts a length it has not checked, so any of them may be fed raw socket
// data. Everything here is a pure function or a plain value: safe from any
// thread, no globals.
//
// The protocol's byte order quirk, kept for compatibility with the stock
// client library (libibacm / librdmacm):
//   - RESOLVE messages (opcode & kOpMask == kOpResolve, requests and replies):
//     the header length is in HOST byte order.
//   - PERF_QUERY and EP_QUERY (and, by our choice, any unknown opcode): the
//     header length is big-endian.
//   - An EpAddr's flags and type are always in host order (also the one a
//     per-address PERF_QUERY carries); a path record inside it is in network
//     order exactly as on the wire (struct ibv_path_record).
//   - Perf counters are be64; an EP_QUERY reply has dev_guid be64, pkey be16
//     and addr_cnt be16.
//   - tid is opaque: kept as the 8 wire bytes (read as a native u64) and
//     echoed back unchanged.
//
// Note: <infiniband/acm.h> #defines src_out, src_index and dst_index as
// macros, so no name in this API uses those words.
#ifndef IBACM_SSA_COMMON_ACM_ACM_WIRE_H
#define IBACM_SSA_COMMON_ACM_ACM_WIRE_H

#include <infiniband/sa.h>
#include <netinet/in.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace acm {

// ---- Constants (each is checked against <infiniband/acm.h> in acm_wire.cc).

constexpr uint8_t kVersion = 1;

constexpr uint8_t kOpMask = 0x0F;
constexpr uint8_t kOpResolve = 0x01;
constexpr uint8_t kOpPerfQuery = 0x02;
constexpr uint8_t kOpEpQuery = 0x03;
constexpr uint8_t kOpAck = 0x80;  // set in every reply

// ACM status codes, carried in MsgHeader::status.
constexpr uint8_t kStatusSuccess = 0;
constexpr uint8_t kStatusENoMem = 1;
constexpr uint8_t kStatusEInval = 2;
constexpr uint8_t kStatusENoData = 3;
constexpr uint8_t kStatusENotConn = 5;
constexpr uint8_t kStatusETimedOut = 6;
constexpr uint8_t kStatusESrcAddr = 7;
constexpr uint8_t kStatusESrcType = 8;
constexpr uint8_t kStatusEDestAddr = 9;
constexpr uint8_t kStatusEDestType = 10;

constexpr size_t kHeaderLength = 16;
constexpr size_t kMaxAddress = 64;    // bytes of an address / name / path record
constexpr size_t kEpAddrLength = 72;  // one acm_ep_addr_data
constexpr size_t kMaxEntries = 8;     // EpAddr entries one message can carry
constexpr size_t kMaxDataLength = kEpAddrLength * kMaxEntries;    // 576
constexpr size_t kMaxMsgLength = kHeaderLength + kMaxDataLength;  // 592
constexpr size_t kMaxProvName = 64;
constexpr size_t kEpConfigLength = 80;  // acm_ep_config_data without addresses
constexpr size_t kPathRecordLength = 64;
// What fits a reply into the stock client's 592-byte receive buffer.
constexpr size_t kMaxCounters = kMaxDataLength / 8;                                    // 72
constexpr size_t kMaxEpQueryAddrs = (kMaxDataLength - kEpConfigLength) / kMaxAddress;  // 7

// EpAddr::type. kAddrGid and kAddrLid are upstream's internal types
// (acm_prov.h); upstream accepts them from clients ("type < 6"), so do we.
constexpr uint16_t kAddrName = 0x0001;      // NUL-padded host name, 64 bytes
constexpr uint16_t kAddrIp = 0x0002;        // 4 bytes, network order
constexpr uint16_t kAddrIp6 = 0x0003;       // 16 bytes, network order
constexpr uint16_t kAddrGid = 0x0004;       // 16-byte raw GID
constexpr uint16_t kAddrLid = 0x0005;       // be16 LID in info[0..1]
constexpr uint16_t kAddrReserved = 0x0006;  // first type upstream rejects
constexpr uint16_t kAddrPath = 0x0010;      // struct ibv_path_record

// EpAddr::flags in requests.
constexpr uint32_t kEpFlagSource = 1u << 0;
constexpr uint32_t kEpFlagDest = 1u << 1;
constexpr uint32_t kFlagQuerySa = 1u << 31;  // path request: ask the SA directly
constexpr uint32_t kFlagNoDelay = 1u << 30;  // answer ENODATA rather than wait

// EpAddr::flags of a path entry in a reply (<infiniband/sa.h> IBV_PATH_FLAG_*).
constexpr uint32_t kPathFlagGmp = 1u << 0;
constexpr uint32_t kPathFlagPrimary = 1u << 1;
constexpr uint32_t kPathFlagAlternate = 1u << 2;
constexpr uint32_t kPathFlagOutbound = 1u << 3;
constexpr uint32_t kPathFlagInbound = 1u << 4;
constexpr uint32_t kPathFlagInboundReverse = 1u << 5;
constexpr uint32_t kPathFlagBidirectional = kPathFlagOutbound | kPathFlagInboundReverse;
// What a resolve reply's path entry carries (the kernel's rdma_cm needs it).
constexpr uint32_t kResolvedPathFlags = kPathFlagGmp | kPathFlagPrimary | kPathFlagBidirectional;

// Perf counters, in wire order (upstream's ACM_CNTR_*).
enum Counter : int {
  kCntrError = 0,
  kCntrResolve,
  kCntrNoData,
  kCntrAddrQuery,
  kCntrAddrCache,
  kCntrRouteQuery,
  kCntrRouteCache,
  kMaxCounter  // 7: how many global counters a PERF_QUERY reply carries
};

// Indexes into MsgHeader::data (acm.h's src_out / src_index / dst_index).
constexpr int kDataSourceOut = 0;    // resolve: server selected the source; perf reply: count;
                                     // EP_QUERY: 1-based endpoint index
constexpr int kDataSourceEntry = 1;  // perf query: endpoint index; EP_QUERY: port filter
constexpr int kDataDestEntry = 2;

// ---- Names for logs.

const char* AcmStatusName(uint8_t status);   // "EINVAL"; "UNKNOWN" if not a status
const char* CounterName(int index);          // upstream's names; "Unknown" if out of range
const char* OpcodeName(uint8_t opcode);      // "resolve", "perf_query", ... (ACK bit ignored)
const char* AddressTypeName(uint16_t type);  // "name", "ip", "ip6", "gid", "lid", "path"
// One line: "dlid 0x0002 slid 0x0001 dgid fe80::2 sgid fe80::1 pkey 0xffff sl 0 ..."
std::string FormatPathRecord(const ibv_path_record& path);

// ---- The 16-byte header.

struct MsgHeader {
  uint8_t version = kVersion;
  uint8_t opcode = 0;
  uint8_t status = kStatusSuccess;
  std::array<uint8_t, 3> data{};  // see kData* above
  uint16_t length = 0;            // whole message, header included (host value)
  uint64_t tid = 0;               // opaque, echoed back

  uint8_t op() const { return opcode & kOpMask; }
  bool is_reply() const { return (opcode & kOpAck) != 0; }

  // `p` must hold kHeaderLength bytes. The length's byte order follows the
  // opcode (LengthIsHostOrder).
  static MsgHeader Decode(const uint8_t* p);
  void Encode(uint8_t* p) const;
};

// True when a message with this opcode carries its length in host order.
bool LengthIsHostOrder(uint8_t opcode);

// ---- One address entry (acm_ep_addr_data): 72 bytes.

struct EpAddr {
  uint32_t flags = 0;
  uint16_t type = 0;
  std::array<uint8_t, kMaxAddress> info{};  // the union: address, name or path

  // `p` must hold kEpAddrLength bytes. The reserved field is ignored on decode
  // and written as zero.
  static EpAddr Decode(const uint8_t* p);
  void Encode(uint8_t* p) const;

  bool is_source() const { return (flags & kEpFlagSource) != 0; }
  bool is_dest() const { return (flags & kEpFlagDest) != 0; }

  // Setters replace type and info (flags are left alone).
  // False (and nothing changed) if `name` is longer than kMaxAddress bytes; a
  // name of exactly 64 bytes has no NUL, as upstream allows.
  bool SetName(const std::string& name);
  void SetIpv4(const in_addr& addr);
  void SetIpv6(const in6_addr& addr);
  void SetGid(const ibv_gid& gid);
  void SetLid(uint16_t lid);  // host value; stored big-endian
  void SetPath(const ibv_path_record& path);

  // The info bytes read as the given kind; meaningful only for that type.
  std::string name() const;  // up to the first NUL, at most 64 bytes
  ibv_path_record path() const;
  uint16_t lid() const;  // host value

  // "name node1", "ip 192.168.0.1", "ip6 fe80::1", "gid fe80::2", "lid 0x12",
  // "path dlid 0x0002 ...", or "type 0x7" for anything else.
  std::string ToString() const;
  bool operator==(const EpAddr& o) const {
    return flags == o.flags && type == o.type && info == o.info;
  }
  bool operator!=(const EpAddr& o) const { return !(*this == o); }
};

// ---- Server side: framing and requests.

enum class FrameStatus {
  kComplete,  // *frame_len bytes at the front form one message
  kNeedMore,  // read more; *frame_len is the total needed when known (else 16)
  kInvalid,   // unusable header (*error says why): close the connection
};

// Looks at the first 16 bytes of a byte stream and tells how long the message
// is, using the opcode's length byte order. kInvalid: version is not 1, or
// the length is below 16 or above 592 (a resolve sent with a big-endian
// length lands here too, and the error says so). Never reads past `len`.
FrameStatus PeekFrame(const uint8_t* buf, size_t len, size_t* frame_len, std::string* error);

struct ResolveRequest {
  std::vector<EpAddr> entries;  // as sent, at most kMaxEntries
  bool is_path = false;         // entries[0] is a path record (type kAddrPath)
  int source_entry = -1;        // entry with the SOURCE flag; -1: the server selects one
  int dest_entry = -1;          // entry with the DEST flag; -1 for a path request

  // The flags that steer the request (QUERY_SA, NODELAY): upstream reads them
  // from the destination entry, or from entries[0] of a path request.
  uint32_t request_flags() const;
  bool query_sa() const { return is_path && (request_flags() & kFlagQuerySa); }
  bool no_delay() const { return (request_flags() & kFlagNoDelay) != 0; }
};

struct PerfQueryRequest {
  enum class Scope { kGlobal, kEndpointIndex, kEndpointAddress };
  Scope scope = Scope::kGlobal;
  int endpoint_index = 0;  // kEndpointIndex: 1-based, from data[1]
  EpAddr address;          // kEndpointAddress: the SOURCE entry
};

struct EpQueryRequest {
  int endpoint_index = 0;   // 1-based, from data[0]
  uint8_t port_filter = 0;  // data[1]: only endpoints on this port number; 0 = any
};

// One decoded request. `hdr` is always filled once the header could be read;
// the member matching hdr.op() holds the body.
struct Request {
  MsgHeader hdr;
  ResolveRequest resolve;
  PerfQueryRequest perf;
  EpQueryRequest ep_query;
};

enum class DecodeAction {
  kHandle,      // a valid request: serve it
  kReplyError,  // answer EncodeErrorResponse(request.hdr, status) and go on
  kClose,       // framing is broken: close the connection, no answer
};

struct DecodeResult {
  DecodeAction action = DecodeAction::kHandle;
  uint8_t status = kStatusSuccess;  // kReplyError: the ACM status to answer
  std::string reason;               // for the log: what was wrong

  bool ok() const { return action == DecodeAction::kHandle; }
};

// Decodes exactly one message of `len` bytes (a frame PeekFrame found, or one
// recv of a datagram-like client). Validation follows upstream ibacm:
//   kClose: fewer than 16 bytes, bad version or length, len != header length.
//   kReplyError EINVAL: unknown opcode or a reply sent as a request; resolve
//     or perf query length not 16 + n*72; SA path query with extra entries;
//     EP_QUERY index 0.
//   Resolve by address: ESRCADDR two sources, ESRCTYPE source type not 1..5,
//     EDESTADDR two destinations, EDESTTYPE destination type not 1..5 or no
//     destination. Resolve by path (entries[0].type == PATH): EDESTADDR when
//     the path has neither DLID nor DGID.
// Semantic checks (does the source exist, can the server pick one for this
// destination type) are the server's: upstream answers ESRCADDR/EDESTTYPE.
DecodeResult DecodeRequest(const uint8_t* buf, size_t len, Request* out);

// ---- Server side: replies. `request` is the request's header; the reply
// echoes its opcode (with kOpAck) and tid.

// Success: the path entry (type kAddrPath, flags kResolvedPathFlags), then,
// if `selected_source` is given, the source the server chose (written with
// flags = SOURCE, as the stock client expects).
std::vector<uint8_t> EncodeResolveResponse(const MsgHeader& request, const ibv_path_record& path,
                                           const EpAddr* selected_source);
// Any opcode: a bare header with `status`, length 16, data[] zero.
std::vector<uint8_t> EncodeErrorResponse(const MsgHeader& request, uint8_t status);
// SUCCESS with data[0] = count; at most kMaxCounters are sent.
std::vector<uint8_t> EncodePerfResponse(const MsgHeader& request,
                                        const std::vector<uint64_t>& counters);

struct EpConfig {
  uint64_t dev_guid = 0;  // host value (upstream sends the node GUID, be64)
  uint8_t port_num = 0;
  uint8_t phys_port_cnt = 0;
  uint16_t pkey = 0;
  std::string prov_name;           // sent NUL-terminated: at most 63 bytes kept
  std::vector<std::string> addrs;  // text, each sent NUL-padded in 64 bytes (63 kept)
};

// SUCCESS with the endpoint's configuration; at most kMaxEpQueryAddrs
// addresses are sent, which is all the stock client's buffer holds.
std::vector<uint8_t> EncodeEpQueryResponse(const MsgHeader& request, const EpConfig& config);

// ---- Client side: requests and reply decoding.

// Fails (EINVAL) for 0 or more than kMaxEntries entries.
Status EncodeResolveRequest(uint64_t tid, const std::vector<EpAddr>& entries,
                            std::vector<uint8_t>* out);
// endpoint_index 0: the global counters.
std::vector<uint8_t> EncodePerfQuery(uint64_t tid, uint8_t endpoint_index);
// The counters of the endpoint owning `source` (sent with flags = SOURCE).
std::vector<uint8_t> EncodePerfQueryByAddress(uint64_t tid, const EpAddr& source);
// endpoint_index is 1-based; port_filter 0 = any port.
std::vector<uint8_t> EncodeEpQuery(uint64_t tid, uint8_t endpoint_index, uint8_t port_filter);

struct PathData {
  uint32_t flags = 0;  // kPathFlag*
  ibv_path_record path{};
};

struct ResolveResponse {
  MsgHeader hdr;
  std::vector<PathData> paths;
  bool has_source = false;  // the server selected the source and says which
  EpAddr source;
};

struct PerfResponse {
  MsgHeader hdr;
  std::vector<uint64_t> counters;  // host values
};

struct EpQueryResponse {
  MsgHeader hdr;
  EpConfig config;
};

// Each fails (EINVAL, with a message) only when the bytes are not a well-formed
// reply of that kind: `len` must equal the header length, the opcode must be
// that request's with kOpAck. An error *status* from the server is a
// successful decode: look at out->hdr.status (the body is then ignored).
Status DecodeResolveResponse(const uint8_t* buf, size_t len, ResolveResponse* out);
Status DecodePerfResponse(const uint8_t* buf, size_t len, PerfResponse* out);
Status DecodeEpQueryResponse(const uint8_t* buf, size_t len, EpQueryResponse* out);

}  // namespace acm
}  // namespace ssa

#endif
