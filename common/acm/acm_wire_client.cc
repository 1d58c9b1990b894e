// acm_wire_client.cc: the client's half of the ibacm protocol: building
// requests the way the stock client library does, and checking and decoding
// the daemon's replies (which are untrusted bytes like any other).
#include <cstring>
#include <string>

#include "common/acm/acm_wire.h"
#include "common/acm/acm_wire_internal.h"

namespace ssa {
namespace acm {

using namespace internal;

namespace {

MsgHeader RequestHeader(uint8_t opcode, uint64_t tid) {
  MsgHeader h;
  h.opcode = opcode;
  h.tid = tid;
  return h;
}

Status Malformed(const char* what, const std::string& why) {
  return Status::Error(EINVAL, std::string("malformed ") + what + " reply: " + why);
}

// What the stock client checks before it looks at a reply's body, plus the
// version and opcode. `what` names the reply kind for messages.
Status CheckReply(const uint8_t* buf, size_t len, uint8_t op, const char* what, MsgHeader* hdr) {
  if (len < kHeaderLength)
    return Malformed(what, std::to_string(len) + " bytes, less than a header");
  *hdr = MsgHeader::Decode(buf);
  if (hdr->version != kVersion)
    return Malformed(what, "protocol version " + std::to_string(hdr->version));
  if (hdr->opcode != (op | kOpAck))
    return Malformed(what, "opcode " + HexText(hdr->opcode) + ", expected " + HexText(op | kOpAck));
  if (hdr->length != len)
    return Malformed(
        what, std::to_string(len) + " bytes but the header says " + std::to_string(hdr->length));
  if (len > kMaxMsgLength)
    return Malformed(what,
                     std::to_string(len) + " bytes, more than " + std::to_string(kMaxMsgLength));
  return Status::Ok();
}

}  // namespace

// ---- Requests.

Status EncodeResolveRequest(uint64_t tid, const std::vector<EpAddr>& entries,
                            std::vector<uint8_t>* out) {
  if (entries.empty() || entries.size() > kMaxEntries)
    return Status::Error(EINVAL, "a resolve request carries 1.." + std::to_string(kMaxEntries) +
                                     " address entries, not " + std::to_string(entries.size()));
  *out = NewMessage(RequestHeader(kOpResolve, tid), kHeaderLength + entries.size() * kEpAddrLength);
  for (size_t i = 0; i < entries.size(); ++i)
    entries[i].Encode(out->data() + kHeaderLength + i * kEpAddrLength);
  return Status::Ok();
}

std::vector<uint8_t> EncodePerfQuery(uint64_t tid, uint8_t endpoint_index) {
  MsgHeader h = RequestHeader(kOpPerfQuery, tid);
  h.data[kDataSourceEntry] = endpoint_index;
  return NewMessage(h, kHeaderLength);
}

std::vector<uint8_t> EncodePerfQueryByAddress(uint64_t tid, const EpAddr& source) {
  std::vector<uint8_t> msg =
      NewMessage(RequestHeader(kOpPerfQuery, tid), kHeaderLength + kEpAddrLength);
  EpAddr entry = source;
  entry.flags = kEpFlagSource;
  entry.Encode(msg.data() + kHeaderLength);
  return msg;
}

std::vector<uint8_t> EncodeEpQuery(uint64_t tid, uint8_t endpoint_index, uint8_t port_filter) {
  MsgHeader h = RequestHeader(kOpEpQuery, tid);
  h.data[kDataSourceOut] = endpoint_index;
  h.data[kDataSourceEntry] = port_filter;
  return NewMessage(h, kHeaderLength);
}

// ---- Replies.

// Like the stock client: every entry is either a path (kept with its flags)
// or the source address the server selected (name, IPv4 or IPv6, flagged
// SOURCE); anything else makes the reply unusable. We also insist on at least
// one path in a successful reply and at most one source.
Status DecodeResolveResponse(const uint8_t* buf, size_t len, ResolveResponse* out) {
  *out = ResolveResponse();
  Status st = CheckReply(buf, len, kOpResolve, "resolve", &out->hdr);
  if (!st.ok() || out->hdr.status != kStatusSuccess) return st;
  size_t body = out->hdr.length - kHeaderLength;
  if (body % kEpAddrLength != 0)
    return Malformed("resolve",
                     "length " + std::to_string(out->hdr.length) + " is not 16 + a multiple of 72");
  for (size_t i = 0; i < body / kEpAddrLength; ++i) {
    EpAddr entry = EpAddr::Decode(buf + kHeaderLength + i * kEpAddrLength);
    if (entry.type == kAddrPath) {
      PathData pd;
      pd.flags = entry.flags;
      pd.path = entry.path();
      out->paths.push_back(pd);
      continue;
    }
    bool text_or_ip = entry.type == kAddrName || entry.type == kAddrIp || entry.type == kAddrIp6;
    if (!entry.is_source() || !text_or_ip)
      return Malformed("resolve", "entry " + std::to_string(i) +
                                      " is neither a path nor a source address (" +
                                      entry.ToString() + ")");
    if (out->has_source) return Malformed("resolve", "more than one source address");
    out->has_source = true;
    out->source = entry;
  }
  if (out->paths.empty()) return Malformed("resolve", "success without a path record");
  return Status::Ok();
}

Status DecodePerfResponse(const uint8_t* buf, size_t len, PerfResponse* out) {
  *out = PerfResponse();
  Status st = CheckReply(buf, len, kOpPerfQuery, "perf query", &out->hdr);
  if (!st.ok() || out->hdr.status != kStatusSuccess) return st;
  size_t count = out->hdr.data[kDataSourceOut];
  if (out->hdr.length != kHeaderLength + count * 8)
    return Malformed("perf query", std::to_string(count) + " counters do not fill length " +
                                       std::to_string(out->hdr.length));
  for (size_t i = 0; i < count; ++i) out->counters.push_back(GetBe64(buf + kHeaderLength + i * 8));
  return Status::Ok();
}

Status DecodeEpQueryResponse(const uint8_t* buf, size_t len, EpQueryResponse* out) {
  *out = EpQueryResponse();
  Status st = CheckReply(buf, len, kOpEpQuery, "endpoint query", &out->hdr);
  if (!st.ok() || out->hdr.status != kStatusSuccess) return st;
  if (out->hdr.length < kHeaderLength + kEpConfigLength)
    return Malformed("endpoint query", "length " + std::to_string(out->hdr.length) +
                                           " is too short for the endpoint data");
  const uint8_t* p = buf + kHeaderLength;
  size_t count = GetBe16(p + 14);
  if (out->hdr.length != kHeaderLength + kEpConfigLength + count * kMaxAddress)
    return Malformed("endpoint query", std::to_string(count) + " addresses do not fill length " +
                                           std::to_string(out->hdr.length));
  EpConfig& c = out->config;
  c.dev_guid = GetBe64(p);
  c.port_num = p[8];
  c.phys_port_cnt = p[9];
  c.pkey = GetBe16(p + 12);
  c.prov_name = TextField(p + 16, kMaxProvName);
  for (size_t i = 0; i < count; ++i)
    c.addrs.push_back(TextField(p + kEpConfigLength + i * kMaxAddress, kMaxAddress));
  return Status::Ok();
}

}  // namespace acm
}  // namespace ssa
