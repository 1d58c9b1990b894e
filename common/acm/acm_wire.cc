// acm_wire.cc: the parts of the ibacm protocol codec both sides share: the
// header, address entries, framing, and names for logs. Requests and replies
// live in acm_wire_server.cc and acm_wire_client.cc.
#include "common/acm/acm_wire.h"

#include <arpa/inet.h>
#include <infiniband/acm.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

#include "common/acm/acm_wire_internal.h"
#include "common/base/big_endian.h"

namespace ssa {
namespace acm {

// Our constants and offsets are the system header's: a drift fails the build.
static_assert(kVersion == ACM_VERSION, "version");
static_assert(kOpMask == ACM_OP_MASK && kOpAck == ACM_OP_ACK, "opcode bits");
static_assert(kOpResolve == ACM_OP_RESOLVE && kOpPerfQuery == ACM_OP_PERF_QUERY &&
                  kOpEpQuery == ACM_OP_EP_QUERY,
              "opcodes");
static_assert(kStatusSuccess == ACM_STATUS_SUCCESS && kStatusENoMem == ACM_STATUS_ENOMEM &&
                  kStatusEInval == ACM_STATUS_EINVAL && kStatusENoData == ACM_STATUS_ENODATA &&
                  kStatusENotConn == ACM_STATUS_ENOTCONN &&
                  kStatusETimedOut == ACM_STATUS_ETIMEDOUT &&
                  kStatusESrcAddr == ACM_STATUS_ESRCADDR &&
                  kStatusESrcType == ACM_STATUS_ESRCTYPE &&
                  kStatusEDestAddr == ACM_STATUS_EDESTADDR &&
                  kStatusEDestType == ACM_STATUS_EDESTTYPE,
              "status codes");
static_assert(kAddrName == ACM_EP_INFO_NAME && kAddrIp == ACM_EP_INFO_ADDRESS_IP &&
                  kAddrIp6 == ACM_EP_INFO_ADDRESS_IP6 && kAddrPath == ACM_EP_INFO_PATH,
              "address types");
static_assert(kEpFlagSource == ACM_EP_FLAG_SOURCE && kEpFlagDest == ACM_EP_FLAG_DEST &&
                  kFlagQuerySa == static_cast<uint32_t>(ACM_FLAGS_QUERY_SA) &&
                  kFlagNoDelay == static_cast<uint32_t>(ACM_FLAGS_NODELAY),
              "flags");
static_assert(kPathFlagGmp == IBV_PATH_FLAG_GMP && kPathFlagPrimary == IBV_PATH_FLAG_PRIMARY &&
                  kPathFlagAlternate == IBV_PATH_FLAG_ALTERNATE &&
                  kPathFlagOutbound == IBV_PATH_FLAG_OUTBOUND &&
                  kPathFlagInbound == IBV_PATH_FLAG_INBOUND &&
                  kPathFlagInboundReverse == IBV_PATH_FLAG_INBOUND_REVERSE &&
                  kPathFlagBidirectional == IBV_PATH_FLAG_BIDIRECTIONAL,
              "path flags");
static_assert(static_cast<int>(kMaxCounter) == static_cast<int>(ACM_MAX_COUNTER) &&
                  static_cast<int>(kCntrError) == static_cast<int>(ACM_CNTR_ERROR) &&
                  static_cast<int>(kCntrRouteCache) == static_cast<int>(ACM_CNTR_ROUTE_CACHE),
              "counters");
static_assert(kHeaderLength == ACM_MSG_HDR_LENGTH && sizeof(acm_hdr) == kHeaderLength, "hdr");
static_assert(offsetof(acm_hdr, data) == 3 && offsetof(acm_hdr, length) == 6 &&
                  offsetof(acm_hdr, tid) == 8,
              "hdr layout");
static_assert(kEpAddrLength == ACM_MSG_EP_LENGTH && sizeof(acm_ep_addr_data) == kEpAddrLength &&
                  offsetof(acm_ep_addr_data, type) == 4 && offsetof(acm_ep_addr_data, info) == 8,
              "ep addr layout");
static_assert(kMaxAddress == ACM_MAX_ADDRESS && sizeof(acm_ep_info) == kMaxAddress, "ep info");
static_assert(kPathRecordLength == sizeof(ibv_path_record), "path record");
static_assert(kMaxDataLength == ACM_MSG_DATA_LENGTH && sizeof(acm_msg) == kMaxMsgLength, "acm_msg");
static_assert(kMaxProvName == ACM_MAX_PROV_NAME && sizeof(acm_ep_config_data) == kEpConfigLength &&
                  offsetof(acm_ep_config_data, port_num) == 8 &&
                  offsetof(acm_ep_config_data, phys_port_cnt) == 9 &&
                  offsetof(acm_ep_config_data, pkey) == 12 &&
                  offsetof(acm_ep_config_data, addr_cnt) == 14 &&
                  offsetof(acm_ep_config_data, prov_name) == 16,
              "ep config layout");

using namespace internal;

// ---- Names.

const char* AcmStatusName(uint8_t status) {
  switch (status) {
    case kStatusSuccess: return "SUCCESS";
    case kStatusENoMem: return "ENOMEM";
    case kStatusEInval: return "EINVAL";
    case kStatusENoData: return "ENODATA";
    case kStatusENotConn: return "ENOTCONN";
    case kStatusETimedOut: return "ETIMEDOUT";
    case kStatusESrcAddr: return "ESRCADDR";
    case kStatusESrcType: return "ESRCTYPE";
    case kStatusEDestAddr: return "EDESTADDR";
    case kStatusEDestType: return "EDESTTYPE";
    default: return "UNKNOWN";
  }
}

const char* CounterName(int index) {
  static const char* const kNames[kMaxCounter] = {
      "Error Count",      "Resolve Count",     "No Data",           "Addr Query Count",
      "Addr Cache Count", "Route Query Count", "Route Cache Count",
  };
  // Upstream's bounds check lets index 7 read past its table; ours does not.
  if (index < 0 || index >= kMaxCounter) return "Unknown";
  return kNames[index];
}

const char* OpcodeName(uint8_t opcode) {
  switch (opcode & kOpMask) {
    case kOpResolve: return "resolve";
    case kOpPerfQuery: return "perf_query";
    case kOpEpQuery: return "ep_query";
    default: return "unknown";
  }
}

const char* AddressTypeName(uint16_t type) {
  switch (type) {
    case kAddrName: return "name";
    case kAddrIp: return "ip";
    case kAddrIp6: return "ip6";
    case kAddrGid: return "gid";
    case kAddrLid: return "lid";
    case kAddrPath: return "path";
    default: return "unknown";
  }
}

namespace {

std::string GidText(const uint8_t raw[16]) {
  char buf[INET6_ADDRSTRLEN];
  if (!inet_ntop(AF_INET6, raw, buf, sizeof(buf))) return "?";
  return buf;
}

// Gb/s of an IB rate code (enum ibv_rate); nullptr if unknown.
const char* RateText(unsigned code) {
  static const char* const kRates[] = {nullptr, nullptr, "2.5", "10", "30", "5",   "20",  "40",
                                       "60",    "80",    "120", "14", "56", "112", "168", "25",
                                       "100",   "200",   "300", "28", "50", "400", "600"};
  if (code >= sizeof(kRates) / sizeof(kRates[0])) return nullptr;
  return kRates[code];
}

// Names may come from a client: never put raw control bytes into a log line.
std::string Printable(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char esc[5];
      std::snprintf(esc, sizeof(esc), "\\x%02x", c);
      out += esc;
    }
  }
  return out;
}

}  // namespace

std::string FormatPathRecord(const ibv_path_record& p) {
  uint32_t flow_hop = FromBe32(p.flowlabel_hoplimit);
  unsigned mtu = p.mtu & 0x3f;
  unsigned rate = p.rate & 0x3f;
  const char* rate_text = RateText(rate);
  char buf[384];
  std::snprintf(buf, sizeof(buf),
                "dlid 0x%04x slid 0x%04x dgid %s sgid %s pkey 0x%04x sl %u mtu %u",
                FromBe16(p.dlid), FromBe16(p.slid), GidText(p.dgid.raw).c_str(),
                GidText(p.sgid.raw).c_str(), FromBe16(p.pkey), FromBe16(p.qosclass_sl) & 0xfu, mtu);
  std::string out = buf;
  if (mtu >= 1 && mtu <= 5) out += " (" + std::to_string(128u << mtu) + ")";
  out += " rate " + std::to_string(rate);
  if (rate_text) out += std::string(" (") + rate_text + " Gb/s)";
  std::snprintf(buf, sizeof(buf),
                " pkt_life %u hop_limit %u flow_label 0x%05x tclass %u reversible %u numpath %u "
                "service_id 0x%016llx",
                p.packetlifetime & 0x3fu, flow_hop & 0xffu, (flow_hop >> 8) & 0xfffffu, p.tclass,
                (p.reversible_numpath >> 7) & 1u, p.reversible_numpath & 0x7fu,
                static_cast<unsigned long long>(FromBe64(p.service_id)));
  return out + buf;
}

// ---- Header.

bool LengthIsHostOrder(uint8_t opcode) { return (opcode & kOpMask) == kOpResolve; }

MsgHeader MsgHeader::Decode(const uint8_t* p) {
  MsgHeader h;
  h.version = p[0];
  h.opcode = p[1];
  h.status = p[2];
  h.data = {p[3], p[4], p[5]};
  h.length = LengthIsHostOrder(h.opcode) ? LoadHost16(p + 6) : GetBe16(p + 6);
  std::memcpy(&h.tid, p + 8, sizeof(h.tid));
  return h;
}

void MsgHeader::Encode(uint8_t* p) const {
  p[0] = version;
  p[1] = opcode;
  p[2] = status;
  p[3] = data[0];
  p[4] = data[1];
  p[5] = data[2];
  if (LengthIsHostOrder(opcode))
    StoreHost16(p + 6, length);
  else
    PutBe16(p + 6, length);
  std::memcpy(p + 8, &tid, sizeof(tid));
}

// ---- Address entries.

EpAddr EpAddr::Decode(const uint8_t* p) {
  EpAddr a;
  a.flags = LoadHost32(p);
  a.type = LoadHost16(p + 4);
  std::memcpy(a.info.data(), p + 8, kMaxAddress);
  return a;
}

void EpAddr::Encode(uint8_t* p) const {
  StoreHost32(p, flags);
  StoreHost16(p + 4, type);
  StoreHost16(p + 6, 0);
  std::memcpy(p + 8, info.data(), kMaxAddress);
}

bool EpAddr::SetName(const std::string& text) {
  if (text.size() > kMaxAddress) return false;
  type = kAddrName;
  info.fill(0);
  std::memcpy(info.data(), text.data(), text.size());
  return true;
}

void EpAddr::SetIpv4(const in_addr& addr) {
  type = kAddrIp;
  info.fill(0);
  std::memcpy(info.data(), &addr, sizeof(addr));
}

void EpAddr::SetIpv6(const in6_addr& addr) {
  type = kAddrIp6;
  info.fill(0);
  std::memcpy(info.data(), &addr, sizeof(addr));
}

void EpAddr::SetGid(const ibv_gid& gid) {
  type = kAddrGid;
  info.fill(0);
  std::memcpy(info.data(), gid.raw, sizeof(gid.raw));
}

void EpAddr::SetLid(uint16_t value) {
  type = kAddrLid;
  info.fill(0);
  PutBe16(info.data(), value);
}

void EpAddr::SetPath(const ibv_path_record& record) {
  type = kAddrPath;
  std::memcpy(info.data(), &record, sizeof(record));
}

std::string EpAddr::name() const { return TextField(info.data(), kMaxAddress); }

ibv_path_record EpAddr::path() const {
  ibv_path_record record;
  std::memcpy(&record, info.data(), sizeof(record));
  return record;
}

uint16_t EpAddr::lid() const { return GetBe16(info.data()); }

std::string EpAddr::ToString() const {
  char buf[INET6_ADDRSTRLEN];
  switch (type) {
    case kAddrName: return "name " + Printable(name());
    case kAddrIp:
      inet_ntop(AF_INET, info.data(), buf, sizeof(buf));
      return std::string("ip ") + buf;
    case kAddrIp6: return "ip6 " + GidText(info.data());
    case kAddrGid: return "gid " + GidText(info.data());
    case kAddrLid:
      std::snprintf(buf, sizeof(buf), "0x%04x", lid());
      return std::string("lid ") + buf;
    case kAddrPath: return "path " + FormatPathRecord(path());
    default: return "type " + HexText(type);
  }
}

// ---- Framing.

FrameStatus PeekFrame(const uint8_t* buf, size_t len, size_t* frame_len, std::string* error) {
  *frame_len = kHeaderLength;
  if (len < kHeaderLength) return FrameStatus::kNeedMore;
  MsgHeader h = MsgHeader::Decode(buf);
  if (h.version != kVersion) {
    if (error)
      *error = "unsupported protocol version " + std::to_string(h.version) + " (expected " +
               std::to_string(kVersion) + ")";
    return FrameStatus::kInvalid;
  }
  if (h.length < kHeaderLength || h.length > kMaxMsgLength) {
    if (error) {
      bool host_order = LengthIsHostOrder(h.opcode);
      *error = "length " + std::to_string(h.length) + " of a " + OpcodeName(h.opcode) +
               " message (opcode " + HexText(h.opcode) + ") is outside " +
               std::to_string(kHeaderLength) + ".." + std::to_string(kMaxMsgLength);
      // The classic client bug: the wrong byte order for this opcode.
      uint16_t other = host_order ? GetBe16(buf + 6) : LoadHost16(buf + 6);
      if (other >= kHeaderLength && other <= kMaxMsgLength)
        *error += host_order ? " (it looks big-endian; resolve lengths are in host byte order)"
                             : " (it looks like host order; this opcode's length is big-endian)";
    }
    return FrameStatus::kInvalid;
  }
  *frame_len = h.length;
  return len < h.length ? FrameStatus::kNeedMore : FrameStatus::kComplete;
}

}  // namespace acm
}  // namespace ssa
