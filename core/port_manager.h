// port_manager.h: turns what libibumad reports into the core model and keeps
// the providers' view of it current.
//
// Start() discovers every CA port, picks each port's provider
// (ProviderSelector), opens device/port in it, and for an ACTIVE port one
// endpoint per valid P_Key with the addresses acm_addr.cfg gives it. A
// timer re-reads the ports every port_poll_ms: LID, SM LID/SL, state and
// P_Key changes are logged, the port's SA client is re-targeted and the
// provider told (port_changed), endpoints opened or closed as the port comes
// up or goes down. The IP addresses of IPoIB interfaces are read at start
// and then kept current by the address watcher (core/addr_watch/): one
// added to an interface becomes an address of the endpoints of the port and
// P_Key the interface runs on; one deleted is removed from them (provider
// remove_address). Loop thread only; borrows everything it is given.
#ifndef IBACM_SSA_CORE_PORT_MANAGER_H
#define IBACM_SSA_CORE_PORT_MANAGER_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/status.h"
#include "core/addr_config.h"
#include "core/addr_watch/ipoib_addresses.h"
#include "core/core_model.h"
#include "core/core_options.h"
#include "core/port_events.h"

namespace ssa {

class ProviderHost;
class ProviderSelector;

class PortManager {
 public:
  // Discovery is injectable so tests can feed port changes.
  using DiscoverFn = std::function<Status(std::vector<UmadPort>*)>;
  // Where the IPoIB addresses come from (default: ListIpoibAddresses).
  using ListIpoibFn = std::function<Status(std::vector<IpoibAddress>*)>;

  PortManager(EventLoop* loop, Logger* log, ProviderHost* host, const ProviderSelector* selector,
              const CoreOptions* options, const AddrConfig* addrs);
  ~PortManager();
  PortManager(const PortManager&) = delete;
  PortManager& operator=(const PortManager&) = delete;

  void set_discover_fn(DiscoverFn fn) { discover_ = std::move(fn); }
  void set_list_ipoib_fn(ListIpoibFn fn) { list_ipoib_ = std::move(fn); }
  Status Start();
  void Stop();
  // Re-reads the ports now (also runs from the poll timer).
  void Poll();
  // Hardware port events (PortEvents): one re-read, then each event with
  // an ssa_port_event value goes to the port's provider (port_event, ABI
  // 1.1), after any port_changed the re-read caused.
  void HandleEvents(const std::vector<PortEventNote>& notes);

  // Lookups for the request dispatcher. Only ACTIVE ports count.
  // `index` is 0-based over all endpoints; `port_num` 0 means any port.
  CoreEndpoint* EndpointByIndex(int index, int port_num);
  CoreAddress* FindAddress(const ssa_address& addr, CoreEndpoint** ep);
  // The endpoint a path request leaves from: by SGID, then SLID, then the
  // DGID's subnet prefix, and its P_Key if the path names one.
  CoreAddress* FindForPath(const ibv_path_record& path, CoreEndpoint** ep);
  // Default source when a client gives none and no route picks one.
  CoreAddress* FirstAddress(CoreEndpoint** ep);
  // Sets path->sgid to the GID of port `ca`/`port_num` when the SGID is
  // zero and the daemon serves that port (the kernel's requests name it).
  void FillSourceGid(const std::string& ca, int port_num, ibv_path_record* path) const;

  // IPoIB addresses at run time. Add: false if (ifindex, address) is known
  // already. Remove: false if it was not. Each returns, in `endpoints`, on
  // how many endpoints the address was added or removed.
  bool AddIpoibAddress(const IpoibAddress& addr, int* endpoints);
  bool RemoveIpoibAddress(int ifindex, const ssa_address& addr, int* endpoints);
  // After events were lost: makes the known set equal `now`; returns how
  // many addresses were added and removed.
  void ResyncIpoibAddresses(const std::vector<IpoibAddress>& now, int* added, int* removed);
  // Re-reads the IPoIB addresses through the ListIpoibFn and resyncs.
  Status RereadIpoibAddresses(int* added, int* removed);
  const std::vector<std::unique_ptr<CorePort>>& ports() const { return ports_; }
  size_t endpoint_count() const;

 private:
  CoreDevice* DeviceFor(const UmadPort& p);
  void OpenPort(CorePort* port);
  void OpenEndpoints(CorePort* port);
  void CloseEndpoints(CorePort* port);
  bool AddAddress(CorePort* port, CoreEndpoint* ep, const ssa_address& addr,
                  const std::string& text, bool from_ipoib);
  int AddIpoibToEndpoints(const IpoibAddress& ip);
  static bool IpoibOnEndpoint(const IpoibAddress& ip, const CorePort& port, const CoreEndpoint& ep);
  void ClosePort(CorePort* port);
  void ApplyChange(CorePort* port, const UmadPort& now);
  std::vector<const AddrConfigEntry*> AddressesFor(const CorePort& port, uint16_t pkey,
                                                   bool first_endpoint);
  void SchedulePoll();

  EventLoop* loop_;
  Logger* log_;
  ProviderHost* host_;
  const ProviderSelector* selector_;
  const CoreOptions* options_;
  const AddrConfig* addrs_;
  DiscoverFn discover_;
  ListIpoibFn list_ipoib_;
  std::vector<std::unique_ptr<CoreDevice>> devices_;
  std::vector<std::unique_ptr<CorePort>> ports_;
  std::vector<AddrConfigEntry> generated_;  // host-name addresses when no file
  std::vector<IpoibAddress> ipoib_;         // IPs of IPoIB interfaces, kept current
  EventLoop::TimerId poll_timer_ = 0;
};

}  // namespace ssa

#endif
