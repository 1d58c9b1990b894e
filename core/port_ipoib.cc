// port_ipoib.cc: PortManager's IPoIB addresses at run time (see
// port_manager.h): which endpoints an interface's address belongs to, and
// adding or removing it there as the address watcher reports changes.
#include <algorithm>
#include <cstring>

#include "core/port_manager.h"
#include "core/provider_host.h"

namespace ssa {

namespace {
bool SameIpoib(const IpoibAddress& a, int ifindex, const ssa_address& addr) {
  return a.ifindex == ifindex && SameAddress(a.address, addr);
}
}  // namespace

bool PortManager::IpoibOnEndpoint(const IpoibAddress& ip, const CorePort& port,
                                  const CoreEndpoint& ep) {
  // Full and limited membership are one partition, as for acm_addr.cfg.
  return ip.port_guid == port.info.port_guid && (ip.pkey | 0x8000) == (ep.pkey | 0x8000);
}

int PortManager::AddIpoibToEndpoints(const IpoibAddress& ip) {
  int added = 0;
  for (auto& port : ports_) {
    if (!port->open) continue;
    for (auto& ep : port->endpoints) {
      if (!IpoibOnEndpoint(ip, *port, *ep)) continue;
      // Configured already, or held by another interface on this port and
      // P_Key: one entry per endpoint is enough.
      bool present = std::any_of(ep->addresses.begin(), ep->addresses.end(),
                                 [&](const auto& a) { return SameAddress(a->addr, ip.address); });
      if (!present && AddAddress(port.get(), ep.get(), ip.address, ip.text, true)) ++added;
    }
  }
  return added;
}

bool PortManager::AddIpoibAddress(const IpoibAddress& ip, int* endpoints) {
  *endpoints = 0;
  for (const auto& known : ipoib_)
    if (SameIpoib(known, ip.ifindex, ip.address)) return false;
  ipoib_.push_back(ip);
  // Endpoints opened later (a port coming up) find it in ipoib_.
  *endpoints = AddIpoibToEndpoints(ip);
  return true;
}

bool PortManager::RemoveIpoibAddress(int ifindex, const ssa_address& addr, int* endpoints) {
  *endpoints = 0;
  auto it = std::find_if(ipoib_.begin(), ipoib_.end(),
                         [&](const IpoibAddress& a) { return SameIpoib(a, ifindex, addr); });
  if (it == ipoib_.end()) return false;
  IpoibAddress gone = *it;
  ipoib_.erase(it);
  for (auto& port : ports_) {
    if (!port->open) continue;
    for (auto& ep : port->endpoints) {
      if (!IpoibOnEndpoint(gone, *port, *ep)) continue;
      bool still_held = std::any_of(ipoib_.begin(), ipoib_.end(), [&](const IpoibAddress& a) {
        return SameAddress(a.address, addr) && IpoibOnEndpoint(a, *port, *ep);
      });
      if (still_held) continue;
      auto& list = ep->addresses;
      for (auto a = list.begin(); a != list.end();) {
        // A configured address stays: the administrator named it.
        if (!(*a)->from_ipoib || !SameAddress((*a)->addr, addr)) {
          ++a;
          continue;
        }
        port->provider->table()->remove_address((*a)->prov_ctx);
        SSA_LOG(*log_, kInfo, "endpoint %s/%d pkey 0x%04x: address %s removed",
                port->info.ca_name.c_str(), port->info.port_num, ep->pkey, (*a)->text.c_str());
        a = list.erase(a);
        ++*endpoints;
      }
    }
  }
  return true;
}

void PortManager::ResyncIpoibAddresses(const std::vector<IpoibAddress>& now, int* added,
                                       int* removed) {
  *added = *removed = 0;
  int endpoints;
  std::vector<IpoibAddress> before = ipoib_;
  for (const IpoibAddress& old : before) {
    bool kept = std::any_of(now.begin(), now.end(), [&](const IpoibAddress& a) {
      return SameIpoib(a, old.ifindex, old.address);
    });
    if (!kept && RemoveIpoibAddress(old.ifindex, old.address, &endpoints)) ++*removed;
  }
  for (const IpoibAddress& ip : now)
    if (AddIpoibAddress(ip, &endpoints)) ++*added;
}

Status PortManager::RereadIpoibAddresses(int* added, int* removed) {
  *added = *removed = 0;
  std::vector<IpoibAddress> now;
  Status st = list_ipoib_(&now);
  if (!st.ok()) return st;
  ResyncIpoibAddresses(now, added, removed);
  return Status::Ok();
}

}  // namespace ssa
