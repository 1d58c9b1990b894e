// acmp_provider.h: the "acmp" resolution provider: upstream ibacm's ACM
// protocol. A name or IP is resolved by multicasting a resolve request on
// the endpoint's min group; the owner of the address answers by unicast
// with the best group both share, and every receiver caches the requester.
// Routes come from that group (route_prot acm) or from an SA PathRecord
// query (route_prot sa). Files:
//   acmp_provider.cc   lifecycle: devices, ports, endpoints, addresses,
//                      port changes and flushes, preloads
//   acmp_services.cc   timers, fd and SA callbacks, lookups by id
//   acmp_join.cc       PortInfoRecord query; wiring of the endpoints'
//                      group membership to the SA and the datagram QP
//   acmp_resolve.cc    client requests, SA route queries, answers
//   acmp_protocol.cc   ACM messages received and sent
//   acmp_entry.cc      the C ABI table
// Each endpoint's parts with their own state and rules, behind narrow
// interfaces (callbacks, Reactor, ProviderLog): GroupMembership
// (acmp_membership: joins, retries, leaves), DatagramIo (acmp_datagram_io:
// the QP, draining, the send queue, counters), RequestTracker
// (acmp_requests: resolve requests out, retries), DestCache (acmp_dest).
// Pure parts: acmp_wire (codec), acmp_groups, acmp_options, acmp_port_info.
//
// Ownership: the provider owns devices, ports, endpoints, addresses (the
// core holds them as opaque contexts between open and close and closes
// children first), every SA operation in flight (`sa_ops_`: the `arg` of
// its sa_send completion, freed by that completion; the core completes a
// port's operations, cancelled, before close_port) and its timers and fd
// watches (`reactor_`). Anything that may outlive an endpoint refers to it
// by id. It borrows the core's ops table and handle for its whole life.
// Threads: none. Everything runs on the core's loop thread (the ABI rule);
// the datagram endpoints' fds are watched there too.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_PROVIDER_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_PROVIDER_H

#include <infiniband/acm.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "providers/acmp/acmp_datagram_io.h"
#include "providers/acmp/acmp_dest.h"
#include "providers/acmp/acmp_groups.h"
#include "providers/acmp/acmp_loop.h"
#include "providers/acmp/acmp_membership.h"
#include "providers/acmp/acmp_options.h"
#include "providers/acmp/acmp_port_info.h"
#include "providers/acmp/acmp_requests.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/acmp/datagram_transport.h"
#include "providers/shared/address_map.h"
#include "providers/shared/core_reactor.h"
#include "providers/shared/port_view.h"
#include "providers/shared/route_preload.h"

namespace ssa {
namespace acmp {

class AcmpProvider;
struct AcmpEndpoint;

struct AcmpDevice {
  AcmpProvider* prov = nullptr;
  std::string name;
};

// The core's view of the port (name, state, LIDs, GID prefix, GUID) is the
// PortView base, set on open_port and port_changed.
struct AcmpPort : provider_shared::PortView {
  AcmpDevice* dev = nullptr;
  uint64_t id = 0;
  ssa_core_port_t* core_port = nullptr;
  PortAttributes attrs;      // from the SA's PortInfoRecord
  bool attrs_known = false;  // the query answered (or gave up)
  uint64_t attrs_query = 0;  // token of the query in flight
  std::vector<AcmpEndpoint*> endpoints;
  bool preload_parsed = false;
  provider_shared::PreloadResult preload;
  uint64_t last_flush_ms = 0;  // NowMs() of the last Flush, 0 = never

  dgram::Gid Gid() const;
  uint32_t SubnetTimeoutMs() const;
};

struct AcmpAddress {
  AcmpEndpoint* ep = nullptr;
  ssa_address addr{};
};

struct AcmpEndpoint {
  AcmpPort* port = nullptr;
  uint64_t id = 0;  // provider-wide, never reused
  uint16_t pkey = 0;
  uint16_t pkey_index = 0;
  std::unique_ptr<DatagramIo> io;           // the QP, its send queue and counters
  std::unique_ptr<GroupMembership> groups;  // multicast joins
  std::unique_ptr<DestCache> cache;
  std::unique_ptr<RequestTracker> requests;
  std::vector<std::unique_ptr<AcmpAddress>> addresses;
  std::vector<Waiter> until_ready;  // client requests waiting for the min group
  uint64_t ready_timer = 0;         // answers them ENODATA if the join takes too long
  uint64_t counters[ACM_MAX_COUNTER] = {};

  bool ready() const { return groups && groups->ready(); }
  dgram::DatagramEndpoint* ud() const { return io->endpoint(); }
  ProtocolStats& stats() { return io->stats(); }
  std::string Name() const { return port->EndpointName(pkey); }
};

class AcmpProvider : public ProviderLog {
 public:
  AcmpProvider(const ssa_core_ops* ops, ssa_core_t* core);
  ~AcmpProvider() override;
  AcmpProvider(const AcmpProvider&) = delete;
  AcmpProvider& operator=(const AcmpProvider&) = delete;

  int Init();

  // ABI ops (acmp_entry.cc forwards to these).
  int OpenDevice(const ssa_device_info* info, AcmpDevice** out);
  void CloseDevice(AcmpDevice* dev);
  int OpenPort(AcmpDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
               AcmpPort** out);
  void ClosePort(AcmpPort* port);
  void PortChanged(AcmpPort* port, const ssa_port_info* info);
  void PortEvent(AcmpPort* port, int event);
  int OpenEndpoint(AcmpPort* port, const ssa_endpoint_info* info, AcmpEndpoint** out);
  void CloseEndpoint(AcmpEndpoint* ep);
  int AddAddress(AcmpEndpoint* ep, const ssa_address* addr, AcmpAddress** out);
  void RemoveAddress(AcmpAddress* addr);
  int Resolve(AcmpAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int Query(AcmpAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int QueryPerf(AcmpEndpoint* ep, uint64_t* values, uint8_t* count);

  // ProviderLog: through the core's log op.
  void Log(int level, const char* fmt, ...) override __attribute__((format(printf, 3, 4)));
  const AcmpOptions& options() const { return options_; }

 private:
  // An SA MAD in flight; `arg` of its completion.
  struct SaOp {
    enum Kind { kPortInfo, kJoin, kLeave, kRoute, kQuery } kind;
    AcmpProvider* prov = nullptr;
    uint64_t token = 0;
    uint64_t port_id = 0;
    uint64_t ep_id = 0;
    size_t group = 0;         // kJoin: the group's index
    uint64_t join_token = 0;  // kJoin: GroupMembership's token
    std::string dest_key;     // kRoute
    uint64_t req_id = 0;      // kQuery
  };
  static void OnSaDone(void* arg, int status, const uint8_t* mad, size_t len);

  // acmp_provider.cc (and acmp_services.cc: SA ops, lookups)
  void ReadOptions();
  Status OpenTransport();
  Status OpenDatagram(const dgram::EndpointParams& params, uint64_t ep_id,
                      std::unique_ptr<dgram::DatagramEndpoint>* out);
  SaOp* NewSaOp(SaOp::Kind kind, AcmpPort* port);
  // Sends; on failure the op's handler runs at once with the error (and
  // the op is freed) and false is returned.
  bool SendSa(SaOp* op, const uint8_t* mad);
  AcmpEndpoint* FindEndpoint(uint64_t id) const;
  AcmpPort* FindPort(uint64_t id) const;
  void Flush(AcmpPort* port, const char* why, bool rejoin);
  void ApplyRoutePreload(AcmpEndpoint* ep);
  bool IsLocal(const AcmpEndpoint* ep, uint8_t type, const uint8_t* addr) const;
  uint64_t NowMs() const;

  // acmp_join.cc
  void QueryPortInfo(AcmpPort* port);
  void HandlePortInfo(SaOp* op, int status, const uint8_t* mad, size_t len);
  // The endpoint's GroupMembership and DatagramIo, wired to this provider.
  std::unique_ptr<GroupMembership> NewMembership(AcmpEndpoint* ep);
  std::unique_ptr<DatagramIo> NewDatagramIo(AcmpEndpoint* ep);
  // Plans the endpoint's groups for its port as known now and joins them.
  void JoinGroups(AcmpEndpoint* ep);
  void HandleJoin(SaOp* op, int status, const uint8_t* mad, size_t len);
  void BecameReady(AcmpEndpoint* ep);

  // acmp_resolve.cc
  void Submit(AcmpEndpoint* ep, const Waiter& w);
  void ResolveName(AcmpEndpoint* ep, const Waiter& w);
  void ResolvePath(AcmpEndpoint* ep, const Waiter& w);
  Dest* AcquireUnlessCached(AcmpEndpoint* ep, const Waiter& w, uint8_t type, const uint8_t* addr);
  void Wait(AcmpEndpoint* ep, Dest* dest, const Waiter& w);
  // Request `w` on `dest`, whose address is resolved or being resolved:
  // waits for the route (its query started once the address is known);
  // nothing when ready (AcquireUnlessCached answered).
  void Proceed(AcmpEndpoint* ep, Dest* dest, const Waiter& w);
  // The dest's waiters (if any) must be queued first: a failed send
  // completes the query, and the dest, at once.
  void StartRouteQuery(AcmpEndpoint* ep, Dest* dest);
  void HandleRoute(SaOp* op, int status, const uint8_t* mad, size_t len);
  void HandleQuery(SaOp* op, int status, const uint8_t* mad, size_t len);
  void Complete(AcmpEndpoint* ep, Dest* dest, uint8_t status);
  void Answer(AcmpEndpoint* ep, const Waiter& w, uint8_t status, const ibv_path_record* path);
  void Count(AcmpEndpoint* ep, int counter, bool global);
  ibv_path_record LoopbackPath(const AcmpEndpoint* ep) const;
  void ExpireUntilReady(AcmpEndpoint* ep);

  // acmp_protocol.cc
  void HandleDatagram(AcmpEndpoint* ep, const dgram::Datagram& dg);
  void HandleRequest(AcmpEndpoint* ep, const dgram::Datagram& dg, const AcmMessage& msg);
  void HandleResponse(AcmpEndpoint* ep, const std::string& key, const dgram::Datagram& dg,
                      const AcmMessage& msg);
  uint8_t RecordAcmAddress(AcmpEndpoint* ep, Dest* dest, const dgram::Datagram& dg,
                           const AcmMessage& msg);
  uint8_t RecordAcmRoute(AcmpEndpoint* ep, Dest* dest);
  void SendResolve(AcmpEndpoint* ep, Dest* dest, const ssa_address& src);
  void SendResponse(AcmpEndpoint* ep, Dest* dest);
  bool SendToMinGroup(AcmpEndpoint* ep, const uint8_t* msg, size_t len);
  void RequestTimedOut(AcmpEndpoint* ep, const std::string& key, uint64_t tid, int tries);
  // Every stats_interval: the line of each endpoint whose counters changed.
  void LogStats();
  void Malformed(AcmpEndpoint* ep, const dgram::Datagram& dg, DecodeError why,
                 const std::string& what);

  const ssa_core_ops* ops_;
  ssa_core_t* core_;
  AcmpOptions options_;
  std::unique_ptr<dgram::DatagramTransport> transport_;
  provider_shared::AddressMap hosts_;  // addr_preload acm_hosts
  // Timers and fd watches on the core's loop. Before the endpoints:
  // destroyed after them, whose parts cancel their timers as they go.
  provider_shared::CoreReactor reactor_;
  std::vector<std::unique_ptr<AcmpDevice>> devices_;
  std::vector<std::unique_ptr<AcmpPort>> ports_;
  std::unordered_map<uint64_t, std::unique_ptr<AcmpEndpoint>> endpoints_;  // by id
  std::unordered_map<uint64_t, std::unique_ptr<SaOp>> sa_ops_;             // by token
  uint64_t next_id_ = 1;  // ports, endpoints, SA ops
  uint64_t tid_base_ = 0;
  uint64_t sa_send_failures_ = 0;
  uint64_t stats_timer_ = 0;
};

}  // namespace acmp
}  // namespace ssa

#endif
