// core_model.h: the daemon's view of the local fabric attachment:
// devices -> ports -> endpoints (one per P_Key) -> addresses, each with the
// context its provider returned when the core opened it.
//
// Owned by PortManager (which builds and tears these down); read by the
// request dispatcher. Loop thread only. Raw pointers between levels borrow:
// a child never outlives its parent.
#ifndef IBACM_SSA_CORE_CORE_MODEL_H
#define IBACM_SSA_CORE_CORE_MODEL_H

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <infiniband/acm.h>

#include <ibacm_ssa/provider.h>
#include "common/mad/umad_ports.h"

namespace ssa {

class ProviderInstance;
class SaClient;
struct CorePort;

// Upstream's ACM_CNTR_* counters, daemon-wide.
using CounterArray = std::array<uint64_t, ACM_MAX_COUNTER>;

struct CoreAddress {
  ssa_address addr{};
  std::string text;          // printable, as EP_QUERY lists it
  void* prov_ctx = nullptr;  // from add_address
  // Found on an IPoIB interface (at start-up or through rtnetlink), not
  // configured: such an address goes when the interface loses it.
  bool from_ipoib = false;
};

struct CoreEndpoint {
  CorePort* port = nullptr;
  uint16_t pkey = 0;
  uint16_t pkey_index = 0;
  void* prov_ctx = nullptr;  // from open_endpoint
  std::vector<std::unique_ptr<CoreAddress>> addresses;
};

struct CoreDevice {
  std::string name;
  uint64_t node_guid = 0;
  int port_count = 0;
};

struct CorePort {
  CoreDevice* device = nullptr;
  UmadPort info;
  ProviderInstance* provider = nullptr;  // null: no provider serves it
  void* dev_ctx = nullptr;               // the provider's device context
  void* prov_ctx = nullptr;              // from open_port
  bool open = false;                     // opened in the provider
  std::unique_ptr<SaClient> sa;          // SA MAD service for providers
  std::vector<std::unique_ptr<CoreEndpoint>> endpoints;
  std::vector<uint16_t> pkeys_for_provider;  // storage behind ssa_port_info
  ssa_core_port_t* handle() { return reinterpret_cast<ssa_core_port_t*>(this); }
  static CorePort* FromHandle(ssa_core_port_t* h) { return reinterpret_cast<CorePort*>(h); }
};

// Fills the ABI view of a port; `storage` keeps the P_Key array alive.
ssa_port_info MakePortInfo(const UmadPort& p, std::vector<uint16_t>* storage);

}  // namespace ssa

#endif
