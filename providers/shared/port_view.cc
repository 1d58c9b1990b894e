// port_view.cc: see port_view.h.
#include "providers/shared/port_view.h"

#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace provider_shared {

void PortView::Open(const ssa_port_info& info, const std::string& device) {
  ca_name = info.ca_name ? info.ca_name : device;
  port_num = info.port_num;
  Assign(info);
}

void PortView::Assign(const ssa_port_info& info) {
  state = info.state;
  lmc = info.lmc;
  sm_sl = info.sm_sl;
  lid = info.lid;
  sm_lid = info.sm_lid;
  gid_prefix = info.gid_prefix;
  port_guid = info.port_guid;
  rate_gbps = SSA_HAS_MEMBER(&info, rate_gbps) ? info.rate_gbps : 0;
}

bool PortView::AddressingChanges(const ssa_port_info& info) const {
  return lid != info.lid || lmc != info.lmc || gid_prefix != info.gid_prefix ||
         port_guid != info.port_guid;
}

bool PortView::SmChanges(const ssa_port_info& info) const {
  return sm_lid != info.sm_lid || sm_sl != info.sm_sl;
}

std::string PortView::ChangeText(const ssa_port_info& info) const {
  char text[64];
  snprintf(text, sizeof(text), "lid %u->%u, sm_lid %u->%u", lid, info.lid, sm_lid, info.sm_lid);
  return text;
}

void PortView::GidBytes(uint8_t out[16]) const {
  uint64_t prefix = ToBe64(gid_prefix), guid = ToBe64(port_guid);
  memcpy(out, &prefix, 8);
  memcpy(out + 8, &guid, 8);
}

std::string PortView::Name() const { return ca_name + "/" + std::to_string(port_num); }

std::string PortView::EndpointName(uint16_t pkey) const {
  char pk[16];
  snprintf(pk, sizeof(pk), "0x%04x", pkey);
  return Name() + " pkey " + pk;
}

}  // namespace provider_shared
}  // namespace ssa
