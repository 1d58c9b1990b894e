// acmp_port_info.cc: PortInfoRecord query/decode and IBA MTU/rate codes
// (see acmp_port_info.h).
#include "providers/acmp/acmp_port_info.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/mad/mad_wire.h"

namespace ssa {
namespace acmp {

namespace {

struct RateEntry {
  uint8_t code;
  uint32_t mbps;
};
constexpr RateEntry kRates[] = {
    {2, 2500},    {5, 5000},    {3, 10000},   {6, 20000},  {4, 30000},   {7, 40000},   {8, 60000},
    {9, 80000},   {10, 120000}, {11, 14000},  {12, 56000}, {13, 112000}, {14, 168000}, {15, 25000},
    {16, 100000}, {17, 200000}, {18, 300000}, {19, 28000}, {20, 50000},  {21, 400000}, {22, 600000},
};

constexpr size_t kPortInfoOffset = mad::kSaDataOffset + 4;

}  // namespace

uint8_t MtuCodeFromBytes(long bytes) {
  switch (bytes) {
    case 256: return 1;
    case 512: return 2;
    case 1024: return 3;
    case 2048: return 4;
    case 4096: return 5;
    default: return 0;
  }
}

int MtuBytes(uint8_t code) { return code >= 1 && code <= 5 ? 128 << code : 0; }

uint8_t RateCodeFromGbps(double gbps) {
  uint32_t mbps = static_cast<uint32_t>(std::lround(gbps * 1000));
  for (const RateEntry& r : kRates)
    if (r.mbps == mbps) return r.code;
  return 0;
}

uint32_t RateMbps(uint8_t code) {
  for (const RateEntry& r : kRates)
    if (r.code == code) return r.mbps;
  return 0;
}

uint8_t RateCodeForLink(uint8_t width_active, uint8_t speed_active, uint8_t ext_speed_active) {
  int lanes;
  switch (width_active) {
    case 1: lanes = 1; break;
    case 2: lanes = 4; break;
    case 4: lanes = 8; break;
    case 8: lanes = 12; break;
    case 16: lanes = 2; break;
    default: return 0;
  }
  // Per-lane data rates, rounded as the IBA rate codes are (FDR 14, EDR 25).
  uint32_t lane_mbps;
  switch (ext_speed_active) {
    case 1: lane_mbps = 14000; break;   // FDR
    case 2: lane_mbps = 25000; break;   // EDR
    case 4: lane_mbps = 50000; break;   // HDR
    case 8: lane_mbps = 100000; break;  // NDR
    default:
      switch (speed_active) {
        case 1: lane_mbps = 2500; break;   // SDR
        case 2: lane_mbps = 5000; break;   // DDR
        case 4: lane_mbps = 10000; break;  // QDR
        default: return 0;
      }
  }
  uint32_t mbps = lane_mbps * static_cast<uint32_t>(lanes);
  for (const RateEntry& r : kRates)
    if (r.mbps == mbps) return r.code;
  return 0;
}

void BuildPortInfoRecordGet(uint16_t lid, uint8_t* mad) {
  mad::EncodeSaRequest(mad::kMethodGet, kAttrPortInfoRecord, 0, 1 /* EndportLID */, 0, mad);
  mad[mad::kSaDataOffset] = static_cast<uint8_t>(lid >> 8);
  mad[mad::kSaDataOffset + 1] = static_cast<uint8_t>(lid);
}

Status DecodePortInfoRecordResponse(const uint8_t* mad, size_t len, PortAttributes* out) {
  mad::MadHeader h;
  Status st = mad::DecodeMadHeader(mad, len, &h);
  if (!st.ok()) return st;
  if (h.mgmt_class != mad::kClassSubnAdm || h.method != mad::kMethodGetResp ||
      h.attr_id != kAttrPortInfoRecord) {
    char what[112];
    snprintf(what, sizeof(what),
             "expected SubnAdmGetResp(PortInfoRecord), got class 0x%02x method 0x%02x attribute "
             "0x%04x",
             h.mgmt_class, h.method, h.attr_id);
    return Status::Error(EBADMSG, what);
  }
  if (h.status != 0)
    return Status::Error(mad::MadStatusToErrno(h.status),
                         "SA answered " + mad::DescribeMadStatus(h.status));
  if (len < kPortInfoOffset + 64)
    return Status::Error(EBADMSG, "PortInfoRecord response too short");
  const uint8_t* pi = mad + kPortInfoOffset;
  out->mtu = pi[36] >> 4;
  out->rate = RateCodeForLink(pi[31], pi[35] >> 4, pi[62] >> 4);
  out->subnet_timeout = pi[51] & 0x1f;
  if (!MtuBytes(out->mtu)) {
    char what[64];
    snprintf(what, sizeof(what), "PortInfo NeighborMTU code %u is not 1..5", out->mtu);
    return Status::Error(EBADMSG, what);
  }
  return Status::Ok();
}

uint32_t SubnetTimeoutMs(uint8_t code) { return code >= 8 ? 1u << (code - 8) : 0; }

}  // namespace acmp
}  // namespace ssa
