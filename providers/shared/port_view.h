// port_view.h: the attributes of a port that the core reports through
// open_port and port_changed (struct ssa_port_info), as the providers keep
// them. Each provider's port object derives from it.
#ifndef IBACM_SSA_PROVIDERS_SHARED_PORT_VIEW_H
#define IBACM_SSA_PROVIDERS_SHARED_PORT_VIEW_H

#include <endian.h>

#include <cstdint>
#include <cstring>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

struct PortView {
  uint8_t state = 0;
  uint8_t lmc = 0;
  uint8_t sm_sl = 0;
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  uint64_t gid_prefix = 0;  // host order
  uint64_t port_guid = 0;   // host order
  uint32_t rate_gbps = 0;   // 0 when the core's struct has no such member

  // Copies what `info` carries; members the core's (older, smaller) struct
  // lacks keep 0.
  void Assign(const ssa_port_info& info) {
    state = info.state;
    lmc = info.lmc;
    sm_sl = info.sm_sl;
    lid = info.lid;
    sm_lid = info.sm_lid;
    gid_prefix = info.gid_prefix;
    port_guid = info.port_guid;
    rate_gbps = SSA_HAS_MEMBER(&info, rate_gbps) ? info.rate_gbps : 0;
  }
  // The port's GID (subnet prefix, then GUID), network order.
  void GidBytes(uint8_t out[16]) const {
    uint64_t prefix = htobe64(gid_prefix), guid = htobe64(port_guid);
    memcpy(out, &prefix, 8);
    memcpy(out + 8, &guid, 8);
  }
};

}  // namespace provider_shared
}  // namespace ssa

#endif
