// port_view.h: a port as the core reports it through open_port and
// port_changed (struct ssa_port_info), kept by the providers: its identity
// (CA name and number), its attributes and what a change of them means.
// Each provider's port object derives from it, so the copying, the
// comparisons and the names in log lines are written once.
//
// A plain value; the core's loop thread only, like the providers.
#ifndef IBACM_SSA_PROVIDERS_SHARED_PORT_VIEW_H
#define IBACM_SSA_PROVIDERS_SHARED_PORT_VIEW_H

#include <cstdint>
#include <string>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

struct PortView {
  std::string ca_name;
  uint8_t port_num = 0;
  uint8_t state = 0;
  uint8_t lmc = 0;
  uint8_t sm_sl = 0;
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  uint64_t gid_prefix = 0;  // host order
  uint64_t port_guid = 0;   // host order
  uint32_t rate_gbps = 0;   // 0 when the core's struct has no such member

  // At open_port: the identity (the CA name `info` gives, else `device`,
  // the name open_device had) and the attributes (Assign).
  void Open(const ssa_port_info& info, const std::string& device);
  // Copies the attributes `info` carries; members the core's (older,
  // smaller) struct lacks keep 0.
  void Assign(const ssa_port_info& info);
  // What `info` (the port's new attributes, before Assign) changes: the
  // port's addressing (LID, LMC, GID prefix or GUID), and its SM (LID or SL).
  bool AddressingChanges(const ssa_port_info& info) const;
  bool SmChanges(const ssa_port_info& info) const;
  // "lid 5->7, sm_lid 1->1", for the log line of a change.
  std::string ChangeText(const ssa_port_info& info) const;
  // The port's GID (subnet prefix, then GUID), network order.
  void GidBytes(uint8_t out[16]) const;
  // "mlx5_0/1", and an endpoint's "mlx5_0/1 pkey 0xffff", in log lines.
  std::string Name() const;
  std::string EndpointName(uint16_t pkey) const;
};

}  // namespace provider_shared
}  // namespace ssa

#endif
