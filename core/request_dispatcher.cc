// request_dispatcher.cc: RESOLVE / PERF_QUERY / EP_QUERY handling.
#include "core/request_dispatcher.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "core/addr_config.h"
#include "core/port_manager.h"
#include "core/provider_loader.h"

namespace ssa {

namespace {

// Wire entry -> the ABI address a provider sees. Types match by design.
ssa_address ToAddress(const acm::EpAddr& e) {
  ssa_address a = {};
  a.size = sizeof(a);
  a.type = e.type;
  std::memcpy(a.data, e.info.data(), sizeof(a.data));
  return a;
}

acm::EpAddr ToEpAddr(const ssa_address& a, uint32_t flags) {
  acm::EpAddr e;
  e.flags = flags;
  e.type = a.type;
  std::memcpy(e.info.data(), a.data, sizeof(a.data));
  return e;
}

// The local IP the kernel would use to reach `dst` (upstream's source
// selection for IP destinations): connect a UDP socket, read its name.
bool RouteSource(const acm::EpAddr& dst, ssa_address* out) {
  union {
    sockaddr sa;
    sockaddr_in in4;
    sockaddr_in6 in6;
  } addr = {};
  socklen_t len;
  if (dst.type == acm::kAddrIp) {
    addr.in4.sin_family = AF_INET;
    addr.in4.sin_port = ToBe16(9);
    std::memcpy(&addr.in4.sin_addr, dst.info.data(), 4);
    len = sizeof(addr.in4);
  } else if (dst.type == acm::kAddrIp6) {
    addr.in6.sin6_family = AF_INET6;
    addr.in6.sin6_port = ToBe16(9);
    std::memcpy(&addr.in6.sin6_addr, dst.info.data(), 16);
    len = sizeof(addr.in6);
  } else {
    return false;
  }
  int s = socket(addr.sa.sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  bool ok = connect(s, &addr.sa, len) == 0 && getsockname(s, &addr.sa, &len) == 0;
  close(s);
  if (!ok) return false;
  *out = {};
  out->size = sizeof(*out);
  out->type = dst.type;
  if (dst.type == acm::kAddrIp)
    std::memcpy(out->data, &addr.in4.sin_addr, 4);
  else
    std::memcpy(out->data, &addr.in6.sin6_addr, 16);
  return true;
}

}  // namespace

RequestDispatcher::RequestDispatcher(Logger* log, ProviderHost* host, PortManager* ports,
                                     CounterArray* counters)
    : log_(log), host_(host), ports_(ports), counters_(counters) {
  host_->set_answer_fn(
      [this](ProviderHost::PendingRequest&& req, uint8_t status, const ibv_path_record* path) {
        OnAnswer(std::move(req), status, path);
      });
}

void RequestDispatcher::Reply(ClientServer::ClientId client, const std::vector<uint8_t>& bytes) {
  if (server_) server_->Send(client, bytes.data(), bytes.size());
}

void RequestDispatcher::OnMessage(ClientServer::ClientId client, const uint8_t* msg, size_t len) {
  acm::Request req;
  acm::DecodeResult r = acm::DecodeRequest(msg, len, &req);
  if (r.action == acm::DecodeAction::kClose) {
    ++stats_.bad_requests;
    SSA_LOG(*log_, kWarn, "client %llu: %s; closing", static_cast<unsigned long long>(client),
            r.reason.c_str());
    if (server_) server_->Close(client, "malformed message");
    return;
  }
  if (r.action == acm::DecodeAction::kReplyError) {
    ++stats_.bad_requests;
    if (req.hdr.op() == acm::kOpResolve) {
      ++(*counters_)[acm::kCntrResolve];
      ++(*counters_)[acm::kCntrError];
    }
    SSA_LOG(*log_, kWarn, "client %llu: bad %s request: %s (answered %s)",
            static_cast<unsigned long long>(client), acm::OpcodeName(req.hdr.opcode),
            r.reason.c_str(), acm::AcmStatusName(r.status));
    Reply(client, acm::EncodeErrorResponse(req.hdr, r.status));
    return;
  }
  switch (req.hdr.op()) {
    case acm::kOpResolve: HandleResolve(client, req, msg, len); break;
    case acm::kOpPerfQuery: HandlePerfQuery(client, req); break;
    case acm::kOpEpQuery: HandleEpQuery(client, req); break;
    default:
      ++stats_.bad_requests;
      Reply(client, acm::EncodeErrorResponse(req.hdr, acm::kStatusEInval));
  }
}

void RequestDispatcher::CountError(uint8_t status) {
  ++(*counters_)[status == acm::kStatusENoData ? acm::kCntrNoData : acm::kCntrError];
}

void RequestDispatcher::ReplyResolveError(ClientServer::ClientId client, const acm::MsgHeader& hdr,
                                          uint8_t status, const char* why) {
  CountError(status);
  SSA_LOG(*log_, kDebug, "client %llu: resolve answered %s: %s",
          static_cast<unsigned long long>(client), acm::AcmStatusName(status), why);
  Reply(client, acm::EncodeErrorResponse(hdr, status));
}

void RequestDispatcher::HandleResolve(ClientServer::ClientId client, const acm::Request& req,
                                      const uint8_t* msg, size_t len) {
  const acm::ResolveRequest& r = req.resolve;
  ++(*counters_)[acm::kCntrResolve];
  CoreEndpoint* ep = nullptr;
  CoreAddress* src = nullptr;
  bool selected = false;
  ssa_resolve_request pr = {};
  pr.size = sizeof(pr);
  pr.flags = r.request_flags();
  if (r.is_path) {
    ibv_path_record path = r.entries[0].path();
    src = ports_->FindForPath(path, &ep);
    pr.has_path = 1;
    pr.path = path;
  } else {
    const acm::EpAddr& dst = r.entries[r.dest_entry];
    pr.dst = ToAddress(dst);
    if (r.source_entry >= 0) {
      src = ports_->FindAddress(ToAddress(r.entries[r.source_entry]), &ep);
    } else {
      selected = true;
      ssa_address routed;
      if (RouteSource(dst, &routed)) src = ports_->FindAddress(routed, &ep);
      // Beyond upstream: names, GIDs and LIDs have no route to ask, and an IP
      // route may leave through a non-IB interface; the first local endpoint
      // address is then the source.
      if (!src) src = ports_->FirstAddress(&ep);
    }
  }
  if (!src || !ep) {
    ReplyResolveError(client, req.hdr, acm::kStatusESrcAddr, "no local endpoint has that source");
    return;
  }
  pr.src = src->addr;
  ProviderInstance* prov = ep->port->provider;
  bool as_query = r.query_sa() && prov->has_query();
  ProviderHost::PendingRequest pending;
  pending.client = client;
  pending.request.assign(msg, msg + len);
  pending.is_query = r.query_sa();
  pending.source_selected = selected;
  pending.source = src->addr;
  pending.started = EventLoop::Clock::now();
  uint64_t id = host_->AddRequest(std::move(pending));
  if (r.query_sa())
    ++stats_.queries;
  else
    ++stats_.resolves;
  SSA_LOG(*log_, kTrace, "request %llu: %s from %s via %s", static_cast<unsigned long long>(id),
          r.is_path ? "path" : r.entries[r.dest_entry].ToString().c_str(), src->text.c_str(),
          prov->name().c_str());
  int rc;
  {
    // The SA queries the provider sends for it wait in this client's share.
    ProviderHost::FlowScope flow(host_, client);
    rc = as_query ? prov->table()->query(src->prov_ctx, &pr, id)
                  : prov->table()->resolve(src->prov_ctx, &pr, id);
  }
  if (rc < 0) {
    // Refused without answering: the core answers for it, unless it did
    // answer before failing.
    ProviderHost::PendingRequest refused;
    if (host_->TakeRequest(id, &refused))
      ReplyResolveError(client, req.hdr, rc == -ENOMEM ? acm::kStatusENoMem : acm::kStatusEInval,
                        "provider refused the request");
  }
}

void RequestDispatcher::OnAnswer(ProviderHost::PendingRequest&& req, uint8_t status,
                                 const ibv_path_record* path) {
  ++stats_.answered;
  if (req.done) {
    if (status == acm::kStatusSuccess && !path) status = acm::kStatusENoData;
    if (status != acm::kStatusSuccess) CountError(status);
    req.done(status, status == acm::kStatusSuccess ? path : nullptr);
    return;
  }
  acm::MsgHeader hdr = acm::MsgHeader::Decode(req.request.data());
  if (status != acm::kStatusSuccess || !path) {
    if (status == acm::kStatusSuccess) status = acm::kStatusENoData;  // success without a path
    ReplyResolveError(req.client, hdr, status, "provider answer");
    return;
  }
  acm::EpAddr source = ToEpAddr(req.source, acm::kEpFlagSource);
  Reply(req.client,
        acm::EncodeResolveResponse(hdr, *path, req.source_selected ? &source : nullptr));
}

void RequestDispatcher::ResolvePath(const ibv_path_record& path, const std::string& device,
                                    int port_num, DoneFn done) {
  ++(*counters_)[acm::kCntrResolve];
  ++stats_.internal_paths;
  ssa_resolve_request pr = {};
  pr.size = sizeof(pr);
  pr.has_path = 1;
  pr.path = path;
  // Without an SGID the request's port is the source (the kernel names it).
  ports_->FillSourceGid(device, port_num, &pr.path);
  CoreEndpoint* ep = nullptr;
  CoreAddress* src = ports_->FindForPath(pr.path, &ep);
  if (!src || !ep) {
    SSA_LOG(*log_, kDebug, "internal path request from %s/%d: no local endpoint", device.c_str(),
            port_num);
    CountError(acm::kStatusESrcAddr);
    done(acm::kStatusESrcAddr, nullptr);
    return;
  }
  SendInternal(src, ep, &pr, std::move(done));
}

void RequestDispatcher::ResolveAddress(int family, const uint8_t* addr, DoneFn done) {
  ++(*counters_)[acm::kCntrResolve];
  ++stats_.internal_addresses;
  acm::EpAddr dst;
  dst.flags = acm::kEpFlagDest;
  dst.type = family == AF_INET ? acm::kAddrIp : acm::kAddrIp6;
  std::memcpy(dst.info.data(), addr, family == AF_INET ? 4 : 16);
  CoreEndpoint* ep = nullptr;
  // Our own address: the GID of the port it lives on.
  if (ports_->FindAddress(ToAddress(dst), &ep) && ep) {
    ibv_path_record self = {};
    mad::PutGid(ep->port->info.gid_prefix, ep->port->info.port_guid, self.dgid.raw);
    self.sgid = self.dgid;
    ++stats_.answered;
    done(acm::kStatusSuccess, &self);
    return;
  }
  ssa_address routed;
  CoreAddress* src = RouteSource(dst, &routed) ? ports_->FindAddress(routed, &ep) : nullptr;
  if (!src) src = ports_->FirstAddress(&ep);
  if (!src || !ep) {
    CountError(acm::kStatusESrcAddr);
    done(acm::kStatusESrcAddr, nullptr);
    return;
  }
  ssa_resolve_request pr = {};
  pr.size = sizeof(pr);
  pr.dst = ToAddress(dst);
  SendInternal(src, ep, &pr, std::move(done));
}

void RequestDispatcher::SendInternal(CoreAddress* src, CoreEndpoint* ep, ssa_resolve_request* pr,
                                     DoneFn done) {
  pr->src = src->addr;
  ProviderInstance* prov = ep->port->provider;
  ProviderHost::PendingRequest pending;
  pending.source = src->addr;
  pending.started = EventLoop::Clock::now();
  pending.done = std::move(done);
  uint64_t id = host_->AddRequest(std::move(pending));
  ++stats_.resolves;
  int rc = prov->table()->resolve(src->prov_ctx, pr, id);
  ProviderHost::PendingRequest refused;
  if (rc < 0 && host_->TakeRequest(id, &refused)) {
    uint8_t status = rc == -ENOMEM ? acm::kStatusENoMem : acm::kStatusEInval;
    CountError(status);
    refused.done(status, nullptr);
  }
}

void RequestDispatcher::HandlePerfQuery(ClientServer::ClientId client, const acm::Request& req) {
  ++stats_.perf_queries;
  const acm::PerfQueryRequest& q = req.perf;
  if (q.scope == acm::PerfQueryRequest::Scope::kGlobal) {
    Reply(client, acm::EncodePerfResponse(
                      req.hdr, std::vector<uint64_t>(counters_->begin(), counters_->end())));
    return;
  }
  CoreEndpoint* ep = nullptr;
  if (q.scope == acm::PerfQueryRequest::Scope::kEndpointIndex)
    ep = ports_->EndpointByIndex(q.endpoint_index - 1, 0);
  else
    ports_->FindAddress(ToAddress(q.address), &ep);
  if (!ep) {
    Reply(client, acm::EncodeErrorResponse(req.hdr, acm::kStatusESrcAddr));
    return;
  }
  std::vector<uint64_t> values(acm::kMaxCounters, 0);
  uint8_t count = static_cast<uint8_t>(acm::kMaxCounter);
  ProviderInstance* prov = ep->port->provider;
  if (prov->has_query_perf()) {
    count = static_cast<uint8_t>(values.size());
    if (prov->table()->query_perf(ep->prov_ctx, values.data(), &count) < 0) count = 0;
    if (count > values.size()) count = static_cast<uint8_t>(values.size());
  }
  values.resize(count);
  Reply(client, acm::EncodePerfResponse(req.hdr, values));
}

void RequestDispatcher::HandleEpQuery(ClientServer::ClientId client, const acm::Request& req) {
  ++stats_.ep_queries;
  CoreEndpoint* ep =
      ports_->EndpointByIndex(req.ep_query.endpoint_index - 1, req.ep_query.port_filter);
  if (!ep) {
    Reply(client, acm::EncodeErrorResponse(req.hdr, acm::kStatusEInval));
    return;
  }
  acm::EpConfig cfg;
  cfg.dev_guid = ep->port->device->node_guid;
  cfg.port_num = static_cast<uint8_t>(ep->port->info.port_num);
  cfg.phys_port_cnt = static_cast<uint8_t>(ep->port->device->port_count);
  cfg.pkey = ep->pkey;
  cfg.prov_name = ep->port->provider->name();
  for (const auto& a : ep->addresses) cfg.addrs.push_back(a->text);
  Reply(client, acm::EncodeEpQueryResponse(req.hdr, cfg));
}

}  // namespace ssa
