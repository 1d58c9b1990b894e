// acmp_resolve.cc: client requests (resolve, QUERY_SA query), SA route
// queries and answers, following upstream acmp's state machine
// (acmp_dest.h):
//   name/IP destination: loopback (loopback_prot local) -> answered from
//     the port; kReady -> from the cache (ROUTE_CACHE); kAddrResolved ->
//     SA route query (ADDR_CACHE); kInit -> from the hosts file
//     (addr_preload) or an ACM resolve request (ADDR_QUERY); requests
//     arriving while a query is out wait for it;
//   path request, GID or LID destination: kReady -> from the cache; else
//     the address is taken from the request and the route from the SA.
// NODELAY requests are answered at once: from the cache, or ENODATA while
// the lookup goes on for the next request.
#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

#include "common/base/big_endian.h"
#include "providers/acmp/acmp_provider.h"
#include "providers/shared/path_query.h"

namespace ssa {
namespace acmp {

namespace {

bool NoDelay(const Waiter& w) { return (w.request.flags & ACM_FLAGS_NODELAY) != 0; }

bool IsZero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

// How to reach the destination of an SA path record (upstream's
// acmp_init_path_av): always with a GRH, so the receiver learns our GID.
dgram::AddressVector AvFromPath(const ibv_path_record& path, uint8_t lmc) {
  dgram::AddressVector av;
  av.dlid = FromBe16(path.dlid);
  av.sl = FromBe16(path.qosclass_sl) & 0xf;
  av.src_path_bits = static_cast<uint8_t>(FromBe16(path.slid) & ((1u << lmc) - 1));
  av.static_rate = path.rate & 0x3f;
  av.global = true;
  memcpy(av.dgid.raw, path.dgid.raw, 16);
  uint32_t fh = FromBe32(path.flowlabel_hoplimit);
  av.flow_label = (fh >> 8) & 0xfffff;
  av.hop_limit = static_cast<uint8_t>(fh);
  av.traffic_class = path.tclass;
  return av;
}

}  // namespace

int AcmpProvider::Resolve(AcmpAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  if (!req || !SSA_HAS_MEMBER(req, path)) return -EINVAL;
  AcmpEndpoint* ep = src->ep;
  Waiter w;
  w.req_id = req_id;
  w.request = *req;
  Count(ep, ACM_CNTR_RESOLVE, false);
  Submit(ep, w);
  return 0;
}

int AcmpProvider::Query(AcmpAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  if (!req || !SSA_HAS_MEMBER(req, path)) return -EINVAL;
  AcmpEndpoint* ep = src->ep;
  Waiter w;
  w.req_id = req_id;
  w.is_query = true;
  w.request = *req;
  if (!req->has_path) {
    Answer(ep, w, ACM_STATUS_EINVAL, nullptr);
    return 0;
  }
  // QUERY_SA: the client's record goes to the SA as it is, uncached.
  SaOp* op = NewSaOp(SaOp::kQuery, ep->port);
  op->ep_id = ep->id;
  op->req_id = req_id;
  uint8_t mad[256];
  provider_shared::BuildPassThroughQuery(req->path, mad);
  Count(ep, ACM_CNTR_ROUTE_QUERY, true);
  SendSa(op, mad);
  return 0;
}

void AcmpProvider::HandleQuery(SaOp* op, int status, const uint8_t* mad, size_t len) {
  provider_shared::SaAnswer a = provider_shared::InterpretSaAnswer(status, mad, len);
  Waiter w;
  w.req_id = op->req_id;
  w.is_query = true;
  // The endpoint may be gone; the answer is still owed.
  AcmpEndpoint* ep = FindEndpoint(op->ep_id);
  if (ep) {
    Answer(ep, w, a.status, a.status == ACM_STATUS_SUCCESS ? &a.path : nullptr);
  } else {
    ops_->query_done(core_, w.req_id, a.status, a.status == ACM_STATUS_SUCCESS ? &a.path : nullptr);
  }
}

void AcmpProvider::Submit(AcmpEndpoint* ep, const Waiter& w) {
  const ssa_address& dst = w.request.dst;
  if (w.request.has_path || dst.type == SSA_ADDR_GID || dst.type == SSA_ADDR_LID) {
    ResolvePath(ep, w);
    return;
  }
  if (dst.type != SSA_ADDR_NAME && dst.type != SSA_ADDR_IP && dst.type != SSA_ADDR_IP6) {
    Answer(ep, w, ACM_STATUS_EDESTTYPE, nullptr);
    return;
  }
  if (!ep->ready() && !(options_.loopback_prot == AcmpOptions::LoopbackProt::kLocal &&
                        IsLocal(ep, static_cast<uint8_t>(dst.type), dst.data))) {
    // Names need the min group. Upstream answers ENODATA until it is
    // joined; we let the request wait for the join, within its timeouts.
    if (NoDelay(w)) {
      Answer(ep, w, ACM_STATUS_ENODATA, nullptr);
      return;
    }
    ep->until_ready.push_back(w);
    if (!ep->ready_timer) {
      uint32_t wait = (ep->port->SubnetTimeoutMs() + static_cast<uint32_t>(options_.timeout_ms)) *
                      static_cast<uint32_t>(options_.retries + 1);
      ep->ready_timer =
          reactor_.AddTimer(std::chrono::milliseconds(wait), [this, ep] { ExpireUntilReady(ep); });
    }
    return;
  }
  ResolveName(ep, w);
}

void AcmpProvider::ExpireUntilReady(AcmpEndpoint* ep) {
  ep->ready_timer = 0;
  std::vector<Waiter> waiting = std::move(ep->until_ready);
  ep->until_ready.clear();
  Log(SSA_LOG_WARN,
      "endpoint %s: not joined to its multicast group yet; %zu requests answered ENODATA",
      ep->Name().c_str(), waiting.size());
  for (const Waiter& w : waiting) Answer(ep, w, ACM_STATUS_ENODATA, nullptr);
}

void AcmpProvider::ResolveName(AcmpEndpoint* ep, const Waiter& w) {
  const ssa_address& dst = w.request.dst;
  uint8_t type = static_cast<uint8_t>(dst.type);
  if (options_.loopback_prot == AcmpOptions::LoopbackProt::kLocal && IsLocal(ep, type, dst.data)) {
    Count(ep, ACM_CNTR_ROUTE_CACHE, true);
    ibv_path_record path = LoopbackPath(ep);
    Answer(ep, w, ACM_STATUS_SUCCESS, &path);
    return;
  }
  Dest* dest = AcquireUnlessCached(ep, w, type, dst.data);
  if (!dest) return;
  if (dest->state == DestState::kInit) {
    provider_shared::Gid gid;
    const void* owner = nullptr;
    if (options_.addr_preload &&
        hosts_.Lookup(provider_shared::AddressKey(type, dst.data, sizeof(dst.data)), &owner,
                      &gid) == provider_shared::AddressMap::Found::kFile) {
      // Known from the hosts file: the route is all that is missing.
      dest->path = ibv_path_record();
      memcpy(dest->path.dgid.raw, gid.raw, 16);
      dgram::Gid sgid = ep->port->Gid();
      memcpy(dest->path.sgid.raw, sgid.raw, 16);
      dest->path.slid = ToBe16(ep->port->lid);
      dest->path.pkey = ToBe16(ep->pkey);
      dest->path.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE;
      dest->state = DestState::kAddrResolved;
      // Its route may be cached by GID already (route_preload).
      uint8_t gid_addr[64] = {};
      memcpy(gid_addr, gid.raw, 16);
      Dest* by_gid = ep->cache->Find(kAddrGid, gid_addr);
      if (by_gid && !DestCache::Refresh(by_gid, NowMs()) && by_gid->state == DestState::kReady) {
        dest->path = by_gid->path;
        DestCache::MakeReady(dest, NowMs(), options_.AddrLifetimeMs(), options_.RouteLifetimeMs());
        Count(ep, ACM_CNTR_ROUTE_CACHE, true);
        Answer(ep, w, ACM_STATUS_SUCCESS, &dest->path);
        return;
      }
    } else {
      Count(ep, ACM_CNTR_ADDR_QUERY, true);
      Wait(ep, dest, w);
      SendResolve(ep, dest, w.request.src);
      return;
    }
  }
  if (dest->state == DestState::kAddrResolved) Count(ep, ACM_CNTR_ADDR_CACHE, true);
  Proceed(ep, dest, w);
}

void AcmpProvider::ResolvePath(AcmpEndpoint* ep, const Waiter& w) {
  ibv_path_record tmpl = {};
  if (w.request.has_path) {
    tmpl = w.request.path;
  } else if (w.request.dst.type == SSA_ADDR_GID) {
    memcpy(tmpl.dgid.raw, w.request.dst.data, 16);
  } else {
    memcpy(&tmpl.dlid, w.request.dst.data, 2);
  }
  uint8_t addr[64] = {};
  uint8_t type;
  if (tmpl.dlid) {
    type = kAddrLid;
    memcpy(addr, &tmpl.dlid, 2);
  } else if (!IsZero(tmpl.dgid.raw, 16)) {
    type = kAddrGid;
    memcpy(addr, tmpl.dgid.raw, 16);
  } else {
    Answer(ep, w, ACM_STATUS_EINVAL, nullptr);
    return;
  }
  Dest* dest = AcquireUnlessCached(ep, w, type, addr);
  if (!dest) return;
  if (dest->state == DestState::kInit) {
    // The request names the destination: no address resolution needed.
    dest->path = ibv_path_record();
    dest->path.pkey = ToBe16(ep->pkey);
    dest->path.dgid = tmpl.dgid;
    dest->path.dlid = tmpl.dlid;
    dest->path.slid = tmpl.slid ? tmpl.slid : ToBe16(ep->port->lid);
    dgram::Gid sgid = ep->port->Gid();
    if (IsZero(tmpl.sgid.raw, 16))
      memcpy(dest->path.sgid.raw, sgid.raw, 16);
    else
      dest->path.sgid = tmpl.sgid;
    dest->state = DestState::kAddrResolved;
  }
  Proceed(ep, dest, w);
}

void AcmpProvider::Proceed(AcmpEndpoint* ep, Dest* dest, const Waiter& w) {
  switch (dest->state) {
    case DestState::kInit: break;  // the callers resolve it first
    case DestState::kAddrResolved:
      Wait(ep, dest, w);
      StartRouteQuery(ep, dest);
      return;
    case DestState::kQueryAddr:
    case DestState::kQueryRoute: Wait(ep, dest, w); return;
    case DestState::kReady:  // answered by AcquireUnlessCached
      return;
  }
}

// The cache entry for (type, addr), refreshed; nullptr when the request is
// answered already: from a ready entry, or ENOMEM when the cache is full
// of entries that cannot be reused.
Dest* AcmpProvider::AcquireUnlessCached(AcmpEndpoint* ep, const Waiter& w, uint8_t type,
                                        const uint8_t* addr) {
  Dest* dest = ep->cache->Acquire(type, addr);
  if (!dest) {
    ++ep->stats().cache_full;
    Answer(ep, w, ACM_STATUS_ENOMEM, nullptr);
    return nullptr;
  }
  DestCache::Refresh(dest, NowMs());
  if (dest->state != DestState::kReady) return dest;
  Count(ep, ACM_CNTR_ROUTE_CACHE, true);
  Answer(ep, w, ACM_STATUS_SUCCESS, &dest->path);
  return nullptr;
}

void AcmpProvider::Wait(AcmpEndpoint* ep, Dest* dest, const Waiter& w) {
  if (NoDelay(w)) {
    Answer(ep, w, ACM_STATUS_ENODATA, nullptr);
    return;
  }
  dest->waiters.push_back(w);
}

void AcmpProvider::StartRouteQuery(AcmpEndpoint* ep, Dest* dest) {
  SaOp* op = NewSaOp(SaOp::kRoute, ep->port);
  op->ep_id = ep->id;
  op->dest_key = dest->key;
  dest->route_query = op->token;
  dest->state = DestState::kQueryRoute;
  provider_shared::QuerySource src;
  dgram::Gid sgid = ep->port->Gid();
  memcpy(src.sgid, sgid.raw, 16);
  src.slid = ep->port->lid;
  src.pkey = ep->pkey;
  // By GIDs when the destination's GID is known (as saquery
  // --sgid-to-dgid asks), else by LIDs.
  provider_shared::RouteKey key =
      IsZero(dest->path.dgid.raw, 16)
          ? provider_shared::RouteKey::Lid(ep->id, FromBe16(dest->path.dlid))
          : provider_shared::RouteKey::Gid(ep->id, dest->path.dgid.raw);
  uint8_t mad[256];
  provider_shared::BuildRouteQuery(src, key, mad);
  Count(ep, ACM_CNTR_ROUTE_QUERY, true);
  SendSa(op, mad);
}

void AcmpProvider::HandleRoute(SaOp* op, int status, const uint8_t* mad, size_t len) {
  AcmpEndpoint* ep = FindEndpoint(op->ep_id);
  Dest* dest = ep ? ep->cache->Find(op->dest_key) : nullptr;
  if (!dest || dest->route_query != op->token || dest->state != DestState::kQueryRoute) {
    Log(SSA_LOG_DEBUG, "stale SA route answer dropped");
    return;
  }
  dest->route_query = 0;
  provider_shared::SaAnswer a = provider_shared::InterpretSaAnswer(status, mad, len);
  if (a.status == ACM_STATUS_SUCCESS) {
    dest->path = a.path;
    dest->av = AvFromPath(dest->path, ep->port->lmc);
    DestCache::MakeReady(dest, NowMs(), options_.AddrLifetimeMs(), options_.RouteLifetimeMs());
  } else {
    Log(SSA_LOG_INFO, "endpoint %s: route to %s: %s", ep->Name().c_str(), dest->Name().c_str(),
        a.why.c_str());
    dest->state = DestState::kInit;
    dest->answer_pending = false;
  }
  Complete(ep, dest, a.status);
  if (dest->answer_pending && dest->state == DestState::kReady) SendResponse(ep, dest);
}

void AcmpProvider::Complete(AcmpEndpoint* ep, Dest* dest, uint8_t status) {
  std::vector<Waiter> waiters = std::move(dest->waiters);
  dest->waiters.clear();
  ibv_path_record path = dest->path;
  for (const Waiter& w : waiters)
    Answer(ep, w, status, status == ACM_STATUS_SUCCESS ? &path : nullptr);
}

void AcmpProvider::Answer(AcmpEndpoint* ep, const Waiter& w, uint8_t status,
                          const ibv_path_record* path) {
  if (status == ACM_STATUS_SUCCESS && !path) status = ACM_STATUS_ENODATA;
  if (status == ACM_STATUS_ENODATA)
    Count(ep, ACM_CNTR_NODATA, false);
  else if (status != ACM_STATUS_SUCCESS)
    Count(ep, ACM_CNTR_ERROR, false);
  const ibv_path_record* p = status == ACM_STATUS_SUCCESS ? path : nullptr;
  if (w.is_query)
    ops_->query_done(core_, w.req_id, status, p);
  else
    ops_->resolve_done(core_, w.req_id, status, p);
}

// The core counts resolves, errors and NODATA daemon-wide itself; the
// address and route counters are ours to add.
void AcmpProvider::Count(AcmpEndpoint* ep, int counter, bool global) {
  ++ep->counters[counter];
  if (global) ops_->counter_add(core_, counter, 1);
}

ibv_path_record AcmpProvider::LoopbackPath(const AcmpEndpoint* ep) const {
  const AcmpPort* port = ep->port;
  ibv_path_record p = {};
  dgram::Gid gid = port->Gid();
  memcpy(p.sgid.raw, gid.raw, 16);
  memcpy(p.dgid.raw, gid.raw, 16);
  p.slid = p.dlid = ToBe16(port->lid);
  p.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE;
  p.pkey = ToBe16(ep->pkey);
  uint8_t mtu = port->attrs_known ? port->attrs.mtu : options_.min_mtu;
  uint8_t rate = port->attrs_known ? port->attrs.rate : options_.min_rate;
  // Selectors "exactly", packet lifetime 0: what the SA answers for a
  // port's path to itself.
  p.mtu = static_cast<uint8_t>(0x80 | mtu);
  p.rate = static_cast<uint8_t>(0x80 | rate);
  p.packetlifetime = 0x80;
  return p;
}

}  // namespace acmp
}  // namespace ssa
