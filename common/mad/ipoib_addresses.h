// ipoib_addresses.h: the IPv4/IPv6 addresses of the host's IPoIB
// interfaces, matched to the port (by the GID in the interface's hardware
// address) and P_Key they run on, so endpoints answer for them as upstream
// ibacm does. The simulated fabric has no IPoIB interfaces; there the list
// is empty and acm_addr.cfg alone names endpoints.
//
// Plain functions; any thread.
#ifndef IBACM_SSA_CORE_IPOIB_ADDRESSES_H
#define IBACM_SSA_CORE_IPOIB_ADDRESSES_H

#include <cstdint>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
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

// The 20-byte IPoIB hardware address is 4 bytes of flags/QPN followed by
// the port GID; returns false if `len` is not 20.
bool ParseIpoibHwAddr(const uint8_t* hw, size_t len, uint64_t* gid_prefix, uint64_t* port_guid);

// Every IP address on an IPoIB interface (getifaddrs; P_Key from
// /sys/class/net/IF/pkey).
Status ListIpoibAddresses(std::vector<IpoibAddress>* out);

}  // namespace ssa

#endif
