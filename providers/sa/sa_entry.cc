// sa_entry.cc: the sa provider's ABI glue: the one exported symbol,
// ssa_provider_entry, and the C ops table whose functions forward to
// SaProvider. Contexts handed to the core are the provider's own objects.
//
// No C++ exception may cross the ABI (providers/shared/abi_guard.h): every
// op that allocates catches std::bad_alloc (the only one the provider's
// code can throw) and returns -ENOMEM; void ops that fail to allocate log
// and carry on.
// Threads: the core's loop thread only (ABI rule).
#include <cerrno>
#include <cstdio>
#include <new>

#include "include/ibacm_ssa/provider.h"
#include "providers/sa/sa_provider.h"
#include "providers/shared/abi_guard.h"

using ssa::provshared::Guarded;
using ssa::provshared::GuardedVoid;
using ssa::saprov::SaAddress;
using ssa::saprov::SaDevice;
using ssa::saprov::SaEndpoint;
using ssa::saprov::SaPort;
using ssa::saprov::SaProvider;

extern "C" const ssa_provider* ssa_provider_entry(uint16_t core_major, uint16_t core_minor);

namespace {

// The provider behind each context.
SaProvider* Of(SaDevice* d) { return d->prov; }
SaProvider* Of(SaPort* p) { return p->dev->prov; }
SaProvider* Of(SaEndpoint* e) { return e->port->dev->prov; }
SaProvider* Of(SaAddress* a) { return a->ep->port->dev->prov; }

int SaInit(const ssa_core_ops* ops, ssa_core_t* core, void** prov_ctx) {
  // Every op this provider calls is in the 1.0 table.
  if (!ops || ops->abi_major != SSA_PROV_ABI_MAJOR || ops->size < SSA_CORE_OPS_V1_0_SIZE)
    return -EPROTO;
  return Guarded([&] {
    auto* prov = new SaProvider(ops, core);
    int rc = prov->Init();
    if (rc < 0) {
      delete prov;
      return rc;
    }
    *prov_ctx = prov;
    return 0;
  });
}

void SaFini(void* prov_ctx) { delete static_cast<SaProvider*>(prov_ctx); }

int SaOpenDevice(void* prov_ctx, const ssa_device_info* dev, void** dev_ctx) {
  return Guarded([&] {
    SaDevice* d = nullptr;
    int rc = static_cast<SaProvider*>(prov_ctx)->OpenDevice(dev, &d);
    if (rc == 0) *dev_ctx = d;
    return rc;
  });
}

void SaCloseDevice(void* dev_ctx) {
  auto* d = static_cast<SaDevice*>(dev_ctx);
  Of(d)->CloseDevice(d);
}

int SaOpenPort(void* dev_ctx, const ssa_port_info* port, ssa_core_port_t* core_port,
               void** port_ctx) {
  return Guarded([&] {
    auto* d = static_cast<SaDevice*>(dev_ctx);
    SaPort* p = nullptr;
    int rc = Of(d)->OpenPort(d, port, core_port, &p);
    if (rc == 0) *port_ctx = p;
    return rc;
  });
}

void SaClosePort(void* port_ctx) {
  auto* p = static_cast<SaPort*>(port_ctx);
  SaProvider* prov = Of(p);
  GuardedVoid(prov, "close_port", [&] { prov->ClosePort(p); });
}

void SaPortChanged(void* port_ctx, const ssa_port_info* port) {
  auto* p = static_cast<SaPort*>(port_ctx);
  int rc = Guarded([&] {
    Of(p)->PortChanged(p, port);
    return 0;
  });
  if (rc < 0) Of(p)->Log(SSA_LOG_ERROR, "port_changed: out of memory; cached routes may be stale");
}

int SaOpenEndpoint(void* port_ctx, const ssa_endpoint_info* ep, void** ep_ctx) {
  return Guarded([&] {
    auto* p = static_cast<SaPort*>(port_ctx);
    SaEndpoint* e = nullptr;
    int rc = Of(p)->OpenEndpoint(p, ep, &e);
    if (rc == 0) *ep_ctx = e;
    return rc;
  });
}

void SaCloseEndpoint(void* ep_ctx) {
  auto* e = static_cast<SaEndpoint*>(ep_ctx);
  SaProvider* prov = Of(e);
  GuardedVoid(prov, "close_endpoint", [&] { prov->CloseEndpoint(e); });
}

int SaAddAddress(void* ep_ctx, const ssa_address* addr, void** addr_ctx) {
  return Guarded([&] {
    auto* e = static_cast<SaEndpoint*>(ep_ctx);
    SaAddress* a = nullptr;
    int rc = Of(e)->AddAddress(e, addr, &a);
    if (rc == 0) *addr_ctx = a;
    return rc;
  });
}

void SaRemoveAddress(void* addr_ctx) {
  auto* a = static_cast<SaAddress*>(addr_ctx);
  Of(a)->RemoveAddress(a);
}

int SaResolve(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
  auto* a = static_cast<SaAddress*>(addr_ctx);
  return Guarded([&] { return Of(a)->Resolve(a, req, req_id); });
}

int SaQueryOp(void* addr_ctx, const ssa_resolve_request* req, uint64_t req_id) {
  auto* a = static_cast<SaAddress*>(addr_ctx);
  return Guarded([&] { return Of(a)->Query(a, req, req_id); });
}

int SaQueryPerf(void* ep_ctx, uint64_t* values, uint8_t* count) {
  auto* e = static_cast<SaEndpoint*>(ep_ctx);
  return Of(e)->QueryPerf(e, values, count);
}

ssa_provider MakeTable() {
  ssa_provider t = {};
  t.size = sizeof(ssa_provider);
  t.abi_major = SSA_PROV_ABI_MAJOR;
  t.abi_minor = SSA_PROV_ABI_MINOR;
  snprintf(t.name, sizeof(t.name), "%s", "sa");
  t.version = 1;
  t.description = "path records from the SA (SubnAdmGet PathRecord), cached";
  t.init = SaInit;
  t.fini = SaFini;
  t.open_device = SaOpenDevice;
  t.close_device = SaCloseDevice;
  t.open_port = SaOpenPort;
  t.close_port = SaClosePort;
  t.port_changed = SaPortChanged;
  t.open_endpoint = SaOpenEndpoint;
  t.close_endpoint = SaCloseEndpoint;
  t.add_address = SaAddAddress;
  t.remove_address = SaRemoveAddress;
  t.resolve = SaResolve;
  t.query = SaQueryOp;
  t.query_perf = SaQueryPerf;
  return t;
}

}  // namespace

const ssa_provider* ssa_provider_entry(uint16_t core_major, uint16_t core_minor) {
  (void)core_minor;  // any 1.x core: this provider uses only 1.0 ops
  if (core_major != SSA_PROV_ABI_MAJOR) return nullptr;
  // Built on the first call, not at load time: loading does no work.
  static const ssa_provider table = MakeTable();
  return &table;
}
