// acmp_provider.cc: the acmp provider's lifecycle: options and transport at
// init, devices/ports/endpoints/addresses, flushes when the port's SM says
// the subnet changed, and route preload.
#include "providers/acmp/acmp_provider.h"

#include <arpa/inet.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/base/option_set.h"
#include "providers/acmp/sim_datagram.h"
#include "providers/acmp/verbs_datagram.h"
#include "providers/shared/owned_list.h"
#include "providers/shared/provider_options.h"

namespace ssa {
namespace acmp {

dgram::Gid AcmpPort::Gid() const {
  dgram::Gid g;
  GidBytes(g.raw);
  return g;
}

uint32_t AcmpPort::SubnetTimeoutMs() const {
  return acmp::SubnetTimeoutMs(attrs_known ? attrs.subnet_timeout : kDefaultSubnetTimeout);
}

AcmpProvider::AcmpProvider(const ssa_core_ops* ops, ssa_core_t* core)
    : ops_(ops), core_(core), reactor_(ops, core) {
  // TIDs of a restarted daemon must not collide with its previous life's.
  tid_base_ = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count())
              << 8;
}

AcmpProvider::~AcmpProvider() {
  for (auto& kv : endpoints_) kv.second->io->Close();
  if (transport_)
    Log(SSA_LOG_INFO, "stopped (%llu SA sends failed)",
        static_cast<unsigned long long>(sa_send_failures_));
}

int AcmpProvider::Init() {
  ReadOptions();
  Status st = OpenTransport();
  if (!st.ok()) {
    Log(SSA_LOG_ERROR, "%s", st.ToString().c_str());
    return st.code();
  }
  if (options_.addr_preload) {
    size_t added = 0;
    std::vector<provider_shared::AddressFileIssue> issues;
    st = hosts_.LoadHostsFile(options_.addr_data_file, &added, &issues);
    if (!st.ok())
      Log(SSA_LOG_ERROR, "addr_preload acm_hosts: %s", st.ToString().c_str());
    else
      Log(SSA_LOG_INFO, "%s: %zu addresses (%zu bad lines skipped)",
          options_.addr_data_file.c_str(), added, issues.size());
    for (size_t i = 0; i < issues.size() && i < 10; ++i)
      Log(SSA_LOG_WARN, "%s:%d: %s", options_.addr_data_file.c_str(), issues[i].line,
          issues[i].message.c_str());
  }
  Log(SSA_LOG_INFO, "started: %s", options_.Describe().c_str());
  if (options_.stats_interval_s)
    stats_timer_ =
        reactor_.AddTimer(std::chrono::seconds(options_.stats_interval_s), [this] { LogStats(); });
  return 0;
}

void AcmpProvider::ReadOptions() {
  OptionSet set;
  options_.Bind(&set);
  provider_shared::ReadOptionsFromCore(ops_, core_, "acmp", set);
}

Status AcmpProvider::OpenTransport() {
  using T = AcmpOptions::Transport;
  T kind = options_.transport;
  const char* why = "configured";
  if (kind == T::kAuto) {
    // A process preloaded as a simulated node may still see a real HCA's
    // verbs device; its fabric is the simulated one.
    const char* sim_host = getenv("SIM_HOST");
    if (sim_host && *sim_host) {
      kind = T::kSim;
      why = "SIM_HOST is set";
    } else if (dgram::VerbsDeviceCount() == 0) {
      kind = T::kSim;
      why = "no verbs device";
    } else {
      kind = T::kVerbs;
      why = "verbs device present";
    }
  }
  if (kind == T::kVerbs) {
    transport_ = dgram::MakeVerbsDatagramTransport();
    Log(SSA_LOG_INFO, "datagram transport: verbs UD QPs (%s)", why);
  } else {
    std::string dir = options_.sim_dir.empty() ? dgram::DefaultSimDatagramDir() : options_.sim_dir;
    transport_ = dgram::MakeSimDatagramTransport(dir);
    Log(SSA_LOG_INFO, "datagram transport: simulated fabric, sockets under %s (%s)", dir.c_str(),
        why);
  }
  return Status::Ok();
}

Status AcmpProvider::OpenDatagram(const dgram::EndpointParams& params, uint64_t ep_id,
                                  std::unique_ptr<dgram::DatagramEndpoint>* out) {
  std::unique_ptr<dgram::DatagramEndpoint> ud;
  Status st = transport_->Open(params, &ud);
  if (!st.ok()) return st;
  dgram::FaultOptions f;
  f.drop_probability = options_.fault_drop_probability;
  f.delay_ms = options_.fault_delay_ms;
  f.seed = options_.fault_seed + ep_id;
  if (!f.active()) {
    *out = std::move(ud);
    return Status::Ok();
  }
  Log(SSA_LOG_WARN, "fault injection on %s pkey 0x%04x: %.0f%% of datagrams dropped, %u ms delay",
      params.ca_name.c_str(), params.pkey, f.drop_probability * 100, f.delay_ms);
  return dgram::WithFaults(std::move(ud), f, out);
}

int AcmpProvider::OpenDevice(const ssa_device_info* info, AcmpDevice** out) {
  if (!info || !SSA_HAS_MEMBER(info, name) || !info->name) return -EINVAL;
  auto dev = std::make_unique<AcmpDevice>();
  dev->prov = this;
  dev->name = info->name;
  *out = dev.get();
  devices_.push_back(std::move(dev));
  return 0;
}

void AcmpProvider::CloseDevice(AcmpDevice* dev) { provider_shared::EraseOwned(&devices_, dev); }

int AcmpProvider::OpenPort(AcmpDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
                           AcmpPort** out) {
  if (!info || !SSA_HAS_MEMBER(info, rate_gbps)) return -EINVAL;
  auto port = std::make_unique<AcmpPort>();
  port->dev = dev;
  port->id = next_id_++;
  port->core_port = core_port;
  port->Open(*info, dev->name);
  AcmpPort* raw = port.get();
  ports_.push_back(std::move(port));
  Log(SSA_LOG_DEBUG, "open_port %s lid %u sm_lid %u", raw->Name().c_str(), raw->lid, raw->sm_lid);
  if (raw->lid) QueryPortInfo(raw);
  *out = raw;
  return 0;
}

void AcmpProvider::ClosePort(AcmpPort* port) {
  for (AcmpEndpoint* ep : std::vector<AcmpEndpoint*>(port->endpoints)) CloseEndpoint(ep);
  Log(SSA_LOG_DEBUG, "close_port %s", port->Name().c_str());
  provider_shared::EraseOwned(&ports_, port);
}

void AcmpProvider::PortChanged(AcmpPort* port, const ssa_port_info* info) {
  if (!info || !SSA_HAS_MEMBER(info, rate_gbps)) return;
  bool changed = port->AddressingChanges(*info) || port->SmChanges(*info);
  std::string why = port->ChangeText(*info);
  port->Assign(*info);
  if (changed) Flush(port, why.c_str(), true);
}

// The core calls port_changed first when the re-read shows a new LID or SM,
// and that already flushed: an SM or LID event right behind it (the same
// burst) would only rejoin the groups a second time. A re-registration
// request is always honoured: the SM may have forgotten the joins.
void AcmpProvider::PortEvent(AcmpPort* port, int event) {
  const uint64_t kSameBurstMs = 1000;
  bool just_flushed = port->last_flush_ms && NowMs() - port->last_flush_ms < kSameBurstMs;
  switch (event) {
    case SSA_PORT_EVENT_CLIENT_REREGISTER:
      Flush(port, "the SM asked for client re-registration", true);
      break;
    case SSA_PORT_EVENT_SM_CHANGE:
    case SSA_PORT_EVENT_LID_CHANGE:
      if (just_flushed) {
        Log(SSA_LOG_DEBUG, "port %s: event %d: flushed for this change already",
            port->Name().c_str(), event);
      } else {
        Flush(port, event == SSA_PORT_EVENT_SM_CHANGE ? "the SM changed" : "the LID changed", true);
      }
      break;
    default: Log(SSA_LOG_DEBUG, "port %s: event %d ignored", port->Name().c_str(), event);
  }
}

// What the port's SM changed makes every cached address and route of the
// port suspect: drop them all, rejoin the groups (a new SM, or one that
// asks for re-registration, may not know them), and start the requests
// that were waiting again from scratch.
void AcmpProvider::Flush(AcmpPort* port, const char* why, bool rejoin) {
  port->last_flush_ms = NowMs();
  port->preload_parsed = false;
  port->preload = provider_shared::PreloadResult();
  for (AcmpEndpoint* ep : port->endpoints) {
    std::vector<Waiter> restart;
    size_t dropped = ep->cache->EraseIf([](const Dest&) { return true; },
                                        [&](Dest& d) {
                                          for (auto& w : d.waiters) restart.push_back(w);
                                        });
    ep->requests->Clear();
    for (auto& w : ep->until_ready) restart.push_back(w);
    ep->until_ready.clear();
    if (rejoin) {
      ep->groups->LeaveAll(false);
      dgram::EndpointParams p = ep->ud()->params();
      if (p.lid != port->lid || p.lmc != port->lmc || p.gid != port->Gid()) {
        // The datagram endpoint is addressed by LID and GID: a new one.
        p.lid = port->lid;
        p.lmc = port->lmc;
        p.gid = port->Gid();
        std::unique_ptr<dgram::DatagramEndpoint> ud;
        Status st = OpenDatagram(p, ep->id, &ud);
        if (!st.ok())
          Log(SSA_LOG_ERROR, "endpoint %s: %s; it keeps its old address", ep->Name().c_str(),
              st.ToString().c_str());
        ep->io->Rebind(std::move(ud));
      }
      ep->requests->set_try_timeout_ms(port->SubnetTimeoutMs() +
                                       static_cast<uint32_t>(options_.timeout_ms));
    }
    ApplyRoutePreload(ep);
    Log(SSA_LOG_INFO, "endpoint %s: %s: %zu cached destinations dropped, %zu requests restarted",
        ep->Name().c_str(), why, dropped, restart.size());
    if (rejoin) JoinGroups(ep);
    for (const Waiter& w : restart) Submit(ep, w);
  }
  if (rejoin && port->lid) QueryPortInfo(port);
}

int AcmpProvider::OpenEndpoint(AcmpPort* port, const ssa_endpoint_info* info, AcmpEndpoint** out) {
  if (!info || !SSA_HAS_MEMBER(info, pkey_index)) return -EINVAL;
  auto ep = std::make_unique<AcmpEndpoint>();
  ep->port = port;
  ep->id = next_id_++;
  ep->pkey = info->pkey;
  ep->pkey_index = info->pkey_index;
  dgram::EndpointParams p;
  p.ca_name = port->ca_name;
  p.port_num = port->port_num;
  p.lid = port->lid;
  p.lmc = port->lmc;
  p.gid = port->Gid();
  p.pkey = ep->pkey;
  p.pkey_index = ep->pkey_index;
  p.qkey = kAcmQkey;
  p.send_depth = static_cast<uint32_t>(options_.resolve_depth + options_.send_depth);
  p.recv_depth = static_cast<uint32_t>(options_.recv_depth);
  std::unique_ptr<dgram::DatagramEndpoint> ud;
  Status st = OpenDatagram(p, ep->id, &ud);
  if (!st.ok()) {
    Log(SSA_LOG_ERROR, "endpoint %s: %s", ep->Name().c_str(), st.ToString().c_str());
    return st.code();
  }
  ep->io = NewDatagramIo(ep.get());
  int rc = ep->io->Start(std::move(ud));
  if (rc < 0) {
    Log(SSA_LOG_ERROR, "endpoint %s: cannot watch its datagram fd (%s)", ep->Name().c_str(),
        strerror(-rc));
    return rc;
  }
  ep->groups = NewMembership(ep.get());
  ep->cache = std::make_unique<DestCache>(options_.cache_size);
  AcmpEndpoint* raw = ep.get();
  RequestTracker::Callbacks cb;
  cb.send = [this, raw](const uint8_t* msg, size_t len) { return SendToMinGroup(raw, msg, len); };
  cb.timed_out = [this, raw](const std::string& key, uint64_t tid, int tries) {
    RequestTimedOut(raw, key, tid, tries);
  };
  ep->requests = std::make_unique<RequestTracker>(&reactor_, std::move(cb), options_.resolve_depth,
                                                  options_.retries, tid_base_ + (raw->id << 32));
  ep->requests->set_try_timeout_ms(port->SubnetTimeoutMs() +
                                   static_cast<uint32_t>(options_.timeout_ms));
  endpoints_.emplace(raw->id, std::move(ep));
  port->endpoints.push_back(raw);
  Log(SSA_LOG_INFO, "endpoint %s: QPN 0x%x", raw->Name().c_str(), raw->ud()->qpn());
  ApplyRoutePreload(raw);
  JoinGroups(raw);
  *out = raw;
  return 0;
}

void AcmpProvider::CloseEndpoint(AcmpEndpoint* ep) {
  // Every request waiting here gets its one answer now.
  std::vector<Waiter> orphans = std::move(ep->until_ready);
  ep->cache->ForEach([&](Dest& d) {
    for (auto& w : d.waiters) orphans.push_back(w);
    d.waiters.clear();
  });
  for (const Waiter& w : orphans) Answer(ep, w, ACM_STATUS_ENOTCONN, nullptr);
  if (ep->ready_timer) reactor_.CancelTimer(ep->ready_timer);
  ep->requests->Clear();
  ep->groups->LeaveAll(true);
  ep->io->Close();
  const dgram::EndpointStats& t = ep->ud()->stats();
  Log(SSA_LOG_INFO,
      "endpoint %s closed: %zu destinations cached, %llu own requests looped back; %s; fault "
      "injection: %llu dropped, %llu delayed",
      ep->Name().c_str(), ep->cache->size(),
      static_cast<unsigned long long>(ep->stats().own_requests), ep->io->StatsText().c_str(),
      static_cast<unsigned long long>(t.injected_drops),
      static_cast<unsigned long long>(t.injected_delays));
  AcmpPort* port = ep->port;
  port->endpoints.erase(std::remove(port->endpoints.begin(), port->endpoints.end(), ep),
                        port->endpoints.end());
  endpoints_.erase(ep->id);
}

int AcmpProvider::AddAddress(AcmpEndpoint* ep, const ssa_address* addr, AcmpAddress** out) {
  if (!addr || !SSA_HAS_MEMBER(addr, data)) return -EINVAL;
  auto a = std::make_unique<AcmpAddress>();
  a->ep = ep;
  a->addr = *addr;
  *out = a.get();
  ep->addresses.push_back(std::move(a));
  return 0;
}

void AcmpProvider::RemoveAddress(AcmpAddress* addr) {
  // The address is no longer ours: no endpoint may answer for it from
  // what it cached about it.
  std::string key = AddressKey(static_cast<uint8_t>(addr->addr.type), addr->addr.data);
  for (auto& kv : endpoints_) {
    AcmpEndpoint* ep = kv.second.get();
    std::vector<Waiter> restart;
    ep->cache->EraseIf([&](const Dest& d) { return d.key == key; },
                       [&](Dest& d) { restart = std::move(d.waiters); });
    for (const Waiter& w : restart) Submit(ep, w);
  }
  provider_shared::EraseOwned(&addr->ep->addresses, addr);
}

int AcmpProvider::QueryPerf(AcmpEndpoint* ep, uint64_t* values, uint8_t* count) {
  uint8_t n = *count < ACM_MAX_COUNTER ? *count : static_cast<uint8_t>(ACM_MAX_COUNTER);
  memcpy(values, ep->counters, n * sizeof(values[0]));
  *count = n;
  return 0;
}

bool AcmpProvider::IsLocal(const AcmpEndpoint* ep, uint8_t type, const uint8_t* addr) const {
  std::string key = AddressKey(type, addr);
  for (const auto& a : ep->addresses)
    if (a->addr.type == type && AddressKey(type, a->addr.data) == key) return true;
  return false;
}

void AcmpProvider::ApplyRoutePreload(AcmpEndpoint* ep) {
  if (!options_.route_preload) return;
  AcmpPort* port = ep->port;
  const std::string& file = options_.route_data_file;
  if (!port->preload_parsed) {
    port->preload_parsed = true;
    Status st =
        provider_shared::ParseOpensmFullV1File(file, port->port_guid, port->lid, &port->preload);
    if (!st.ok()) {
      Log(SSA_LOG_ERROR, "route_preload: %s", st.ToString().c_str());
      return;
    }
    if (!port->preload.found_source)
      Log(SSA_LOG_WARN, "%s: no block for port %s (GUID 0x%016llx, LID %u)", file.c_str(),
          port->Name().c_str(), static_cast<unsigned long long>(port->port_guid), port->lid);
  }
  dgram::Gid sgid = port->Gid();
  uint64_t prefix = ToBe64(port->gid_prefix);
  uint64_t now = NowMs();
  size_t loaded = 0;
  for (const provider_shared::PreloadedRoute& r : port->preload.routes) {
    uint8_t dgid[16] = {};
    if (r.dest_guid) {
      uint64_t guid = ToBe64(r.dest_guid);
      memcpy(dgid, &prefix, 8);
      memcpy(dgid + 8, &guid, 8);
    }
    ibv_path_record path =
        provider_shared::PreloadedPathRecord(r, sgid.raw, dgid, port->lid, ep->pkey);
    bool self = r.dlid == port->lid;
    uint8_t lid_addr[64] = {};
    lid_addr[0] = static_cast<uint8_t>(r.dlid >> 8);
    lid_addr[1] = static_cast<uint8_t>(r.dlid);
    std::vector<Dest*> dests = {ep->cache->Acquire(kAddrLid, lid_addr)};
    if (r.dest_guid) {
      uint8_t gid_addr[64] = {};
      memcpy(gid_addr, dgid, 16);
      dests.push_back(ep->cache->Acquire(kAddrGid, gid_addr));
    }
    for (Dest* d : dests) {
      if (!d || d->state == DestState::kQueryRoute) continue;
      d->path = path;
      DestCache::MakeReady(d, now, self ? kNever : options_.AddrLifetimeMs(),
                           self ? kNever : options_.RouteLifetimeMs());
    }
    ++loaded;
  }
  if (port->preload.found_source)
    Log(SSA_LOG_INFO, "endpoint %s: %zu routes preloaded from %s", ep->Name().c_str(), loaded,
        file.c_str());
}

}  // namespace acmp
}  // namespace ssa
