// sa_provider.h: the "sa" resolution provider: path records straight from
// the SA (SubnAdmGet PathRecord through the core's SA service), cached per
// (endpoint, destination).
//
// What a resolve does (sa_resolve.cc):
//   destination -> RouteKey: a GID or LID as given; a name or IP through
//     the AddressMap (unknown: ACM_STATUS_EDESTADDR); a path request by its
//     DGID, else its DLID;
//   cache hit (valid or negative) -> answered at once (ROUTE_CACHE);
//   SA query for that key in flight -> the request waits for it (coalescing);
//   miss -> one SA query (ROUTE_QUERY), the request waits for it;
//   NODELAY -> answered from the cache only; on a miss ACM_STATUS_ENODATA
//     at once, and the query still goes out to warm the cache.
// QUERY_SA requests go to the SA as the client wrote them, uncached.
//
// Port changes: when a port's LID, LMC, GID prefix or SM changes, its
// cached routes are dropped and its generation advances; the answer of a
// query started before is not cached, and requests waiting on it are sent
// again under the new generation (sa_provider.cc).
//
// Ownership: the provider owns its devices, ports, endpoints and addresses
// (unique_ptrs here; the core holds them only as opaque contexts between
// open and close, and closes children first), the
// cache and the SA queries in flight (each one is the `arg` of its sa_send
// completion and lives until that completion or until its port closes:
// the core cancels a port's queries before close_port and drops them
// after). It borrows the core's ops table and handle for its whole life.
// Threads: none. Every method runs on the core's loop thread, as the ABI
// says; nothing is locked.
#ifndef IBACM_SSA_PROVIDERS_SA_SA_PROVIDER_H
#define IBACM_SSA_PROVIDERS_SA_SA_PROVIDER_H

#include <infiniband/acm.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "providers/sa/query_budget.h"
#include "providers/sa/sa_options.h"
#include "providers/shared/address_map.h"
#include "providers/shared/core_log.h"
#include "providers/shared/path_query.h"
#include "providers/shared/port_view.h"
#include "providers/shared/route_cache.h"
#include "providers/shared/route_preload.h"

namespace ssa {
namespace sa {

class SaProvider;
struct SaEndpoint;

struct SaDevice {
  SaProvider* prov = nullptr;
  std::string name;
};

// One SA MAD in flight: the `arg` of its completion.
struct SaQuery {
  struct SaPort* port = nullptr;
  uint64_t token = 0;
  bool pass_through = false;  // QUERY_SA: answers `req_id`, caches nothing
  uint64_t req_id = 0;
  uint64_t endpoint = 0;          // endpoint id (it may be closed by the answer)
  provider_shared::RouteKey key;  // route queries: the cache entry it fills
};

// The core's view of the port (name, state, LIDs, GID prefix, GUID) is the
// PortView base, set on open_port and port_changed.
struct SaPort : provider_shared::PortView {
  SaDevice* dev = nullptr;
  uint64_t id = 0;  // provider-wide, never reused: a provider built on this one keys by it
  ssa_core_port_t* core_port = nullptr;
  uint64_t generation = 1;             // advances when cached routes become wrong
  std::vector<SaEndpoint*> endpoints;  // owned by the provider's endpoints_
  bool preload_parsed = false;         // `preload` holds this (guid, lid)'s block
  provider_shared::PreloadResult preload;
  std::unordered_map<uint64_t, std::unique_ptr<SaQuery>> queries;  // by token
};

struct SaAddress;

struct SaEndpoint {
  SaPort* port = nullptr;
  uint64_t id = 0;  // provider-wide, never reused: cache keys use it
  uint16_t pkey = 0;
  uint16_t pkey_index = 0;
  uint64_t counters[ACM_MAX_COUNTER] = {};
  std::vector<std::unique_ptr<SaAddress>> addresses;
  std::string Name() const { return port->EndpointName(pkey); }
};

struct SaAddress {
  SaEndpoint* ep = nullptr;
  ssa_address addr{};
};

class SaProvider : public provider_shared::CoreClient {
 public:
  SaProvider(const ssa_core_ops* ops, ssa_core_t* core);
  ~SaProvider();
  SaProvider(const SaProvider&) = delete;
  SaProvider& operator=(const SaProvider&) = delete;

  // Reads the options and the address data. Returns 0 or -errno.
  int Init();

  // The ABI ops (sa_entry.cc forwards to these).
  int OpenDevice(const ssa_device_info* info, SaDevice** out);
  void CloseDevice(SaDevice* dev);
  int OpenPort(SaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port, SaPort** out);
  void ClosePort(SaPort* port);
  void PortChanged(SaPort* port, const ssa_port_info* info);
  int OpenEndpoint(SaPort* port, const ssa_endpoint_info* info, SaEndpoint** out);
  void CloseEndpoint(SaEndpoint* ep);
  int AddAddress(SaEndpoint* ep, const ssa_address* addr, SaAddress** out);
  void RemoveAddress(SaAddress* addr);
  int Resolve(SaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int Query(SaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int QueryPerf(SaEndpoint* ep, uint64_t* values, uint8_t* count);

  // For a provider built on this one (ssa, providers/ssa/):
  // - the section this provider reads (the other provider's), and the
  //   other provider's options, bound into the same OptionSet so that the
  //   section is read once (call before Init);
  // - a route source asked first for each resolve's destination (after
  //   names and IPs became GIDs): it returns -1 to let this provider go
  //   on (cache, SA), or the ACM status of its answer, with `path` filled
  //   on ACM_STATUS_SUCCESS (counted as a route cache hit).
  using RouteSource = std::function<int(const SaEndpoint* ep, const provider_shared::RouteKey& key,
                                        ibv_path_record* path)>;
  // - an address source asked for a name or IP that neither the local
  //   endpoints nor the address data file know: true and `gid` set when
  //   it knows the address.
  using AddressSource =
      std::function<bool(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16])>;
  using BindMore = std::function<void(OptionSet* set)>;
  void set_section(std::string section, BindMore bind_more) {
    section_ = std::move(section);
    bind_more_ = std::move(bind_more);
  }
  void set_address_source(AddressSource source) { address_source_ = std::move(source); }
  // The GID the provider's own address data give an address (local
  // endpoints first, then the addr_data_file); false when neither knows
  // it. The address source is asked only after this.
  bool OwnAddress(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) const;
  void set_route_source(RouteSource source) { route_source_ = std::move(source); }
  // - the provider built on this one, which hands this one's objects to
  //   the core as its own: device->prov->owner() leads the ABI glue back
  //   to it (abi_glue.h).
  void set_owner(void* owner) { owner_ = owner; }
  void* owner() const { return owner_; }
  // - a bound on the route queries this provider sends (query_budget.h;
  //   the ssa provider's fallback bound): a query with no token waits, and
  //   requests for the same destination join it as they join one in
  //   flight; one that has waited max_wait_ms, or finds rate x max_wait_ms
  //   queries waiting already, is not sent and its requests are answered
  //   ACM_STATUS_ETIMEDOUT. QUERY_SA is not bounded: the client asked the
  //   SA itself, as it may with the sa provider. Default: no bound.
  void set_query_budget(const QueryBudgetOptions& options);
  // Milliseconds of a monotonic clock for the cache's expiry and the
  // budget (a test's fake clock; default steady_clock).
  void set_clock(std::function<uint64_t()> now_ms) { clock_ = std::move(now_ms); }
  struct BudgetStats {
    uint64_t delayed = 0;    // queries that waited for a token
    uint64_t timed_out = 0;  // waited max_wait_ms: answered ETIMEDOUT
    uint64_t refused = 0;    // found the queue full: answered ETIMEDOUT at once
    uint64_t waiting = 0;    // waiting now
  };
  BudgetStats budget_stats() const {
    BudgetStats s = budget_stats_;
    s.waiting = waiting_.size();
    return s;
  }

  // The completion of ops->sa_send (`arg` is the SaQuery).
  static void OnSaDone(void* arg, int status, const uint8_t* mad, size_t len);

 private:
  // sa_provider.cc: lifecycle helpers.
  void ReadOptions();
  void LoadAddressData();
  void ApplyRoutePreload(SaEndpoint* ep);
  void FlushPort(SaPort* port, const char* why);
  SaEndpoint* FindEndpoint(uint64_t id) const;

  // sa_resolve.cc: requests and SA completions.
  uint8_t DestinationKey(SaEndpoint* ep, const ssa_resolve_request* req,
                         provider_shared::RouteKey* key);
  void StartRouteQuery(SaEndpoint* ep, const provider_shared::RouteKey& key,
                       std::vector<uint64_t> waiters);
  // Sends the query of pending entry `e` (its key and token).
  void SendRouteQuery(SaEndpoint* ep, provider_shared::RouteEntry* e);
  // Registers `q` on its endpoint's port and sends `mad` (an SA MAD) for
  // it; counts a route query when sent, drops `q` when not. Returns
  // ops->sa_send's result (negative errno: not sent).
  int SendQuery(SaEndpoint* ep, std::unique_ptr<SaQuery> q, const uint8_t* mad);
  // The budget's side (sa_resolve.cc): `e` has no token at `now`.
  void WaitForToken(SaEndpoint* ep, provider_shared::RouteEntry* e, uint64_t now);
  // Sends what has a token now, times out what waited too long.
  void DrainWaiting();
  void ArmDrain(uint64_t now);
  // Answers `e`'s requests ETIMEDOUT and drops it (`why` for the log).
  void Throttle(SaEndpoint* ep, provider_shared::RouteEntry* e, const char* why);
  void HandleSaDone(std::unique_ptr<SaQuery> query, int status, const uint8_t* mad, size_t len);
  void FinishRouteQuery(const SaQuery& query, const provider_shared::SaAnswer& answer);
  // Answers one request and counts it on `ep` (may be null: closed).
  void Answer(SaEndpoint* ep, uint64_t req_id, bool is_query, uint8_t status,
              const ibv_path_record* path);
  void Count(SaEndpoint* ep, int counter, bool global);
  provider_shared::QuerySource SourceOf(const SaEndpoint* ep) const;
  uint64_t NowMs() const;
  uint64_t ExpiryAfter(uint64_t now, uint64_t lifetime_ms) const;

  SaOptions options_;
  provider_shared::AddressMap addresses_;
  std::unique_ptr<provider_shared::RouteCache> cache_;
  std::vector<std::unique_ptr<SaDevice>> devices_;
  std::vector<std::unique_ptr<SaPort>> ports_;
  std::unordered_map<uint64_t, std::unique_ptr<SaEndpoint>> endpoints_;  // by id
  uint64_t next_endpoint_id_ = 1;
  uint64_t next_port_id_ = 1;
  void* owner_ = nullptr;
  std::string section_ = "sa";  // the config section (and its readers)
  BindMore bind_more_;
  RouteSource route_source_;
  AddressSource address_source_;
  uint64_t next_token_ = 1;
  std::function<uint64_t()> clock_;

  // The budget (set_query_budget) and the queries waiting for its tokens,
  // oldest first; an entry whose cache entry has gone or been re-sent
  // (endpoint closed, port flushed) is skipped.
  struct Waiting {
    uint64_t endpoint = 0;
    provider_shared::RouteKey key;
    uint64_t token = 0;
    uint64_t since_ms = 0;
  };
  std::unique_ptr<QueryBudget> budget_;
  std::deque<Waiting> waiting_;
  uint64_t drain_timer_ = 0;
  BudgetStats budget_stats_;

  uint64_t coalesced_ = 0;  // requests that joined a query in flight
  // A failing SA service fails every query: ShouldLogCount picks the few
  // that are logged.
  uint64_t send_failures_ = 0;
  uint64_t stale_answers_ = 0;
};

}  // namespace sa
}  // namespace ssa

#endif
