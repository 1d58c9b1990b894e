// sa_provider.cc: the sa provider's lifecycle: options and address data at
// init, devices/ports/endpoints/addresses, route preload, and dropping a
// port's routes when its LID or SM changes. Requests are in sa_resolve.cc.
#include "providers/sa/sa_provider.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/base/option_set.h"
#include "providers/shared/core_log.h"
#include "providers/shared/owned_list.h"
#include "providers/shared/provider_options.h"

namespace ssa {
namespace sa {

// The modules this provider shares with acmp (providers/shared/).
using provider_shared::AddressFileIssue;
using provider_shared::AddressKey;
using provider_shared::kNeverExpires;
using provider_shared::ParseOpensmFullV1File;
using provider_shared::PreloadedPathRecord;
using provider_shared::PreloadedRoute;
using provider_shared::PreloadResult;
using provider_shared::RouteCache;
using provider_shared::RouteEntry;
using provider_shared::RouteKey;
using provider_shared::RouteState;

namespace {

// Malformed lines of a data file logged one by one; the rest are counted.
constexpr size_t kMaxIssuesLogged = 10;

}  // namespace

SaProvider::SaProvider(const ssa_core_ops* ops, ssa_core_t* core) : CoreClient(ops, core) {}

// The core closes everything before fini; whatever is left is freed by the
// members' destructors (no request can be waiting: endpoints are gone).
SaProvider::~SaProvider() {
  if (drain_timer_) ops_->timer_cancel(core_, drain_timer_);
  if (!cache_) return;  // Init never ran
  Log(SSA_LOG_INFO,
      "stopped: %llu requests joined a query in flight, %llu stale SA answers dropped, %llu SA "
      "sends failed, %llu cache evictions, %llu expirations",
      static_cast<unsigned long long>(coalesced_), static_cast<unsigned long long>(stale_answers_),
      static_cast<unsigned long long>(send_failures_),
      static_cast<unsigned long long>(cache_->stats().evictions),
      static_cast<unsigned long long>(cache_->stats().expirations));
}

int SaProvider::Init() {
  ReadOptions();
  cache_ = std::make_unique<RouteCache>(options_.cache_size);
  if (options_.addr_preload == SaOptions::AddrPreload::kAcmHosts) LoadAddressData();
  Log(SSA_LOG_INFO,
      "started: cache_size %zu, route_timeout %d min, negative_timeout_ms %u, addr_preload %s, "
      "route_preload %s",
      options_.cache_size, options_.route_timeout_min, options_.negative_timeout_ms,
      options_.addr_preload == SaOptions::AddrPreload::kAcmHosts ? "acm_hosts" : "none",
      options_.route_preload == SaOptions::RoutePreload::kOpensmFullV1 ? "opensm_full_v1" : "none");
  return 0;
}

void SaProvider::ReadOptions() {
  OptionSet set;
  options_.Bind(&set);
  if (bind_more_) bind_more_(&set);
  provider_shared::ReadOptionsFromCore(ops_, core_, section_, set);
}

void SaProvider::LoadAddressData() {
  size_t added = 0;
  std::vector<AddressFileIssue> issues;
  Status st = addresses_.LoadHostsFile(options_.addr_data_file, &added, &issues);
  if (!st.ok()) {
    Log(SSA_LOG_ERROR,
        "addr_preload acm_hosts: %s; names and IPs resolve to local "
        "endpoints only",
        st.ToString().c_str());
    return;
  }
  for (size_t i = 0; i < issues.size() && i < kMaxIssuesLogged; ++i)
    Log(SSA_LOG_WARN, "%s:%d: %s; line skipped", options_.addr_data_file.c_str(), issues[i].line,
        issues[i].message.c_str());
  if (issues.size() > kMaxIssuesLogged)
    Log(SSA_LOG_WARN, "%s: %zu more bad lines", options_.addr_data_file.c_str(),
        issues.size() - kMaxIssuesLogged);
  Log(SSA_LOG_INFO, "%s: %zu addresses", options_.addr_data_file.c_str(), added);
}

int SaProvider::OpenDevice(const ssa_device_info* info, SaDevice** out) {
  if (!info || !SSA_HAS_MEMBER(info, name) || !info->name) return -EINVAL;
  auto dev = std::make_unique<SaDevice>();
  dev->prov = this;
  dev->name = info->name;
  *out = dev.get();
  devices_.push_back(std::move(dev));
  return 0;
}

void SaProvider::CloseDevice(SaDevice* dev) { provider_shared::EraseOwned(&devices_, dev); }

int SaProvider::OpenPort(SaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
                         SaPort** out) {
  if (!info || !SSA_HAS_MEMBER(info, port_guid)) return -EINVAL;
  auto port = std::make_unique<SaPort>();
  port->dev = dev;
  port->id = next_port_id_++;
  port->core_port = core_port;
  port->Open(*info, dev->name);
  Log(SSA_LOG_DEBUG, "open_port %s lid %u sm_lid %u", port->Name().c_str(), port->lid,
      port->sm_lid);
  *out = port.get();
  ports_.push_back(std::move(port));
  return 0;
}

void SaProvider::ClosePort(SaPort* port) {
  // The core cancelled the port's SA queries before this call (their
  // completions have run) and drops any left when it closes its SA
  // service right after: no completion can reach a freed SaQuery.
  for (SaEndpoint* ep : std::vector<SaEndpoint*>(port->endpoints)) CloseEndpoint(ep);
  Log(SSA_LOG_DEBUG, "close_port %s (%zu SA queries dropped)", port->Name().c_str(),
      port->queries.size());
  provider_shared::EraseOwned(&ports_, port);
}

void SaProvider::PortChanged(SaPort* port, const ssa_port_info* info) {
  if (!info || !SSA_HAS_MEMBER(info, port_guid)) return;
  bool routes_wrong = port->AddressingChanges(*info) || port->SmChanges(*info);
  std::string why = port->ChangeText(*info);
  port->Assign(*info);
  if (routes_wrong) FlushPort(port, why.c_str());
}

void SaProvider::FlushPort(SaPort* port, const char* why) {
  // Answers of queries started before now must not be cached: the new
  // generation makes them stale. Requests waiting on them are re-sent.
  ++port->generation;
  port->preload_parsed = false;
  port->preload = PreloadResult();
  std::vector<std::pair<RouteKey, std::vector<uint64_t>>> resend;
  size_t dropped = cache_->EraseIf(
      [&](const RouteEntry& e) {
        SaEndpoint* ep = FindEndpoint(e.key.endpoint);
        return ep && ep->port == port;
      },
      [&](RouteEntry& e) {
        if (e.state == RouteState::kPending && !e.waiters.empty())
          resend.emplace_back(e.key, std::move(e.waiters));
      });
  Log(SSA_LOG_INFO, "port %s changed (%s): %zu cached routes dropped, %zu queries re-sent",
      port->Name().c_str(), why, dropped, resend.size());
  for (SaEndpoint* ep : port->endpoints) ApplyRoutePreload(ep);
  for (auto& r : resend) {
    SaEndpoint* ep = FindEndpoint(r.first.endpoint);
    RouteEntry* e = cache_->Find(r.first, NowMs());
    if (e && e->state == RouteState::kValid) {  // the preload knows it
      ibv_path_record path = e->path;
      for (uint64_t id : r.second) Answer(ep, id, false, ACM_STATUS_SUCCESS, &path);
      continue;
    }
    StartRouteQuery(ep, r.first, std::move(r.second));
  }
}

int SaProvider::OpenEndpoint(SaPort* port, const ssa_endpoint_info* info, SaEndpoint** out) {
  if (!info || !SSA_HAS_MEMBER(info, pkey_index)) return -EINVAL;
  auto ep = std::make_unique<SaEndpoint>();
  ep->port = port;
  ep->id = next_endpoint_id_++;
  ep->pkey = info->pkey;
  ep->pkey_index = info->pkey_index;
  SaEndpoint* raw = ep.get();
  endpoints_.emplace(raw->id, std::move(ep));
  port->endpoints.push_back(raw);
  Log(SSA_LOG_DEBUG, "open_endpoint %s (id %llu)", raw->Name().c_str(),
      static_cast<unsigned long long>(raw->id));
  ApplyRoutePreload(raw);
  *out = raw;
  return 0;
}

void SaProvider::CloseEndpoint(SaEndpoint* ep) {
  // Requests waiting on this endpoint's queries get an answer now; the
  // queries' own answers will find no entry and be dropped.
  std::vector<uint64_t> orphans;
  cache_->EraseIf([ep](const RouteEntry& e) { return e.key.endpoint == ep->id; },
                  [&](RouteEntry& e) {
                    orphans.insert(orphans.end(), e.waiters.begin(), e.waiters.end());
                    e.waiters.clear();
                  });
  for (uint64_t id : orphans) Answer(ep, id, false, ACM_STATUS_ENOTCONN, nullptr);
  for (auto& a : ep->addresses) addresses_.RemoveLocal(a.get());
  SaPort* port = ep->port;
  port->endpoints.erase(std::remove(port->endpoints.begin(), port->endpoints.end(), ep),
                        port->endpoints.end());
  Log(SSA_LOG_DEBUG, "close_endpoint %s (%zu waiting requests answered)", ep->Name().c_str(),
      orphans.size());
  endpoints_.erase(ep->id);  // frees ep and its addresses
}

int SaProvider::AddAddress(SaEndpoint* ep, const ssa_address* addr, SaAddress** out) {
  if (!addr || !SSA_HAS_MEMBER(addr, data)) return -EINVAL;
  auto a = std::make_unique<SaAddress>();
  a->ep = ep;
  a->addr = *addr;
  // Local names and IPs resolve to this endpoint's port.
  addresses_.AddLocal(AddressKey(addr->type, addr->data, sizeof(addr->data)), a.get());
  *out = a.get();
  ep->addresses.push_back(std::move(a));
  return 0;
}

void SaProvider::RemoveAddress(SaAddress* addr) {
  addresses_.RemoveLocal(addr);
  provider_shared::EraseOwned(&addr->ep->addresses, addr);
}

int SaProvider::QueryPerf(SaEndpoint* ep, uint64_t* values, uint8_t* count) {
  uint8_t n = *count < ACM_MAX_COUNTER ? *count : static_cast<uint8_t>(ACM_MAX_COUNTER);
  memcpy(values, ep->counters, n * sizeof(values[0]));
  *count = n;
  return 0;
}

SaEndpoint* SaProvider::FindEndpoint(uint64_t id) const {
  auto it = endpoints_.find(id);
  return it == endpoints_.end() ? nullptr : it->second.get();
}

uint64_t SaProvider::NowMs() const {
  if (clock_) return clock_();
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t SaProvider::ExpiryAfter(uint64_t now, uint64_t lifetime_ms) const {
  return lifetime_ms >= kNeverExpires - now ? kNeverExpires : now + lifetime_ms;
}

void SaProvider::ApplyRoutePreload(SaEndpoint* ep) {
  if (options_.route_preload != SaOptions::RoutePreload::kOpensmFullV1) return;
  SaPort* port = ep->port;
  if (!port->lid) return;
  const std::string& file = options_.route_data_file;
  if (!port->preload_parsed) {
    port->preload_parsed = true;
    Status st = ParseOpensmFullV1File(file, port->port_guid, port->lid, &port->preload);
    if (!st.ok()) {
      Log(SSA_LOG_ERROR, "route_preload: %s", st.ToString().c_str());
      return;
    }
    const auto& issues = port->preload.issues;
    for (size_t i = 0; i < issues.size() && i < kMaxIssuesLogged; ++i)
      Log(SSA_LOG_WARN, "%s:%d: %s; line skipped", file.c_str(), issues[i].line,
          issues[i].message.c_str());
    if (issues.size() > kMaxIssuesLogged)
      Log(SSA_LOG_WARN, "%s: %zu more bad lines", file.c_str(), issues.size() - kMaxIssuesLogged);
    if (!port->preload.found_source)
      Log(SSA_LOG_WARN, "%s: no block for port %s (GUID 0x%016llx, LID %u); nothing preloaded",
          file.c_str(), port->Name().c_str(), static_cast<unsigned long long>(port->port_guid),
          port->lid);
  }
  uint8_t sgid[16], dgid[16];
  port->GidBytes(sgid);
  uint64_t prefix = ToBe64(port->gid_prefix);
  uint64_t expires = ExpiryAfter(NowMs(), options_.RouteLifetimeMs());
  size_t loaded = 0, no_guid = 0;
  for (const PreloadedRoute& r : port->preload.routes) {
    ibv_path_record path;
    if (r.dest_guid) {
      uint64_t guid = ToBe64(r.dest_guid);
      memcpy(dgid, &prefix, 8);
      memcpy(dgid + 8, &guid, 8);
      path = PreloadedPathRecord(r, sgid, dgid, port->lid, ep->pkey);
      cache_->Put(RouteKey::Gid(ep->id, dgid), path, expires, port->generation);
    } else {
      // No header names this LID's port: the route serves LID requests only.
      memset(dgid, 0, sizeof(dgid));
      path = PreloadedPathRecord(r, sgid, dgid, port->lid, ep->pkey);
      ++no_guid;
    }
    cache_->Put(RouteKey::Lid(ep->id, r.dlid), path, expires, port->generation);
    ++loaded;
  }
  if (port->preload.found_source)
    Log(SSA_LOG_INFO,
        "endpoint %s: %zu routes preloaded from %s (%zu without a GID, %zu "
        "unreachable); cache holds %zu of at most %zu",
        ep->Name().c_str(), loaded, file.c_str(), no_guid, port->preload.unreachable,
        cache_->completed(), cache_->capacity());
}

}  // namespace sa
}  // namespace ssa
