// ipoib_addresses.cc: see ipoib_addresses.h.
#include "core/addr_watch/ipoib_addresses.h"

#include <netinet/in.h>

#include <cstring>

namespace ssa {

Status ListIpoibAddresses(std::vector<IpoibAddress>* out) {
  std::vector<IpoibIp> ips;
  Status st = ListIpoibIps(&ips);
  out->clear();
  if (!st.ok()) return st;
  for (const IpoibIp& ip : ips) {
    IpoibAddress a;
    a.ifname = ip.ifname;
    a.ifindex = ip.ifindex;
    a.address.size = sizeof(a.address);
    a.address.type = ip.family == AF_INET ? SSA_ADDR_IP : SSA_ADDR_IP6;
    std::memcpy(a.address.data, ip.addr.data(), ip.family == AF_INET ? 4 : 16);
    a.text = ip.text;
    a.gid_prefix = ip.gid_prefix;
    a.port_guid = ip.port_guid;
    a.pkey = ip.pkey;
    out->push_back(a);
  }
  return Status::Ok();
}

}  // namespace ssa
