// addr_watcher.h: follows the host's IP addresses at run time (rtnetlink
// RTM_NEWADDR / RTM_DELADDR, IPv4 and IPv6), so that an address added to an
// IPoIB interface becomes an endpoint address and a deleted one leaves the
// providers, as upstream ibacm does.
//
// Start() opens a NETLINK_ROUTE socket (through the NetlinkOpenFn seam)
// joined to RTMGRP_IPV4_IFADDR and RTMGRP_IPV6_IFADDR; the daemon starts it
// before it reads the addresses at start-up, so nothing added in between
// is missed (an address seen twice is added once). Each new address is
// looked up by interface index (LinkInfoSource): addresses of other
// interfaces (Ethernet, loopback, dummy...) are filtered out; an IPoIB
// interface's gives the port GID and P_Key that pick the endpoints. When
// the kernel drops events (socket buffer full), the whole set is read again
// and reconciled.
//
// Bad messages are counted and logged rate-limited; each change is logged
// with the running totals. Owned by the daemon; borrows the reactor,
// logger, link source and sink. Loop thread only.
#ifndef IBACM_SSA_CORE_ADDR_WATCH_ADDR_WATCHER_H
#define IBACM_SSA_CORE_ADDR_WATCH_ADDR_WATCHER_H

#include <cstdint>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/base/status.h"
#include "core/addr_watch/ipoib_addresses.h"
#include "core/addr_watch/link_info.h"
#include "core/addr_watch/rtnl_addr_codec.h"
#include "core/netlink/netlink_socket.h"

namespace ssa {

// Where address changes go (the daemon's PortManager; a recorder in tests).
class IpoibAddressSink {
 public:
  virtual ~IpoibAddressSink() = default;
  // False when already known / not known; `endpoints`: how many endpoints
  // the change touched.
  virtual bool AddIpoib(const IpoibAddress& addr, int* endpoints) = 0;
  virtual bool RemoveIpoib(int ifindex, const ssa_address& addr, int* endpoints) = 0;
  // Reads every IPoIB address again and reconciles.
  virtual Status RereadIpoib(int* added, int* removed) = 0;
};

class AddrWatcher {
 public:
  struct Stats {
    uint64_t added = 0;         // addresses that became endpoint addresses
    uint64_t removed = 0;       // addresses removed from the endpoints
    uint64_t not_ipoib = 0;     // events of other interfaces, filtered out
    uint64_t unknown_link = 0;  // new addresses of interfaces gone meanwhile
    uint64_t unchanged = 0;     // events that changed nothing (repeats, unknown deletes)
    uint64_t malformed = 0;     // bad messages or datagrams
    uint64_t ignored = 0;       // other message types, not from the kernel
    uint64_t overflows = 0;     // events lost (ENOBUFS), each followed by a re-read
  };

  AddrWatcher(Reactor* reactor, Logger* log, LinkInfoSource* links, IpoibAddressSink* sink);
  ~AddrWatcher();
  AddrWatcher(const AddrWatcher&) = delete;
  AddrWatcher& operator=(const AddrWatcher&) = delete;

  // True when watching; false (logged once) when rtnetlink cannot be opened.
  bool Start(const NetlinkOpenFn& open);
  void Stop();
  bool active() const { return socket_ != nullptr; }
  const Stats& stats() const { return stats_; }

 private:
  void OnReadable();
  void HandleDatagram(const uint8_t* data, size_t len);
  void HandleEvent(const AddrEvent& ev);
  void Reread();

  Reactor* reactor_;
  Logger* log_;
  LinkInfoSource* links_;
  IpoibAddressSink* sink_;
  std::unique_ptr<NetlinkSocket> socket_;
  Stats stats_;
  RateLimitedLog bad_log_;
};

}  // namespace ssa

#endif
