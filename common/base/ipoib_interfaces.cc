// ipoib_interfaces.cc: getifaddrs walk for IPoIB interfaces.
#include "common/base/ipoib_interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>

#include <cstring>
#include <fstream>
#include <map>

#include "common/base/big_endian.h"

namespace ssa {

bool ParseIpoibHwAddr(const uint8_t* hw, size_t len, uint64_t* gid_prefix, uint64_t* port_guid) {
  if (len != 20) return false;
  *gid_prefix = GetBe64(hw + 4);
  *port_guid = GetBe64(hw + 12);
  return true;
}

Status ListIpoibIps(std::vector<IpoibIp>* out) {
  out->clear();
  struct ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) < 0) return Status::FromErrno("getifaddrs");
  // First pass: which interfaces are IPoIB, and on which port GID.
  struct PortOf {
    uint64_t prefix, guid;
  };
  std::map<std::string, PortOf> ipoib;
  for (struct ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_PACKET) continue;
    auto* ll = reinterpret_cast<const sockaddr_ll*>(i->ifa_addr);
    PortOf p;
    if (ll->sll_hatype == ARPHRD_INFINIBAND &&
        ParseIpoibHwAddr(ll->sll_addr, ll->sll_halen, &p.prefix, &p.guid))
      ipoib[i->ifa_name] = p;
  }
  for (struct ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || !ipoib.count(i->ifa_name)) continue;
    int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    IpoibIp a;
    a.ifname = i->ifa_name;
    a.ifindex = static_cast<int>(if_nametoindex(i->ifa_name));
    a.family = family;
    a.gid_prefix = ipoib[a.ifname].prefix;
    a.port_guid = ipoib[a.ifname].guid;
    char text[INET6_ADDRSTRLEN] = {};
    if (family == AF_INET)
      std::memcpy(a.addr.data(), &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, 4);
    else
      std::memcpy(a.addr.data(), &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr, 16);
    inet_ntop(family, a.addr.data(), text, sizeof(text));
    a.text = text;
    std::ifstream pkey_file("/sys/class/net/" + a.ifname + "/pkey");
    std::string pkey;
    if (pkey_file >> pkey) a.pkey = static_cast<uint16_t>(strtoul(pkey.c_str(), nullptr, 16));
    out->push_back(a);
  }
  freeifaddrs(ifs);
  return Status::Ok();
}

}  // namespace ssa
