// acm_wire_server.cc: the daemon's half of the ibacm protocol: decoding and
// validating client requests, encoding replies.
#include <cstring>
#include <string>

#include "common/acm/acm_wire.h"
#include "common/acm/acm_wire_internal.h"

namespace ssa {
namespace acm {

using namespace internal;

namespace {

DecodeResult ReplyError(uint8_t status, std::string reason) {
  DecodeResult r;
  r.action = DecodeAction::kReplyError;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

DecodeResult CloseConnection(std::string reason) {
  DecodeResult r;
  r.action = DecodeAction::kClose;
  r.status = kStatusEInval;
  r.reason = std::move(reason);
  return r;
}

// Upstream accepts every type below ACM_ADDRESS_RESERVED, including its
// internal GID and LID types; a lookup that cannot use them fails later with
// ESRCADDR / EDESTADDR, as upstream's does.
bool IsAddressType(uint16_t type) { return type >= kAddrName && type < kAddrReserved; }

bool IsZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

// Resolve and perf query bodies are a list of 72-byte entries. Upstream
// silently drops a ragged tail; we answer EINVAL, since such a message was not
// built by any client that knows the protocol.
bool CheckEntryLength(size_t length, const char* what, DecodeResult* result) {
  if ((length - kHeaderLength) % kEpAddrLength == 0) return true;
  *result = ReplyError(kStatusEInval, std::string(what) + " length " + std::to_string(length) +
                                          " is not 16 + a multiple of 72");
  return false;
}

// RESOLVE, with upstream's rules (acm_svr_verify_resolve and friends):
//  - Path request: entries[0].type == PATH. Other entries are ignored. The
//    path must name a destination (DLID or non-zero DGID), else EDESTADDR.
//    With QUERY_SA the message must be exactly one entry (upstream answers
//    EINVAL otherwise).
//  - Address request: at most one entry flagged SOURCE (a second one is
//    ESRCADDR) with a type in 1..5 (else ESRCTYPE); exactly one flagged DEST
//    (a second one is EDESTADDR; a bad type or none at all is EDESTTYPE). One
//    entry may carry both flags. Entries with neither flag are ignored. No
//    SOURCE: the server selects one and returns it in the reply.
DecodeResult DecodeResolve(const uint8_t* buf, size_t length, ResolveRequest* req) {
  DecodeResult result;
  if (!CheckEntryLength(length, "resolve", &result)) return result;
  size_t count = (length - kHeaderLength) / kEpAddrLength;
  for (size_t i = 0; i < count; ++i)
    req->entries.push_back(EpAddr::Decode(buf + kHeaderLength + i * kEpAddrLength));

  if (count > 0 && req->entries[0].type == kAddrPath) {
    req->is_path = true;
    const EpAddr& entry = req->entries[0];
    if ((entry.flags & kFlagQuerySa) && count != 1)
      return ReplyError(kStatusEInval, "an SA path query must carry exactly one entry, not " +
                                           std::to_string(count));
    ibv_path_record path = entry.path();
    if (path.dlid == 0 && IsZero(path.dgid.raw, sizeof(path.dgid.raw)))
      return ReplyError(kStatusEDestAddr, "path request names no destination (no DLID, no DGID)");
    return result;
  }

  for (size_t i = 0; i < count; ++i) {
    const EpAddr& entry = req->entries[i];
    if (entry.is_source()) {
      if (req->source_entry >= 0)
        return ReplyError(kStatusESrcAddr, "more than one source address (entries " +
                                               std::to_string(req->source_entry) + " and " +
                                               std::to_string(i) + ")");
      if (!IsAddressType(entry.type))
        return ReplyError(kStatusESrcType,
                          "unsupported source address type " + std::to_string(entry.type));
      req->source_entry = static_cast<int>(i);
    }
    if (entry.is_dest()) {
      if (req->dest_entry >= 0)
        return ReplyError(kStatusEDestAddr, "more than one destination address (entries " +
                                                std::to_string(req->dest_entry) + " and " +
                                                std::to_string(i) + ")");
      if (!IsAddressType(entry.type))
        return ReplyError(kStatusEDestType,
                          "unsupported destination address type " + std::to_string(entry.type));
      req->dest_entry = static_cast<int>(i);
    }
  }
  if (req->dest_entry < 0) return ReplyError(kStatusEDestType, "no destination address given");
  return result;
}

// PERF_QUERY, with upstream's choice of scope (acm_svr_perf_query):
//  - no entry: data[1] == 0 -> global counters, else endpoint data[1];
//  - an entry without SOURCE -> global counters;
//  - an entry with SOURCE: endpoint data[1] if non-zero, else the endpoint
//    owning that address (an unknown address is the server's ESRCADDR).
DecodeResult DecodePerfQuery(const uint8_t* buf, const MsgHeader& hdr, PerfQueryRequest* req) {
  DecodeResult result;
  if (!CheckEntryLength(hdr.length, "perf query", &result)) return result;
  int index = hdr.data[kDataSourceEntry];
  if (hdr.length == kHeaderLength) {
    req->scope =
        index == 0 ? PerfQueryRequest::Scope::kGlobal : PerfQueryRequest::Scope::kEndpointIndex;
  } else {
    EpAddr entry = EpAddr::Decode(buf + kHeaderLength);
    if (!entry.is_source()) {
      req->scope = PerfQueryRequest::Scope::kGlobal;
    } else if (index != 0) {
      req->scope = PerfQueryRequest::Scope::kEndpointIndex;
    } else {
      req->scope = PerfQueryRequest::Scope::kEndpointAddress;
      req->address = entry;
    }
  }
  if (req->scope == PerfQueryRequest::Scope::kEndpointIndex) req->endpoint_index = index;
  return result;
}

// EP_QUERY: data[0] is the 1-based endpoint index, data[1] a port filter. Any
// body is ignored, as upstream does. Index 0 never names an endpoint.
DecodeResult DecodeEpQuery(const MsgHeader& hdr, EpQueryRequest* req) {
  req->endpoint_index = hdr.data[kDataSourceOut];
  req->port_filter = hdr.data[kDataSourceEntry];
  if (req->endpoint_index == 0)
    return ReplyError(kStatusEInval, "endpoint query index 0 (indexes start at 1)");
  return DecodeResult();
}

}  // namespace

DecodeResult DecodeRequest(const uint8_t* buf, size_t len, Request* out) {
  *out = Request();
  if (len < kHeaderLength)
    return CloseConnection("truncated message: " + std::to_string(len) +
                           " bytes, less than a header");
  out->hdr = MsgHeader::Decode(buf);
  size_t frame_len = 0;
  std::string error;
  if (PeekFrame(buf, len, &frame_len, &error) == FrameStatus::kInvalid)
    return CloseConnection(error);
  if (frame_len != len)
    return CloseConnection("message is " + std::to_string(len) + " bytes but its header says " +
                           std::to_string(frame_len));

  const MsgHeader& hdr = out->hdr;
  switch (hdr.opcode) {
    case kOpResolve: return DecodeResolve(buf, hdr.length, &out->resolve);
    case kOpPerfQuery: return DecodePerfQuery(buf, hdr, &out->perf);
    case kOpEpQuery: return DecodeEpQuery(hdr, &out->ep_query);
    default:
      // Upstream logs and never answers; a reply lets the client fail fast.
      return ReplyError(kStatusEInval, hdr.is_reply() ? "a reply (opcode " + HexText(hdr.opcode) +
                                                            ") was sent as a request"
                                                      : "unknown opcode " + HexText(hdr.opcode));
  }
}

uint32_t ResolveRequest::request_flags() const {
  if (is_path) return entries.empty() ? 0 : entries[0].flags;
  if (dest_entry < 0 || static_cast<size_t>(dest_entry) >= entries.size()) return 0;
  return entries[static_cast<size_t>(dest_entry)].flags;
}

// ---- Replies.

std::vector<uint8_t> EncodeResolveResponse(const MsgHeader& request, const ibv_path_record& path,
                                           const EpAddr* selected_source) {
  MsgHeader h = ReplyHeader(request, kStatusSuccess);
  // Always a resolve reply, so the length is framed in host order whatever
  // header the caller handed in.
  h.opcode = kOpResolve | kOpAck;
  size_t entries = selected_source ? 2 : 1;
  std::vector<uint8_t> msg = NewMessage(h, kHeaderLength + entries * kEpAddrLength);
  EpAddr path_entry;
  path_entry.flags = kResolvedPathFlags;
  path_entry.SetPath(path);
  path_entry.Encode(msg.data() + kHeaderLength);
  if (selected_source) {
    EpAddr source = *selected_source;
    source.flags = kEpFlagSource;
    source.Encode(msg.data() + kHeaderLength + kEpAddrLength);
  }
  return msg;
}

std::vector<uint8_t> EncodeErrorResponse(const MsgHeader& request, uint8_t status) {
  return NewMessage(ReplyHeader(request, status), kHeaderLength);
}

std::vector<uint8_t> EncodePerfResponse(const MsgHeader& request,
                                        const std::vector<uint64_t>& counters) {
  size_t count = counters.size() < kMaxCounters ? counters.size() : kMaxCounters;
  MsgHeader h = ReplyHeader(request, kStatusSuccess);
  h.opcode = kOpPerfQuery | kOpAck;
  h.data[kDataSourceOut] = static_cast<uint8_t>(count);
  std::vector<uint8_t> msg = NewMessage(h, kHeaderLength + count * 8);
  for (size_t i = 0; i < count; ++i) PutBe64(msg.data() + kHeaderLength + i * 8, counters[i]);
  return msg;
}

std::vector<uint8_t> EncodeEpQueryResponse(const MsgHeader& request, const EpConfig& config) {
  size_t count = config.addrs.size() < kMaxEpQueryAddrs ? config.addrs.size() : kMaxEpQueryAddrs;
  MsgHeader h = ReplyHeader(request, kStatusSuccess);
  h.opcode = kOpEpQuery | kOpAck;
  // Upstream leaves the endpoint index in data[0] and clears the rest.
  h.data[kDataSourceOut] = request.data[kDataSourceOut];
  std::vector<uint8_t> msg = NewMessage(h, kHeaderLength + kEpConfigLength + count * kMaxAddress);
  uint8_t* p = msg.data() + kHeaderLength;
  PutBe64(p, config.dev_guid);
  p[8] = config.port_num;
  p[9] = config.phys_port_cnt;
  PutBe16(p + 12, config.pkey);
  PutBe16(p + 14, static_cast<uint16_t>(count));
  PutTextField(p + 16, kMaxProvName, config.prov_name);
  for (size_t i = 0; i < count; ++i)
    PutTextField(p + kEpConfigLength + i * kMaxAddress, kMaxAddress, config.addrs[i]);
  return msg;
}

}  // namespace acm
}  // namespace ssa
