// abi_glue.h: the C ops table of a C++ provider, written once.
//
// Every provider object model here is the same chain: Provider owns
// Devices, a Device its Ports (port->dev), a Port its Endpoints (ep->port),
// an Endpoint its Addresses (addr->ep); device->prov leads back to the
// provider, or to the provider whose objects it hands out, from which
// Traits::Owner(device->prov) leads back (ssa hands out sa's). The
// contexts handed to the core are these objects themselves, so each ABI
// op is a cast and a forward to the provider's method of the same name.
// AbiGlue<Traits> generates those forwarders and the table, and
// SSA_PROVIDER_ENTRY the exported entry; a provider's *_entry.cc only
// names its types and describes itself.
//
// Traits must give: Provider, Device, Port, Endpoint, Address (types, most
// simply by deriving from ObjectTypes),
// constexpr bool kPortEvents (the provider has PortEvent(Port*, int), ABI
// 1.1) and constexpr bool kMetrics (the provider has
// CollectMetrics(const ssa_metrics_ops*, ssa_metrics_sink_t*), ABI 1.4). Provider must have the
// constructor (ops, core), Init(), Log(level, fmt, ...) and OpenDevice, CloseDevice, OpenPort,
// ClosePort, PortChanged, OpenEndpoint, CloseEndpoint, AddAddress, RemoveAddress, Resolve, Query,
// QueryPerf with the ABI op's arguments (contexts typed).
//
// No exception crosses the ABI (abi_guard.h). Init accepts any 1.x core:
// the providers here call only 1.0 core ops.
#ifndef IBACM_SSA_PROVIDERS_SHARED_ABI_GLUE_H
#define IBACM_SSA_PROVIDERS_SHARED_ABI_GLUE_H

#include <cerrno>
#include <cstdio>

#include <ibacm_ssa/provider.h>
#include "providers/shared/abi_guard.h"

namespace ssa {
namespace provider_shared {

// A provider's five object types, for its Traits to derive from.
template <typename P, typename D, typename Po, typename E, typename A>
struct ObjectTypes {
  using Provider = P;
  using Device = D;
  using Port = Po;
  using Endpoint = E;
  using Address = A;
};

template <typename Traits>
class AbiGlue {
  using Provider = typename Traits::Provider;
  using Device = typename Traits::Device;
  using Port = typename Traits::Port;
  using Endpoint = typename Traits::Endpoint;
  using Address = typename Traits::Address;

  static Provider* Owner(Provider* p) { return p; }
  template <typename Other>
  static Provider* Owner(Other* p) {
    return Traits::Owner(p);
  }
  static Provider* Of(Device* d) { return Owner(d->prov); }
  static Provider* Of(Port* p) { return Owner(p->dev->prov); }
  static Provider* Of(Endpoint* e) { return Owner(e->port->dev->prov); }
  static Provider* Of(Address* a) { return Owner(a->ep->port->dev->prov); }

  // Opens a child object through `open(&child)` and hands it out as a
  // context on success.
  template <typename Child, typename OpenFn>
  static int OpenChild(void** ctx_out, OpenFn open) {
    return Guarded([&] {
      Child* child = nullptr;
      int rc = open(&child);
      if (rc == 0) *ctx_out = child;
      return rc;
    });
  }

  static int Init(const ssa_core_ops* ops, ssa_core_t* core, void** prov_ctx) {
    if (!ops || ops->abi_major != SSA_PROV_ABI_MAJOR || ops->size < SSA_CORE_OPS_V1_0_SIZE)
      return -EPROTO;
    return Guarded([&] {
      auto* prov = new Provider(ops, core);
      int rc = prov->Init();
      if (rc < 0) {
        delete prov;
        return rc;
      }
      *prov_ctx = prov;
      return 0;
    });
  }
  static void Fini(void* prov_ctx) { delete static_cast<Provider*>(prov_ctx); }

  static int OpenDevice(void* prov_ctx, const ssa_device_info* dev, void** dev_ctx) {
    auto* prov = static_cast<Provider*>(prov_ctx);
    return OpenChild<Device>(dev_ctx, [&](Device** d) { return prov->OpenDevice(dev, d); });
  }
  static void CloseDevice(void* dev_ctx) {
    auto* d = static_cast<Device*>(dev_ctx);
    GuardedVoid(Of(d), "close_device", [&] { Of(d)->CloseDevice(d); });
  }
  static int OpenPort(void* dev_ctx, const ssa_port_info* info, ssa_core_port_t* core_port,
                      void** port_ctx) {
    auto* d = static_cast<Device*>(dev_ctx);
    return OpenChild<Port>(port_ctx,
                           [&](Port** p) { return Of(d)->OpenPort(d, info, core_port, p); });
  }
  static void ClosePort(void* port_ctx) {
    auto* p = static_cast<Port*>(port_ctx);
    GuardedVoid(Of(p), "close_port", [&] { Of(p)->ClosePort(p); });
  }
  static void PortChanged(void* port_ctx, const ssa_port_info* info) {
    auto* p = static_cast<Port*>(port_ctx);
    GuardedVoid(Of(p), "port_changed", [&] { Of(p)->PortChanged(p, info); });
  }
  static void PortEvent(void* port_ctx, int event) {
    auto* p = static_cast<Port*>(port_ctx);
    GuardedVoid(Of(p), "port_event", [&] { Of(p)->PortEvent(p, event); });
  }
  static int OpenEndpoint(void* port_ctx, const ssa_endpoint_info* info, void** ep_ctx) {
    auto* p = static_cast<Port*>(port_ctx);
    return OpenChild<Endpoint>(ep_ctx,
                               [&](Endpoint** e) { return Of(p)->OpenEndpoint(p, info, e); });
  }
  static void CloseEndpoint(void* ep_ctx) {
    auto* e = static_cast<Endpoint*>(ep_ctx);
    GuardedVoid(Of(e), "close_endpoint", [&] { Of(e)->CloseEndpoint(e); });
  }
  static int AddAddress(void* ep_ctx, const ssa_address* addr, void** addr_ctx) {
    auto* e = static_cast<Endpoint*>(ep_ctx);
    return OpenChild<Address>(addr_ctx, [&](Address** a) { return Of(e)->AddAddress(e, addr, a); });
  }
  static void RemoveAddress(void* addr_ctx) {
    auto* a = static_cast<Address*>(addr_ctx);
    GuardedVoid(Of(a), "remove_address", [&] { Of(a)->RemoveAddress(a); });
  }
  static int Resolve(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
    auto* a = static_cast<Address*>(addr_ctx);
    return Guarded([&] { return Of(a)->Resolve(a, req, req_id); });
  }
  static int Query(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
    auto* a = static_cast<Address*>(addr_ctx);
    return Guarded([&] { return Of(a)->Query(a, req, req_id); });
  }
  static int QueryPerf(void* ep_ctx, uint64_t* values, uint8_t* count) {
    auto* e = static_cast<Endpoint*>(ep_ctx);
    return Guarded([&] { return Of(e)->QueryPerf(e, values, count); });
  }
  static void CollectMetrics(void* prov_ctx, const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink) {
    auto* prov = static_cast<Provider*>(prov_ctx);
    GuardedVoid(prov, "collect_metrics", [&] { prov->CollectMetrics(ops, sink); });
  }

 public:
  // The ops table, for a provider's ssa_provider_entry to build on its
  // first call (loading does no work) and keep in a function-local static.
  static ssa_provider MakeTable(const char* name, uint32_t version, const char* description) {
    ssa_provider t = {};
    t.size = sizeof(ssa_provider);
    t.abi_major = SSA_PROV_ABI_MAJOR;
    t.abi_minor = SSA_PROV_ABI_MINOR;
    snprintf(t.name, sizeof(t.name), "%s", name);
    t.version = version;
    t.description = description;
    t.init = Init;
    t.fini = Fini;
    t.open_device = OpenDevice;
    t.close_device = CloseDevice;
    t.open_port = OpenPort;
    t.close_port = ClosePort;
    t.port_changed = PortChanged;
    t.open_endpoint = OpenEndpoint;
    t.close_endpoint = CloseEndpoint;
    t.add_address = AddAddress;
    t.remove_address = RemoveAddress;
    t.resolve = Resolve;
    t.query = Query;
    t.query_perf = QueryPerf;
    if constexpr (Traits::kPortEvents) t.port_event = PortEvent;
    if constexpr (Traits::kMetrics) t.collect_metrics = CollectMetrics;
    return t;
  }

  // ssa_provider_entry's body. Any 1.x core: a minor the provider does not
  // know is harmless, since later ops are checked by size on either side.
  // The table is built on the first call, not at load time (loading does no
  // work), and kept in a function-local static.
  static const ssa_provider* Entry(uint16_t core_major, const char* name, uint32_t version,
                                   const char* description) {
    if (core_major != SSA_PROV_ABI_MAJOR) return nullptr;
    static const ssa_provider table = MakeTable(name, version, description);
    return &table;
  }
};

}  // namespace provider_shared
}  // namespace ssa

// Defines the module's one exported symbol, ssa_provider_entry, for the
// provider that `traits` describes (at file scope of its *_entry.cc).
#define SSA_PROVIDER_ENTRY(traits, name, version, description)                                   \
  extern "C" const ssa_provider* ssa_provider_entry(uint16_t core_major, uint16_t core_minor) {  \
    (void)core_minor;                                                                            \
    return ssa::provider_shared::AbiGlue<traits>::Entry(core_major, name, version, description); \
  }

#endif
