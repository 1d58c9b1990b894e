// ipoib_interfaces.h: the IP addresses of the host's IPoIB network
// interfaces (getifaddrs), each with the port it runs on (the GID in the
// interface's hardware address) and its P_Key. Plain host networking, no
// provider ABI: the core makes endpoint addresses of them
// (core/addr_watch/ipoib_addresses.h), a tree member picks the address it
// announces (common/tree/announce.h). The simulated fabric has no IPoIB
// interfaces; there the list is empty.
//
// Plain functions; any thread.
#ifndef IBACM_SSA_COMMON_BASE_IPOIB_INTERFACES_H
#define IBACM_SSA_COMMON_BASE_IPOIB_INTERFACES_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {

struct IpoibIp {
  std::string ifname;
  int ifindex = 0;                 // the interface's index, as rtnetlink names it
  int family = 0;                  // AF_INET or AF_INET6
  std::array<uint8_t, 16> addr{};  // network order: 4 bytes for AF_INET, 16 for AF_INET6
  std::string text;                // "10.0.0.1" / "fe80::1"
  uint64_t gid_prefix = 0;         // of the port the interface runs on
  uint64_t port_guid = 0;
  uint16_t pkey = 0xffff;
};

// The 20-byte IPoIB hardware address is 4 bytes of flags/QPN followed by
// the port GID; returns false if `len` is not 20.
bool ParseIpoibHwAddr(const uint8_t* hw, size_t len, uint64_t* gid_prefix, uint64_t* port_guid);

// Every IP address on an IPoIB interface (getifaddrs; P_Key from
// /sys/class/net/IF/pkey).
Status ListIpoibIps(std::vector<IpoibIp>* out);

}  // namespace ssa

#endif
