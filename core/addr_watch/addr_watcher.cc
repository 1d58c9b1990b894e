// addr_watcher.cc: rtnetlink address events to endpoint addresses (see
// addr_watcher.h).
#include "core/addr_watch/addr_watcher.h"

#include <linux/rtnetlink.h>
#include <sys/epoll.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ssa {

namespace {
constexpr size_t kReceiveBuffer = 16384;  // a burst of address events
constexpr int kReadBurst = 64;
}  // namespace

AddrWatcher::AddrWatcher(Reactor* reactor, Logger* log, LinkInfoSource* links,
                         IpoibAddressSink* sink)
    : reactor_(reactor),
      log_(log),
      links_(links),
      sink_(sink),
      bad_log_(log, std::chrono::seconds(10)) {}

AddrWatcher::~AddrWatcher() { Stop(); }

bool AddrWatcher::Start(const NetlinkOpenFn& open) {
  std::unique_ptr<NetlinkSocket> sock;
  Status st = open(NETLINK_ROUTE, RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR, &sock);
  if (!st.ok()) {
    SSA_LOG(*log_, kWarn,
            "IP address changes are not followed (%s): IPoIB addresses are those at start-up",
            st.ToString().c_str());
    return false;
  }
  st = reactor_->WatchFd(sock->fd(), EPOLLIN, [this](uint32_t) { OnReadable(); });
  if (!st.ok()) {
    SSA_LOG(*log_, kError, "address watch: %s", st.ToString().c_str());
    return false;
  }
  socket_ = std::move(sock);
  SSA_LOG(*log_, kInfo, "following IPv4/IPv6 address changes of IPoIB interfaces (rtnetlink)");
  return true;
}

void AddrWatcher::Stop() {
  if (!socket_) return;
  reactor_->UnwatchFd(socket_->fd());
  socket_.reset();
  if (stats_.added || stats_.removed || stats_.malformed || stats_.overflows)
    SSA_LOG(*log_, kInfo,
            "address watch stopped: %llu addresses added, %llu removed, %llu bad messages, "
            "%llu overflows",
            static_cast<unsigned long long>(stats_.added),
            static_cast<unsigned long long>(stats_.removed),
            static_cast<unsigned long long>(stats_.malformed),
            static_cast<unsigned long long>(stats_.overflows));
}

void AddrWatcher::OnReadable() {
  NetlinkDrainResult r =
      DrainNetlinkSocket(socket_.get(), kReceiveBuffer, kReadBurst,
                         [this](const uint8_t* data, size_t len) { HandleDatagram(data, len); });
  stats_.malformed += r.errors;
  stats_.ignored += r.foreign;
  if (r.errors)
    bad_log_.Log(LogLevel::kWarn, "receive", "address watch: receive: %s", strerror(r.last_error));
  if (r.foreign)
    bad_log_.Log(LogLevel::kWarn, "sender", "address watch: message not from the kernel, dropped");
  // After the burst: what is still queued is newer than what the re-read
  // sees, and applying it afterwards is harmless (repeats change nothing).
  if (r.overflows) {
    ++stats_.overflows;
    Reread();
  }
}

void AddrWatcher::Reread() {
  int added = 0, removed = 0;
  Status st = sink_->RereadIpoib(&added, &removed);
  stats_.added += static_cast<uint64_t>(added);
  stats_.removed += static_cast<uint64_t>(removed);
  if (!st.ok())
    SSA_LOG(*log_, kWarn, "address watch: events lost and the addresses not re-read: %s",
            st.ToString().c_str());
  else
    SSA_LOG(*log_, kWarn, "address watch: events lost; addresses re-read: %d added, %d removed",
            added, removed);
}

void AddrWatcher::HandleDatagram(const uint8_t* data, size_t len) {
  NlMessageReader reader(data, len);
  NlMessage msg;
  while (reader.Next(&msg)) {
    AddrEvent ev;
    std::string why;
    switch (DecodeAddrMessage(msg, &ev, &why)) {
      case AddrDecode::kEvent: HandleEvent(ev); break;
      case AddrDecode::kIgnored: ++stats_.ignored; break;
      case AddrDecode::kError:
        ++stats_.malformed;
        bad_log_.Log(LogLevel::kWarn, "message", "address watch: bad address message: %s",
                     why.c_str());
        break;
    }
  }
  if (!reader.error().empty()) {
    ++stats_.malformed;
    bad_log_.Log(LogLevel::kWarn, "framing", "address watch: bad datagram: %s",
                 reader.error().c_str());
  }
}

void AddrWatcher::HandleEvent(const AddrEvent& ev) {
  int endpoints = 0;
  if (!ev.added) {
    // The interface may be gone already: what was added is known by index.
    if (!sink_->RemoveIpoib(ev.ifindex, ev.address, &endpoints)) {
      ++stats_.unchanged;
      return;
    }
    ++stats_.removed;
    SSA_LOG(*log_, kInfo,
            "address %s deleted from interface %d: removed from %d endpoints (%llu added, %llu "
            "removed since start)",
            ev.text.c_str(), ev.ifindex, endpoints, static_cast<unsigned long long>(stats_.added),
            static_cast<unsigned long long>(stats_.removed));
    return;
  }
  LinkInfo link;
  if (!links_->Lookup(ev.ifindex, &link)) {
    ++stats_.unknown_link;
    SSA_LOG(*log_, kDebug, "address %s: interface %d is gone", ev.text.c_str(), ev.ifindex);
    return;
  }
  if (!link.ipoib) {
    ++stats_.not_ipoib;
    SSA_LOG(*log_, kDebug, "address %s on %s (type %d): not IPoIB, ignored", ev.text.c_str(),
            link.ifname.c_str(), link.type);
    return;
  }
  IpoibAddress ip;
  ip.ifname = link.ifname;
  ip.ifindex = ev.ifindex;
  ip.address = ev.address;
  ip.text = ev.text;
  ip.gid_prefix = link.gid_prefix;
  ip.port_guid = link.port_guid;
  ip.pkey = link.pkey;
  if (!sink_->AddIpoib(ip, &endpoints)) {
    ++stats_.unchanged;  // e.g. IPv6 duplicate address detection finishing
    return;
  }
  ++stats_.added;
  SSA_LOG(*log_, kInfo,
          "address %s added to IPoIB %s (port guid 0x%016llx pkey 0x%04x): on %d endpoints (%llu "
          "added, %llu removed since start)",
          ev.text.c_str(), link.ifname.c_str(), static_cast<unsigned long long>(link.port_guid),
          link.pkey, endpoints, static_cast<unsigned long long>(stats_.added),
          static_cast<unsigned long long>(stats_.removed));
}

}  // namespace ssa
