// ipoib_addresses.h: the IP addresses of the host's IPoIB interfaces
// (common/base/ipoib_interfaces.h) as the core's endpoints take them, with
// the address in the provider ABI's form, so endpoints answer for them as
// upstream ibacm does. The address watcher keeps the list current.
//
// Plain functions; any thread.
#ifndef IBACM_SSA_CORE_ADDR_WATCH_IPOIB_ADDRESSES_H
#define IBACM_SSA_CORE_ADDR_WATCH_IPOIB_ADDRESSES_H

#include <cstdint>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/ipoib_interfaces.h"
#include "common/base/status.h"

namespace ssa {

struct IpoibAddress {
  std::string ifname;
  int ifindex = 0;  // the interface's index, as rtnetlink names it
  ssa_address address{};
  std::string text;         // "10.0.0.1" / "fe80::1"
  uint64_t gid_prefix = 0;  // of the port the interface runs on
  uint64_t port_guid = 0;
  uint16_t pkey = 0xffff;
};

// Every IP address on an IPoIB interface (ListIpoibIps).
Status ListIpoibAddresses(std::vector<IpoibAddress>* out);

}  // namespace ssa

#endif
