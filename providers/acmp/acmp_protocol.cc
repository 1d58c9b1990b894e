// acmp_protocol.cc: the ACM messages an endpoint receives and sends.
//
// A resolve request (multicast on the min group) is handled by every
// endpoint that receives it, as upstream acmp does:
//   - the requester (its source address) is cached: its LID, GID (from
//     the GRH), QPN and the best group both share; with route_prot acm its
//     route too (from that group), with route_prot sa only when it is
//     needed now (we own the address asked for, or clients wait for the
//     requester), so a later resolve of the requester sends no request;
//   - the owner of the destination address answers by unicast, with the
//     chosen group's MGID (after its SA route query, with route_prot sa).
// A response is matched to our request by TID and completes the
// destination the same way. A requester that shows up with a new QPN (a
// restarted daemon) replaces what was cached about it.
// Anything that does not decode, or answers nothing we asked, is counted
// per endpoint, logged (rate-limited) and dropped; nothing a datagram says
// can crash the daemon or make it answer a client twice.
#include <arpa/inet.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/base/big_endian.h"
#include "common/base/rate_limit.h"
#include "providers/acmp/acmp_provider.h"

namespace ssa {
namespace acmp {

void AcmpProvider::LogStats() {
  stats_timer_ =
      reactor_.AddTimer(std::chrono::seconds(options_.stats_interval_s), [this] { LogStats(); });
  for (const auto& kv : endpoints_) kv.second->io->LogStatsIfChanged();
}

void AcmpProvider::HandleDatagram(AcmpEndpoint* ep, const dgram::Datagram& dg) {
  AcmMessage msg;
  DecodeError why = DecodeError::kNone;
  Status st = DecodeAcmMessage(dg.data, dg.len, &msg, &why);
  if (!st.ok()) {
    Malformed(ep, dg, why, st.message());
    return;
  }
  if (msg.is_response()) {
    ++ep->stats().responses_received;
    std::string key;
    if (!ep->requests->TakeResponse(msg.tid, &key)) {
      uint64_t n = ++ep->stats().unexpected_responses;
      if (ShouldLogCount(n))
        Log(SSA_LOG_WARN,
            "endpoint %s: response TID 0x%llx from LID %u QPN 0x%x answers no request of ours; "
            "dropped (%llu so far)",
            ep->Name().c_str(), static_cast<unsigned long long>(msg.tid), dg.slid, dg.src_qpn,
            static_cast<unsigned long long>(n));
      return;
    }
    HandleResponse(ep, key, dg, msg);
    return;
  }
  ++ep->stats().requests_received;
  HandleRequest(ep, dg, msg);
}

void AcmpProvider::Malformed(AcmpEndpoint* ep, const dgram::Datagram& dg, DecodeError why,
                             const std::string& what) {
  ++ep->stats().malformed[static_cast<int>(why)];
  uint64_t n = ++ep->stats().malformed_total;
  if (ShouldLogCount(n))
    Log(SSA_LOG_WARN,
        "endpoint %s: malformed ACM message from LID %u QPN 0x%x dropped (%s: %s); %llu so far",
        ep->Name().c_str(), dg.slid, dg.src_qpn, DecodeErrorName(why), what.c_str(),
        static_cast<unsigned long long>(n));
}

void AcmpProvider::HandleRequest(AcmpEndpoint* ep, const dgram::Datagram& dg,
                                 const AcmMessage& msg) {
  AcmpPort* port = ep->port;
  uint16_t lid_mask = static_cast<uint16_t>(~((1u << port->lmc) - 1));
  bool local = IsLocal(ep, msg.dest.type, msg.dest.data);
  bool own = (dg.slid & lid_mask) == port->lid && dg.src_qpn == ep->ud()->qpn();
  // Our own multicast comes back (IB multicast loopback). Only a request
  // for one of our addresses under loopback_prot none is for us.
  if (own && (!local || options_.loopback_prot == AcmpOptions::LoopbackProt::kLocal)) {
    ++ep->stats().own_requests;
    return;
  }
  Log(SSA_LOG_DEBUG, "endpoint %s: request from %s for %s (LID %u QPN 0x%x, TID 0x%llx)%s",
      ep->Name().c_str(), AddressText(msg.src.type, msg.src.data).c_str(),
      AddressText(msg.dest.type, msg.dest.data).c_str(), dg.slid, dg.src_qpn,
      static_cast<unsigned long long>(msg.tid), local ? ": ours" : "");
  bool created = false;
  Dest* dest = ep->cache->Acquire(msg.src.type, msg.src.data, &created);
  if (!dest) {
    uint64_t n = ++ep->stats().cache_full;
    if (ShouldLogCount(n))
      Log(SSA_LOG_WARN, "endpoint %s: cache full (%zu); request from LID %u not handled",
          ep->Name().c_str(), ep->cache->capacity(), dg.slid);
    return;
  }
  if (local) {
    dest->answer_pending = true;
    dest->answer_tid = msg.tid;
  }
  DestCache::Refresh(dest, NowMs());
  uint8_t status = ACM_STATUS_SUCCESS;
  bool known = dest->state == DestState::kReady && dest->remote_qpn == dg.src_qpn &&
               dest->av.dlid == dg.slid;
  if (dest->state == DestState::kQueryRoute) return;  // its route query answers
  if (!known) {
    if (dest->state == DestState::kReady)
      Log(SSA_LOG_INFO, "endpoint %s: %s now at LID %u QPN 0x%x (was LID %u QPN 0x%x)",
          ep->Name().c_str(), dest->Name().c_str(), dg.slid, dg.src_qpn, dest->av.dlid,
          dest->remote_qpn);
    if (dest->state != DestState::kAddrResolved || dest->remote_qpn != dg.src_qpn) {
      status = RecordAcmAddress(ep, dest, dg, msg);
      if (status == ACM_STATUS_SUCCESS) ++ep->stats().requesters_cached;
    }
    if (status != ACM_STATUS_SUCCESS) {
      dest->state = DestState::kInit;
    } else {
      if (options_.route_prot == AcmpOptions::RouteProt::kAcm) {
        status = RecordAcmRoute(ep, dest);
      } else if (local || !dest->waiters.empty()) {
        StartRouteQuery(ep, dest);  // answers waiters and the requester
        return;
      } else {
        return;  // the address is cached; a route is asked for when needed
      }
    }
  }
  Complete(ep, dest, status);
  if (local) {
    if (status == ACM_STATUS_SUCCESS)
      SendResponse(ep, dest);
    else
      dest->answer_pending = false;
  }
}

void AcmpProvider::HandleResponse(AcmpEndpoint* ep, const std::string& key,
                                  const dgram::Datagram& dg, const AcmMessage& msg) {
  Dest* dest = ep->cache->Find(key);
  if (!dest || dest->state != DestState::kQueryAddr || dest->addr_request != msg.tid) {
    // Someone's request told us already, or the entry was dropped (and
    // perhaps made anew) since we asked.
    Log(SSA_LOG_DEBUG, "endpoint %s: response TID 0x%llx for a destination not waiting for one",
        ep->Name().c_str(), static_cast<unsigned long long>(msg.tid));
    return;
  }
  uint8_t status = msg.acm_status();
  if (status == ACM_STATUS_SUCCESS) status = RecordAcmAddress(ep, dest, dg, msg);
  if (status == ACM_STATUS_SUCCESS) {
    if (options_.route_prot == AcmpOptions::RouteProt::kSa) {
      StartRouteQuery(ep, dest);
      return;
    }
    status = RecordAcmRoute(ep, dest);
  }
  if (status != ACM_STATUS_SUCCESS) dest->state = DestState::kInit;
  Complete(ep, dest, status);
}

uint8_t AcmpProvider::RecordAcmAddress(AcmpEndpoint* ep, Dest* dest, const dgram::Datagram& dg,
                                       const AcmMessage& msg) {
  if (!dg.has_grh) {
    uint64_t n = ++ep->stats().no_grh;
    if (ShouldLogCount(n))
      Log(SSA_LOG_WARN, "endpoint %s: ACM message from LID %u without a GRH: sender GID unknown",
          ep->Name().c_str(), dg.slid);
    return ACM_STATUS_EINVAL;
  }
  int best = BestSharedGroup(ep->groups->groups(), msg.gids.data(), msg.gid_count);
  if (best < 0) {
    uint64_t n = ++ep->stats().no_shared_group;
    if (ShouldLogCount(n))
      Log(SSA_LOG_WARN, "endpoint %s: no multicast group shared with %s (LID %u, %u groups)",
          ep->Name().c_str(), dest->Name().c_str(), dg.slid, msg.gid_count);
    return ACM_STATUS_ENODATA;
  }
  const McGroup& g = ep->groups->groups()[static_cast<size_t>(best)];
  dest->av = g.address.av;
  dest->av.dlid = dg.slid;
  dest->av.src_path_bits = dg.dlid_path_bits;
  dest->av.global = true;
  dest->av.dgid = dg.sgid;
  dest->mgid = g.mgid;
  dest->path = ibv_path_record();
  dest->path.sgid = g.route.sgid;
  memcpy(dest->path.dgid.raw, dg.sgid.raw, 16);
  dest->path.tclass = g.route.tclass;
  dest->path.pkey = g.route.pkey;
  dest->remote_qpn = dg.src_qpn;
  dest->state = DestState::kAddrResolved;
  return ACM_STATUS_SUCCESS;
}

uint8_t AcmpProvider::RecordAcmRoute(AcmpEndpoint* ep, Dest* dest) {
  const McGroup* g = FindJoined(ep->groups->groups(), dest->mgid);
  if (!g) return ACM_STATUS_EINVAL;
  dest->path = g->route;
  memcpy(dest->path.dgid.raw, dest->av.dgid.raw, 16);
  dest->path.dlid = ToBe16(dest->av.dlid);
  // The group's PacketLifeTime is about multicast delivery (OpenSM answers
  // the one the joiner asked for, 0 here); a connection built on this path
  // derives its ACK timeout from it, which 4 us would make far too short.
  // Give what the SA gives a unicast path: the subnet timeout, "exactly",
  // and NumbPath 0 with the reversible bit, as in the SA's GetResp.
  uint8_t life = ep->port->attrs_known ? ep->port->attrs.subnet_timeout : kDefaultSubnetTimeout;
  const uint8_t kExactly = 2 << 6;  // selector bits
  dest->path.packetlifetime = static_cast<uint8_t>(kExactly | (life & 0x3f));
  dest->path.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE;
  DestCache::MakeReady(dest, NowMs(), options_.AddrLifetimeMs(), options_.RouteLifetimeMs());
  return ACM_STATUS_SUCCESS;
}

void AcmpProvider::SendResolve(AcmpEndpoint* ep, Dest* dest, const ssa_address& src) {
  AcmMessage m;
  m.method = kAcmMethodResolve;
  m.src.type = static_cast<uint8_t>(src.type);
  m.src.length = kAcmAddressSize;
  memcpy(m.src.data, src.data, kAcmAddressSize);
  m.dest.type = dest->addr_type;
  m.dest.length = kAcmAddressSize;
  memcpy(m.dest.data, dest->addr, kAcmAddressSize);
  std::vector<dgram::Gid> gids = AdvertisedGroups(ep->groups->groups(), kAcmMaxGids);
  m.gid_count = static_cast<uint8_t>(gids.size());
  for (size_t i = 0; i < gids.size(); ++i) m.gids[i] = gids[i];
  dest->state = DestState::kQueryAddr;
  dest->addr_request = ep->requests->Start(dest->key, m);
}

void AcmpProvider::SendResponse(AcmpEndpoint* ep, Dest* dest) {
  AcmMessage m;
  m.method = kAcmMethodResolve | kAcmMethodResponse;
  m.status = ACM_STATUS_SUCCESS;
  m.tid = dest->answer_tid;
  m.gid_count = 1;
  m.gids[0] = dest->mgid;
  // Upstream sends these zero; the requester's address, for debugging.
  m.src.type = dest->addr_type;
  m.src.length = kAcmAddressSize;
  memcpy(m.src.data, dest->addr, kAcmAddressSize);
  uint8_t buf[kAcmMessageSize];
  EncodeAcmMessage(m, buf);
  dgram::UnicastTarget to;
  to.av = dest->av;
  to.qpn = dest->remote_qpn;
  to.qkey = kAcmQkey;
  dest->answer_pending = false;
  ep->io->SendResponse(to, buf, sizeof(buf), dest->Name());
}

bool AcmpProvider::SendToMinGroup(AcmpEndpoint* ep, const uint8_t* msg, size_t len) {
  if (!ep->ready()) return false;
  return ep->io->SendToGroup(ep->groups->groups()[0].address, msg, len);
}

void AcmpProvider::RequestTimedOut(AcmpEndpoint* ep, const std::string& key, uint64_t tid,
                                   int tries) {
  Dest* dest = ep->cache->Find(key);
  if (!dest || dest->state != DestState::kQueryAddr || dest->addr_request != tid) return;
  Log(SSA_LOG_INFO, "endpoint %s: no answer for %s after %d tries (%u ms each)", ep->Name().c_str(),
      dest->Name().c_str(), tries, ep->requests->try_timeout_ms());
  dest->state = DestState::kInit;
  Complete(ep, dest, ACM_STATUS_ETIMEDOUT);
}

}  // namespace acmp
}  // namespace ssa
