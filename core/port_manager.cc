// port_manager.cc: discovery, provider open/close order, change polling.
#include "core/port_manager.h"

#include <unistd.h>

#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/sa_client.h"
#include "common/mad/umad_transport.h"
#include "core/provider_host.h"
#include "core/provider_selector.h"

namespace ssa {

ssa_port_info MakePortInfo(const UmadPort& p, std::vector<uint16_t>* storage) {
  *storage = p.pkeys;
  ssa_port_info info = {};
  info.size = sizeof(info);
  info.ca_name = p.ca_name.c_str();
  info.port_num = static_cast<uint8_t>(p.port_num);
  info.state = static_cast<uint8_t>(p.state);
  info.lmc = p.lmc;
  info.sm_sl = p.sm_sl;
  info.lid = p.lid;
  info.sm_lid = p.sm_lid;
  info.gid_prefix = p.gid_prefix;
  info.port_guid = p.port_guid;
  info.rate_gbps = static_cast<uint32_t>(p.rate);
  info.pkey_count = static_cast<uint16_t>(storage->size());
  info.pkeys = storage->data();
  return info;
}

PortManager::PortManager(EventLoop* loop, Logger* log, ProviderHost* host,
                         const ProviderSelector* selector, const CoreOptions* options,
                         const AddrConfig* addrs)
    : loop_(loop),
      log_(log),
      host_(host),
      selector_(selector),
      options_(options),
      addrs_(addrs),
      discover_(DiscoverPorts),
      list_ipoib_(ListIpoibAddresses) {}

PortManager::~PortManager() { Stop(); }

CoreDevice* PortManager::DeviceFor(const UmadPort& p) {
  for (auto& d : devices_)
    if (d->name == p.ca_name) return d.get();
  auto d = std::make_unique<CoreDevice>();
  d->name = p.ca_name;
  d->node_guid = p.node_guid;
  devices_.push_back(std::move(d));
  return devices_.back().get();
}

Status PortManager::Start() {
  std::vector<UmadPort> found;
  Status st = discover_(&found);
  if (!st.ok()) return st.WithContext("port discovery");
  if (found.empty()) SSA_LOG(*log_, kWarn, "no InfiniBand ports found; serving no endpoints");
  // A typo in the address file otherwise only shows as a name nobody
  // resolves.
  for (const auto& w : addrs_->CheckAgainstPorts(found)) SSA_LOG(*log_, kWarn, "%s", w.c_str());
  if (addrs_->entries.empty()) {
    // Like upstream without ibacm_addr.cfg: the host name names the first
    // endpoint, host-N the others.
    char host[64] = {};
    gethostname(host, sizeof(host) - 1);
    SSA_LOG(*log_, kInfo, "no addresses configured; endpoints are named after host '%s'", host);
    int n = 0;
    for (const auto& p : found) {
      for (size_t i = 0; i < p.pkeys.size(); ++i, ++n) {
        AddrConfigEntry e;
        e.text = n == 0 ? host : std::string(host) + "-" + std::to_string(n);
        if (!MakeAddress(e.text, false, &e.address).ok()) continue;
        e.device = p.ca_name;
        e.port = p.port_num;
        e.default_pkey = false;
        e.pkey = p.pkeys[i];
        generated_.push_back(e);
      }
    }
  }
  st = list_ipoib_(&ipoib_);
  if (!st.ok()) SSA_LOG(*log_, kWarn, "IPoIB addresses not read: %s", st.ToString().c_str());
  for (const auto& ip : ipoib_)
    SSA_LOG(*log_, kInfo, "IPoIB %s: %s (port guid 0x%016llx pkey 0x%04x)", ip.ifname.c_str(),
            ip.text.c_str(), static_cast<unsigned long long>(ip.port_guid), ip.pkey);
  for (const auto& p : found) {
    CoreDevice* dev = DeviceFor(p);
    dev->port_count++;
    auto port = std::make_unique<CorePort>();
    port->device = dev;
    port->info = p;
    ports_.push_back(std::move(port));
  }
  for (auto& port : ports_) OpenPort(port.get());
  if (UmadTransport::UnderUmad2sim()) {
    // umad2sim reads port attributes once, at process start: polling finds
    // nothing new there. Worse, libibumad re-reads them through umad2sim's
    // open()/close() wrappers, and with more than about 1,100 descriptors
    // open (thousands of clients) umad2sim's close() takes the file for one
    // of its own and crashes the process (doc/simulated-fabric.md).
    SSA_LOG(*log_, kInfo,
            "umad2sim: port attributes are fixed at start on the simulated fabric; not polling");
    return Status::Ok();
  }
  SchedulePoll();
  return Status::Ok();
}

void PortManager::SchedulePoll() {
  poll_timer_ = loop_->AddTimer(std::chrono::milliseconds(options_->port_poll_ms), [this] {
    poll_timer_ = 0;
    Poll();
    SchedulePoll();
  });
}

void PortManager::OpenPort(CorePort* port) {
  const UmadPort& p = port->info;
  SSA_LOG(*log_, kInfo, "port %s", p.Describe().c_str());
  if (!p.IsInfiniBand()) {
    SSA_LOG(*log_, kInfo, "port %s/%d: link layer %s, not served", p.ca_name.c_str(), p.port_num,
            p.link_layer.c_str());
    return;
  }
  std::string name = selector_->Select(p.ca_name, p.port_num, p.gid_prefix);
  ProviderInstance* prov = name.empty() ? nullptr : host_->Find(name);
  if (!prov) {
    SSA_LOG(*log_, kWarn, "port %s/%d: provider '%s' is not loaded; port not served",
            p.ca_name.c_str(), p.port_num, name.c_str());
    return;
  }
  Status st = prov->DeviceContext(*port->device, &port->dev_ctx);
  if (!st.ok()) {
    SSA_LOG(*log_, kError, "port %s/%d: %s", p.ca_name.c_str(), p.port_num, st.ToString().c_str());
    return;
  }
  SaClientOptions sa_opts;
  sa_opts.sa_depth = options_->sa_depth;
  sa_opts.timeout_ms = options_->timeout_ms;
  sa_opts.retries = options_->retries;
  port->sa = std::make_unique<SaClient>(loop_, log_, p, sa_opts);
  st = port->sa->Open();
  if (!st.ok()) {
    SSA_LOG(*log_, kWarn, "port %s/%d: SA service unavailable: %s", p.ca_name.c_str(), p.port_num,
            st.ToString().c_str());
    port->sa.reset();
  }
  ssa_port_info info = MakePortInfo(p, &port->pkeys_for_provider);
  int rc = prov->table()->open_port(port->dev_ctx, &info, port->handle(), &port->prov_ctx);
  if (rc < 0) {
    SSA_LOG(*log_, kError, "port %s/%d: provider %s refused it (%s)", p.ca_name.c_str(), p.port_num,
            prov->name().c_str(), strerror(-rc));
    port->sa.reset();
    return;
  }
  port->provider = prov;
  port->open = true;
  SSA_LOG(*log_, kInfo, "port %s/%d served by provider %s", p.ca_name.c_str(), p.port_num,
          prov->name().c_str());
  if (p.IsActive()) OpenEndpoints(port);
}

std::vector<const AddrConfigEntry*> PortManager::AddressesFor(const CorePort& port, uint16_t pkey,
                                                              bool first_endpoint) {
  std::vector<const AddrConfigEntry*> result;
  const std::vector<AddrConfigEntry>& source =
      addrs_->entries.empty() ? generated_ : addrs_->entries;
  for (const auto& e : source) {
    if (e.device != port.info.ca_name || e.port != port.info.port_num) continue;
    bool match = e.default_pkey ? first_endpoint : ((e.pkey | 0x8000) == (pkey | 0x8000));
    if (match) result.push_back(&e);
  }
  return result;
}

void PortManager::OpenEndpoints(CorePort* port) {
  const UmadPort& p = port->info;
  ProviderInstance* prov = port->provider;
  for (size_t i = 0; i < p.pkeys.size(); ++i) {
    auto ep = std::make_unique<CoreEndpoint>();
    ep->port = port;
    ep->pkey = p.pkeys[i];
    ep->pkey_index = i < p.pkey_indexes.size() ? p.pkey_indexes[i] : static_cast<uint16_t>(i);
    ssa_endpoint_info info = {};
    info.size = sizeof(info);
    info.pkey = ep->pkey;
    info.pkey_index = ep->pkey_index;
    int rc = prov->table()->open_endpoint(port->prov_ctx, &info, &ep->prov_ctx);
    if (rc < 0) {
      SSA_LOG(*log_, kWarn, "port %s/%d pkey 0x%04x: open_endpoint failed (%s)", p.ca_name.c_str(),
              p.port_num, ep->pkey, strerror(-rc));
      continue;
    }
    for (const AddrConfigEntry* e : AddressesFor(*port, ep->pkey, i == 0))
      AddAddress(port, ep.get(), e->address, e->text, false);
    for (const IpoibAddress& ip : ipoib_)
      if (IpoibOnEndpoint(ip, *port, *ep)) AddAddress(port, ep.get(), ip.address, ip.text, true);
    port->endpoints.push_back(std::move(ep));
  }
}

bool PortManager::AddAddress(CorePort* port, CoreEndpoint* ep, const ssa_address& address,
                             const std::string& text, bool from_ipoib) {
  auto addr = std::make_unique<CoreAddress>();
  addr->addr = address;
  addr->text = text;
  addr->from_ipoib = from_ipoib;
  int rc = port->provider->table()->add_address(ep->prov_ctx, &addr->addr, &addr->prov_ctx);
  if (rc < 0) {
    SSA_LOG(*log_, kWarn, "address %s: add_address failed (%s)", text.c_str(), strerror(-rc));
    return false;
  }
  SSA_LOG(*log_, kInfo, "endpoint %s/%d pkey 0x%04x: address %s", port->info.ca_name.c_str(),
          port->info.port_num, ep->pkey, text.c_str());
  ep->addresses.push_back(std::move(addr));
  return true;
}

void PortManager::CloseEndpoints(CorePort* port) {
  ProviderInstance* prov = port->provider;
  for (auto& ep : port->endpoints) {
    for (auto& a : ep->addresses) prov->table()->remove_address(a->prov_ctx);
    prov->table()->close_endpoint(ep->prov_ctx);
  }
  port->endpoints.clear();
}

void PortManager::ClosePort(CorePort* port) {
  if (!port->open) return;
  CloseEndpoints(port);
  if (port->sa) port->sa->CancelAll();
  port->provider->table()->close_port(port->prov_ctx);
  port->sa.reset();
  port->open = false;
}

void PortManager::Stop() {
  if (poll_timer_) loop_->CancelTimer(poll_timer_);
  poll_timer_ = 0;
  for (auto& port : ports_) ClosePort(port.get());
  ports_.clear();
  devices_.clear();
}

void PortManager::Poll() {
  std::vector<UmadPort> now;
  Status st = discover_(&now);
  if (!st.ok()) {
    SSA_LOG(*log_, kWarn, "port poll failed: %s", st.ToString().c_str());
    return;
  }
  for (auto& port : ports_) {
    for (const auto& p : now) {
      if (p.ca_name == port->info.ca_name && p.port_num == port->info.port_num) {
        ApplyChange(port.get(), p);
        break;
      }
    }
  }
}

void PortManager::HandleEvents(const std::vector<PortEventNote>& notes) {
  Poll();
  for (const PortEventNote& note : notes) {
    if (!note.event) continue;
    for (auto& port : ports_) {
      if (port->info.ca_name != note.ca_name || port->info.port_num != note.port_num) continue;
      if (!port->open) {
        SSA_LOG(*log_, kDebug, "port %s/%d: event %d while closed", note.ca_name.c_str(),
                note.port_num, note.event);
      } else if (port->provider->has_port_event()) {
        port->provider->table()->port_event(port->prov_ctx, note.event);
      } else {
        SSA_LOG(*log_, kDebug, "port %s/%d: provider %s (ABI 1.%u) takes no port events",
                note.ca_name.c_str(), note.port_num, port->provider->name().c_str(),
                port->provider->table()->abi_minor);
      }
    }
  }
}

void PortManager::ApplyChange(CorePort* port, const UmadPort& now) {
  UmadPort old = port->info;
  bool addr_changed = old.lid != now.lid || old.lmc != now.lmc || old.gid_prefix != now.gid_prefix;
  bool sm_changed = old.sm_lid != now.sm_lid || old.sm_sl != now.sm_sl;
  bool state_changed = old.state != now.state;
  bool pkeys_changed = old.pkeys != now.pkeys;
  if (!addr_changed && !sm_changed && !state_changed && !pkeys_changed) return;
  SSA_LOG(*log_, kInfo, "port %s/%d changed: lid %u->%u sm_lid %u->%u state %s->%s pkeys %zu->%zu",
          now.ca_name.c_str(), now.port_num, old.lid, now.lid, old.sm_lid, now.sm_lid,
          PortStateName(old.state), PortStateName(now.state), old.pkeys.size(), now.pkeys.size());
  port->info = now;
  if (!port->open) return;
  if (sm_changed && port->sa) port->sa->UpdateSm(now.sm_lid, now.sm_sl);
  if (port->provider->has_port_changed()) {
    ssa_port_info info = MakePortInfo(now, &port->pkeys_for_provider);
    port->provider->table()->port_changed(port->prov_ctx, &info);
  }
  bool was_active = old.IsActive(), is_active = now.IsActive();
  if ((was_active && !is_active) || (is_active && pkeys_changed)) CloseEndpoints(port);
  if (is_active && (!was_active || pkeys_changed)) OpenEndpoints(port);
}

CoreEndpoint* PortManager::EndpointByIndex(int index, int port_num) {
  int i = 0;
  for (auto& port : ports_) {
    if (!port->open || !port->info.IsActive()) continue;
    if (port_num && port->info.port_num != port_num) continue;
    for (auto& ep : port->endpoints)
      if (i++ == index) return ep.get();
  }
  return nullptr;
}

size_t PortManager::endpoint_count() const {
  size_t n = 0;
  for (const auto& port : ports_) n += port->endpoints.size();
  return n;
}

namespace {
bool GidIsZero(const uint8_t* gid) {
  for (int i = 0; i < 16; ++i)
    if (gid[i]) return false;
  return true;
}
}  // namespace

CoreAddress* PortManager::FindAddress(const ssa_address& addr, CoreEndpoint** ep_out) {
  for (auto& port : ports_) {
    if (!port->open || !port->info.IsActive()) continue;
    for (auto& ep : port->endpoints)
      for (auto& a : ep->addresses)
        if (SameAddress(a->addr, addr)) {
          *ep_out = ep.get();
          return a.get();
        }
  }
  return nullptr;
}

CoreAddress* PortManager::FindForPath(const ibv_path_record& path, CoreEndpoint** ep_out) {
  const uint8_t* sgid = path.sgid.raw;
  const uint8_t* dgid = path.dgid.raw;
  uint16_t slid = FromBe16(path.slid);
  uint16_t pkey = FromBe16(path.pkey);
  for (auto& port : ports_) {
    if (!port->open || !port->info.IsActive()) continue;
    const UmadPort& p = port->info;
    bool from_port;
    if (!GidIsZero(sgid)) {
      from_port = GetBe64(sgid) == p.gid_prefix && GetBe64(sgid + 8) == p.port_guid;
    } else if (slid) {
      uint16_t mask = static_cast<uint16_t>(~((1u << p.lmc) - 1));
      from_port = (slid & mask) == p.lid;
    } else {
      from_port = GidIsZero(dgid) || GetBe64(dgid) == p.gid_prefix;
    }
    if (!from_port) continue;
    for (auto& ep : port->endpoints) {
      if (pkey && (pkey | 0x8000) != (ep->pkey | 0x8000)) continue;
      *ep_out = ep.get();
      return ep->addresses.empty() ? nullptr : ep->addresses.front().get();
    }
  }
  return nullptr;
}

void PortManager::FillSourceGid(const std::string& ca, int port_num, ibv_path_record* path) const {
  if (!GidIsZero(path->sgid.raw)) return;
  for (const auto& port : ports_) {
    if (!port->open || port->info.ca_name != ca || port->info.port_num != port_num) continue;
    uint64_t prefix = ToBe64(port->info.gid_prefix), guid = ToBe64(port->info.port_guid);
    memcpy(path->sgid.raw, &prefix, 8);
    memcpy(path->sgid.raw + 8, &guid, 8);
    return;
  }
}

CoreAddress* PortManager::FirstAddress(CoreEndpoint** ep_out) {
  for (auto& port : ports_) {
    if (!port->open || !port->info.IsActive()) continue;
    for (auto& ep : port->endpoints)
      if (!ep->addresses.empty()) {
        *ep_out = ep.get();
        return ep->addresses.front().get();
      }
  }
  return nullptr;
}

}  // namespace ssa
