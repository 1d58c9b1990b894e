// acmp_entry.cc: the acmp provider's ABI glue: the one exported symbol,
// ssa_provider_entry, and the C ops table whose functions forward to
// AcmpProvider. Contexts handed to the core are the provider's own objects.
//
// No C++ exception may cross the ABI (providers/shared/abi_guard.h): every
// op catches std::bad_alloc (the only one the provider's code throws) and
// returns -ENOMEM; void ops that fail to allocate log and carry on. (Timer,
// fd and SA callbacks catch it themselves, in acmp_provider.cc.)
// Threads: the core's loop thread only (ABI rule).
#include <cerrno>
#include <cstdio>
#include <new>

#include "include/ibacm_ssa/provider.h"
#include "providers/acmp/acmp_provider.h"
#include "providers/shared/abi_guard.h"

using ssa::acmp::AcmpAddress;
using ssa::acmp::AcmpDevice;
using ssa::acmp::AcmpEndpoint;
using ssa::acmp::AcmpPort;
using ssa::acmp::AcmpProvider;
using ssa::provshared::Guarded;
using ssa::provshared::GuardedVoid;

extern "C" const ssa_provider* ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

namespace {

AcmpProvider* Of(AcmpDevice* d) { return d->prov; }
AcmpProvider* Of(AcmpPort* p) { return p->dev->prov; }
AcmpProvider* Of(AcmpEndpoint* e) { return e->port->dev->prov; }
AcmpProvider* Of(AcmpAddress* a) { return a->ep->port->dev->prov; }

int AcmpInit(const ssa_core_ops* ops, ssa_core_t* core, void** prov_ctx) {
  // Every core op this provider calls is in the 1.0 table.
  if (!ops || ops->abi_major != SSA_PROV_ABI_MAJOR || ops->size < SSA_CORE_OPS_V1_0_SIZE)
    return -EPROTO;
  return Guarded([&] {
    auto* prov = new AcmpProvider(ops, core);
    int rc = prov->Init();
    if (rc < 0) {
      delete prov;
      return rc;
    }
    *prov_ctx = prov;
    return 0;
  });
}

void AcmpFini(void* prov_ctx) { delete static_cast<AcmpProvider*>(prov_ctx); }

int AcmpOpenDevice(void* prov_ctx, const ssa_device_info* dev, void** dev_ctx) {
  return Guarded([&] {
    AcmpDevice* d = nullptr;
    int rc = static_cast<AcmpProvider*>(prov_ctx)->OpenDevice(dev, &d);
    if (rc == 0) *dev_ctx = d;
    return rc;
  });
}

void AcmpCloseDevice(void* dev_ctx) {
  auto* d = static_cast<AcmpDevice*>(dev_ctx);
  Of(d)->CloseDevice(d);
}

int AcmpOpenPort(void* dev_ctx, const ssa_port_info* port, ssa_core_port_t* core_port,
                 void** port_ctx) {
  return Guarded([&] {
    auto* d = static_cast<AcmpDevice*>(dev_ctx);
    AcmpPort* p = nullptr;
    int rc = Of(d)->OpenPort(d, port, core_port, &p);
    if (rc == 0) *port_ctx = p;
    return rc;
  });
}

void AcmpClosePort(void* port_ctx) {
  auto* p = static_cast<AcmpPort*>(port_ctx);
  AcmpProvider* prov = Of(p);
  GuardedVoid(prov, "close_port", [&] { prov->ClosePort(p); });
}

void AcmpPortChanged(void* port_ctx, const ssa_port_info* port) {
  auto* p = static_cast<AcmpPort*>(port_ctx);
  GuardedVoid(Of(p), "port_changed", [&] { Of(p)->PortChanged(p, port); });
}

void AcmpPortEvent(void* port_ctx, int event) {
  auto* p = static_cast<AcmpPort*>(port_ctx);
  GuardedVoid(Of(p), "port_event", [&] { Of(p)->PortEvent(p, event); });
}

int AcmpOpenEndpoint(void* port_ctx, const ssa_endpoint_info* ep, void** ep_ctx) {
  return Guarded([&] {
    auto* p = static_cast<AcmpPort*>(port_ctx);
    AcmpEndpoint* e = nullptr;
    int rc = Of(p)->OpenEndpoint(p, ep, &e);
    if (rc == 0) *ep_ctx = e;
    return rc;
  });
}

void AcmpCloseEndpoint(void* ep_ctx) {
  auto* e = static_cast<AcmpEndpoint*>(ep_ctx);
  AcmpProvider* prov = Of(e);
  GuardedVoid(prov, "close_endpoint", [&] { prov->CloseEndpoint(e); });
}

int AcmpAddAddress(void* ep_ctx, const ssa_address* addr, void** addr_ctx) {
  return Guarded([&] {
    auto* e = static_cast<AcmpEndpoint*>(ep_ctx);
    AcmpAddress* a = nullptr;
    int rc = Of(e)->AddAddress(e, addr, &a);
    if (rc == 0) *addr_ctx = a;
    return rc;
  });
}

void AcmpRemoveAddress(void* addr_ctx) {
  auto* a = static_cast<AcmpAddress*>(addr_ctx);
  AcmpProvider* prov = Of(a);
  GuardedVoid(prov, "remove_address", [&] { prov->RemoveAddress(a); });
}

int AcmpResolve(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
  auto* a = static_cast<AcmpAddress*>(addr_ctx);
  return Guarded([&] { return Of(a)->Resolve(a, req, req_id); });
}

int AcmpQuery(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
  auto* a = static_cast<AcmpAddress*>(addr_ctx);
  return Guarded([&] { return Of(a)->Query(a, req, req_id); });
}

int AcmpQueryPerf(void* ep_ctx, uint64_t* values, uint8_t* count) {
  auto* e = static_cast<AcmpEndpoint*>(ep_ctx);
  return Of(e)->QueryPerf(e, values, count);
}

ssa_provider MakeTable() {
  ssa_provider t = {};
  t.size = sizeof(ssa_provider);
  t.abi_major = SSA_PROV_ABI_MAJOR;
  t.abi_minor = SSA_PROV_ABI_MINOR;
  snprintf(t.name, sizeof(t.name), "%s", "acmp");
  t.version = 1;
  t.description = "ACM protocol: multicast address resolution, routes from the group or the SA";
  t.init = AcmpInit;
  t.fini = AcmpFini;
  t.open_device = AcmpOpenDevice;
  t.close_device = AcmpCloseDevice;
  t.open_port = AcmpOpenPort;
  t.close_port = AcmpClosePort;
  t.port_changed = AcmpPortChanged;
  t.open_endpoint = AcmpOpenEndpoint;
  t.close_endpoint = AcmpCloseEndpoint;
  t.add_address = AcmpAddAddress;
  t.remove_address = AcmpRemoveAddress;
  t.resolve = AcmpResolve;
  t.query = AcmpQuery;
  t.query_perf = AcmpQueryPerf;
  t.port_event = AcmpPortEvent;
  return t;
}

}  // namespace

const ssa_provider* ssa_provider_entry(uint16_t core_major, uint16_t core_minor) {
  (void)core_minor;  // any 1.x core: a 1.0 core just never calls port_event
  if (core_major != SSA_PROV_ABI_MAJOR) return nullptr;
  // Built on the first call, not at load time: loading does no work.
  static const ssa_provider table = MakeTable();
  return &table;
}
