// sa_resolve.cc: the sa provider's requests: destination -> cache key,
// cache lookups, coalesced SA route queries, QUERY_SA pass-through, and the
// SA completions that answer them (see sa_provider.h for the rules).
#include <arpa/inet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/base/big_endian.h"
#include "common/base/rate_limit.h"
#include "common/mad/mad_wire.h"
#include "providers/sa/sa_provider.h"

namespace ssa {
namespace sa {

// The modules this provider shares with acmp (providers/shared/).
using provider_shared::AddressKey;
using provider_shared::AddressMap;
using provider_shared::BuildPassThroughQuery;
using provider_shared::BuildRouteQuery;
using provider_shared::Gid;
using provider_shared::InterpretSaAnswer;
using provider_shared::QuerySource;
using provider_shared::RouteEntry;
using provider_shared::RouteKey;
using provider_shared::RouteState;
using provider_shared::SaAnswer;

namespace {

constexpr uint16_t kFirstMulticastLid = 0xc000;

bool IsZeroGid(const uint8_t* gid) {
  static const uint8_t zero[16] = {};
  return !memcmp(gid, zero, 16);
}

std::string Describe(const RouteKey& key) {
  if (key.kind == RouteKey::kLid) return "LID " + std::to_string(key.lid());
  return "GID " + mad::GidToString(key.dest);
}

}  // namespace

void SaProvider::Count(SaEndpoint* ep, int counter, bool global) {
  if (ep) ++ep->counters[counter];
  if (global) ops_->counter_add(core_, counter, 1);
}

void SaProvider::Answer(SaEndpoint* ep, uint64_t req_id, bool is_query, uint8_t status,
                        const ibv_path_record* path) {
  // RESOLVE, ERROR and NODATA of the daemon-wide counters are the core's:
  // it counts every request and every failed answer itself.
  if (status == ACM_STATUS_ENODATA)
    Count(ep, ACM_CNTR_NODATA, false);
  else if (status != ACM_STATUS_SUCCESS)
    Count(ep, ACM_CNTR_ERROR, false);
  const ibv_path_record* p = status == ACM_STATUS_SUCCESS ? path : nullptr;
  if (is_query)
    ops_->query_done(core_, req_id, status, p);
  else
    ops_->resolve_done(core_, req_id, status, p);
}

QuerySource SaProvider::SourceOf(const SaEndpoint* ep) const {
  QuerySource src;
  ep->port->GidBytes(src.sgid);
  src.slid = ep->port->lid;
  src.pkey = ep->pkey;
  return src;
}

bool SaProvider::OwnAddress(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) const {
  const void* owner = nullptr;
  Gid found;
  switch (addresses_.Lookup(AddressKey(type, data, len), &owner, &found)) {
    case AddressMap::Found::kLocal:
      static_cast<const SaAddress*>(owner)->ep->port->GidBytes(gid);
      return true;
    case AddressMap::Found::kFile: memcpy(gid, found.raw, 16); return true;
    default: return false;
  }
}

uint8_t SaProvider::DestinationKey(SaEndpoint* ep, const ssa_resolve_request* req, RouteKey* key) {
  if (req->has_path) {
    // A path request names its destination by DGID or DLID; the GID is
    // preferred as the more stable of the two (LIDs move when the SM
    // reassigns them).
    if (!IsZeroGid(req->path.dgid.raw)) {
      *key = RouteKey::Gid(ep->id, req->path.dgid.raw);
      return ACM_STATUS_SUCCESS;
    }
    uint16_t dlid = FromBe16(req->path.dlid);
    if (!dlid) return ACM_STATUS_EINVAL;
    if (dlid >= kFirstMulticastLid) return ACM_STATUS_EDESTADDR;
    *key = RouteKey::Lid(ep->id, dlid);
    return ACM_STATUS_SUCCESS;
  }
  const ssa_address& dst = req->dst;
  switch (dst.type) {
    case SSA_ADDR_GID:
      if (IsZeroGid(dst.data)) return ACM_STATUS_EDESTADDR;
      *key = RouteKey::Gid(ep->id, dst.data);
      return ACM_STATUS_SUCCESS;
    case SSA_ADDR_LID: {
      uint16_t be;
      memcpy(&be, dst.data, sizeof(be));
      uint16_t lid = FromBe16(be);
      if (!lid || lid >= kFirstMulticastLid) return ACM_STATUS_EDESTADDR;
      *key = RouteKey::Lid(ep->id, lid);
      return ACM_STATUS_SUCCESS;
    }
    case SSA_ADDR_NAME:
    case SSA_ADDR_IP:
    case SSA_ADDR_IP6: {
      Gid gid;
      if (!OwnAddress(dst.type, dst.data, sizeof(dst.data), gid.raw) &&
          !(address_source_ && address_source_(dst.type, dst.data, sizeof(dst.data), gid.raw))) {
        Log(SSA_LOG_DEBUG, "endpoint %s: address of type %u is in no address data",
            ep->Name().c_str(), dst.type);
        return ACM_STATUS_EDESTADDR;
      }
      // Answered from the address data without asking anyone.
      Count(ep, ACM_CNTR_ADDR_CACHE, true);
      *key = RouteKey::Gid(ep->id, gid.raw);
      return ACM_STATUS_SUCCESS;
    }
    default: return ACM_STATUS_EDESTTYPE;
  }
}

int SaProvider::Resolve(SaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  if (!req || !SSA_HAS_MEMBER(req, path)) return -EINVAL;
  SaEndpoint* ep = src->ep;
  Count(ep, ACM_CNTR_RESOLVE, false);
  RouteKey key;
  uint8_t status = DestinationKey(ep, req, &key);
  if (status != ACM_STATUS_SUCCESS) {
    Answer(ep, req_id, false, status, nullptr);
    return 0;
  }
  if (route_source_) {
    ibv_path_record path{};
    int answered = route_source_(ep, key, &path);
    if (answered >= 0) {
      if (answered == ACM_STATUS_SUCCESS) Count(ep, ACM_CNTR_ROUTE_CACHE, true);
      Answer(ep, req_id, false, static_cast<uint8_t>(answered), &path);
      return 0;
    }
  }
  bool nodelay = req->flags & ACM_FLAGS_NODELAY;
  RouteEntry* e = cache_->Find(key, NowMs());
  if (e && e->state != RouteState::kPending) {
    Count(ep, ACM_CNTR_ROUTE_CACHE, true);
    ibv_path_record path = e->path;
    Answer(ep, req_id, false, e->state == RouteState::kValid ? ACM_STATUS_SUCCESS : e->status,
           &path);
    return 0;
  }
  if (nodelay) {
    // From the cache only: "no data yet", and the lookup goes on in the
    // background so the next request finds the answer.
    Answer(ep, req_id, false, ACM_STATUS_ENODATA, nullptr);
    if (!e) StartRouteQuery(ep, key, {});
    return 0;
  }
  if (e) {  // the same destination is being asked for already
    e->waiters.push_back(req_id);
    ++coalesced_;
    return 0;
  }
  StartRouteQuery(ep, key, {req_id});
  return 0;
}

void SaProvider::StartRouteQuery(SaEndpoint* ep, const RouteKey& key,
                                 std::vector<uint64_t> waiters) {
  SaPort* port = ep->port;
  if (!port->core_port || !port->lid) {
    for (uint64_t id : waiters) Answer(ep, id, false, ACM_STATUS_ENOTCONN, nullptr);
    return;
  }
  RouteEntry* e = cache_->AddPending(key, port->generation, next_token_++);
  e->waiters = std::move(waiters);
  if (budget_ && budget_->bounded()) {
    uint64_t now = NowMs();
    // Behind those already waiting: first asked, first sent.
    if (!waiting_.empty() || !budget_->Take(now)) {
      WaitForToken(ep, e, now);
      return;
    }
  }
  SendRouteQuery(ep, e);
}

void SaProvider::SendRouteQuery(SaEndpoint* ep, RouteEntry* e) {
  SaPort* port = ep->port;
  auto q = std::make_unique<SaQuery>();
  q->port = port;
  q->token = e->query_token;
  q->endpoint = ep->id;
  q->key = e->key;
  uint8_t mad[mad::kMadSize];
  BuildRouteQuery(SourceOf(ep), q->key, mad);
  int rc = SendQuery(ep, std::move(q), mad);
  if (rc < 0) {
    std::vector<uint64_t> failed = std::move(e->waiters);
    RouteKey key = e->key;
    cache_->Erase(e);
    if (ShouldLogCount(++send_failures_))
      Log(SSA_LOG_WARN, "endpoint %s: SA query for %s not sent: %s (%llu so far)",
          ep->Name().c_str(), Describe(key).c_str(), strerror(-rc),
          static_cast<unsigned long long>(send_failures_));
    for (uint64_t id : failed) Answer(ep, id, false, ACM_STATUS_ENOTCONN, nullptr);
  }
}

int SaProvider::SendQuery(SaEndpoint* ep, std::unique_ptr<SaQuery> q, const uint8_t* mad) {
  SaPort* port = ep->port;
  uint64_t token = q->token;
  SaQuery* arg = q.get();
  // Registered before sending: the completion looks the query up by token.
  port->queries.emplace(token, std::move(q));
  int rc = ops_->sa_send(core_, port->core_port, mad, mad::kMadSize, &SaProvider::OnSaDone, arg);
  if (rc >= 0)
    Count(ep, ACM_CNTR_ROUTE_QUERY, true);
  else
    port->queries.erase(token);
  return rc;
}

void SaProvider::set_query_budget(const QueryBudgetOptions& options) {
  budget_ = std::make_unique<QueryBudget>(options, NowMs());
}

void SaProvider::WaitForToken(SaEndpoint* ep, RouteEntry* e, uint64_t now) {
  if (waiting_.size() >= budget_->options().MaxWaiting()) {
    ++budget_stats_.refused;
    Throttle(ep, e, "more are waiting than can be sent within the wait bound");
    return;
  }
  if (ShouldLogCount(++budget_stats_.delayed))
    Log(SSA_LOG_WARN,
        "SA queries over the bound of %u/s (burst %u): %zu waiting up to %u ms for their turn "
        "(%llu so far)",
        budget_->options().rate, budget_->options().burst, waiting_.size() + 1,
        budget_->options().max_wait_ms, static_cast<unsigned long long>(budget_stats_.delayed));
  waiting_.push_back({ep->id, e->key, e->query_token, now});
  ArmDrain(now);
}

void SaProvider::Throttle(SaEndpoint* ep, RouteEntry* e, const char* why) {
  std::vector<uint64_t> failed = std::move(e->waiters);
  RouteKey key = e->key;
  cache_->Erase(e);
  uint64_t n = budget_stats_.refused + budget_stats_.timed_out;
  if (ShouldLogCount(n))
    Log(SSA_LOG_WARN,
        "endpoint %s: SA query for %s not sent, %zu requests answered ETIMEDOUT: %s (%llu so "
        "far)",
        ep->Name().c_str(), Describe(key).c_str(), failed.size(), why,
        static_cast<unsigned long long>(n));
  for (uint64_t id : failed) Answer(ep, id, false, ACM_STATUS_ETIMEDOUT, nullptr);
}

void SaProvider::DrainWaiting() {
  const uint64_t now = NowMs();
  const uint64_t max_wait = budget_->options().max_wait_ms;
  while (!waiting_.empty()) {
    const Waiting w = waiting_.front();
    SaEndpoint* ep = FindEndpoint(w.endpoint);
    RouteEntry* e = ep ? cache_->Peek(w.key) : nullptr;
    if (!e || e->state != RouteState::kPending || e->query_token != w.token) {
      waiting_.pop_front();  // answered elsewhere (endpoint closed, port flushed)
      continue;
    }
    if (now - w.since_ms > max_wait) {
      waiting_.pop_front();
      ++budget_stats_.timed_out;
      Throttle(ep, e, "no token within fallback_wait_ms");
      continue;
    }
    if (!budget_->Take(now)) break;
    waiting_.pop_front();
    SendRouteQuery(ep, e);
  }
  if (!waiting_.empty()) ArmDrain(now);
}

void SaProvider::ArmDrain(uint64_t now) {
  if (drain_timer_) return;
  // At the next token, or when the oldest must be answered, if sooner.
  uint64_t due = waiting_.front().since_ms + budget_->options().max_wait_ms;
  uint64_t delay = std::min(budget_->UntilToken(now), due > now ? due - now : 0);
  drain_timer_ = ops_->timer_add(
      core_, static_cast<uint32_t>(std::max<uint64_t>(delay, 1)),
      [](void* arg) {
        auto* self = static_cast<SaProvider*>(arg);
        self->drain_timer_ = 0;
        self->DrainWaiting();
      },
      this);
  if (drain_timer_) return;
  // No timer: nothing would ever send them; none is left waiting.
  Log(SSA_LOG_ERROR, "cannot set a timer for %zu SA queries waiting for the bound; answered now",
      waiting_.size());
  std::deque<Waiting> all;
  all.swap(waiting_);
  for (const Waiting& w : all) {
    SaEndpoint* ep = FindEndpoint(w.endpoint);
    RouteEntry* e = ep ? cache_->Peek(w.key) : nullptr;
    if (!e || e->state != RouteState::kPending || e->query_token != w.token) continue;
    ++budget_stats_.timed_out;
    Throttle(ep, e, "no timer to wait with");
  }
}

int SaProvider::Query(SaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  if (!req || !SSA_HAS_MEMBER(req, path)) return -EINVAL;
  SaEndpoint* ep = src->ep;
  SaPort* port = ep->port;
  Count(ep, ACM_CNTR_RESOLVE, false);
  ibv_path_record path{};
  if (req->has_path) {
    path = req->path;
  } else {
    // An address request with QUERY_SA: ask for the destination the way a
    // resolve would, but uncached.
    RouteKey key;
    uint8_t status = DestinationKey(ep, req, &key);
    if (status != ACM_STATUS_SUCCESS) {
      Answer(ep, req_id, true, status, nullptr);
      return 0;
    }
    if (key.kind == RouteKey::kGid)
      memcpy(path.dgid.raw, key.dest, 16);
    else
      path.dlid = ToBe16(key.lid());
    path.pkey = ToBe16(ep->pkey);
    path.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  }
  // The SA needs a source; a client that gave none means this endpoint.
  if (IsZeroGid(path.sgid.raw) && !path.slid) {
    if (IsZeroGid(path.dgid.raw))
      path.slid = ToBe16(port->lid);
    else
      port->GidBytes(path.sgid.raw);
  }
  if (!port->core_port) {
    Answer(ep, req_id, true, ACM_STATUS_ENOTCONN, nullptr);
    return 0;
  }
  auto q = std::make_unique<SaQuery>();
  q->port = port;
  q->token = next_token_++;
  q->pass_through = true;
  q->req_id = req_id;
  q->endpoint = ep->id;
  uint8_t mad[mad::kMadSize];
  BuildPassThroughQuery(path, mad);
  int rc = SendQuery(ep, std::move(q), mad);
  if (rc < 0) {
    if (ShouldLogCount(++send_failures_))
      Log(SSA_LOG_WARN, "endpoint %s: QUERY_SA not sent: %s (%llu so far)", ep->Name().c_str(),
          strerror(-rc), static_cast<unsigned long long>(send_failures_));
    Answer(ep, req_id, true, ACM_STATUS_ENOTCONN, nullptr);
  }
  return 0;
}

void SaProvider::OnSaDone(void* arg, int status, const uint8_t* mad, size_t len) {
  auto* raw = static_cast<SaQuery*>(arg);
  SaPort* port = raw->port;
  auto it = port->queries.find(raw->token);
  if (it == port->queries.end()) return;  // cannot happen: each query completes once
  std::unique_ptr<SaQuery> query = std::move(it->second);
  port->queries.erase(it);
  port->dev->prov->HandleSaDone(std::move(query), status, mad, len);
}

void SaProvider::HandleSaDone(std::unique_ptr<SaQuery> query, int status, const uint8_t* mad,
                              size_t len) {
  SaAnswer answer = InterpretSaAnswer(status, mad, len);
  if (query->pass_through) {
    SaEndpoint* ep = FindEndpoint(query->endpoint);  // null if closed meanwhile
    if (answer.status != ACM_STATUS_SUCCESS)
      Log(SSA_LOG_DEBUG, "QUERY_SA request %llu: %s",
          static_cast<unsigned long long>(query->req_id), answer.why.c_str());
    Answer(ep, query->req_id, true, answer.status, &answer.path);
    return;
  }
  FinishRouteQuery(*query, answer);
}

void SaProvider::FinishRouteQuery(const SaQuery& query, const SaAnswer& answer) {
  RouteEntry* e = cache_->Peek(query.key);
  if (!e || e->state != RouteState::kPending || e->query_token != query.token) {
    // Its endpoint closed, or its port changed and the waiters were sent
    // again: this answer belongs to no one and must not be cached.
    ++stale_answers_;
    Log(SSA_LOG_DEBUG, "stale SA answer for %s dropped (%s)", Describe(query.key).c_str(),
        answer.status == ACM_STATUS_SUCCESS ? "success" : answer.why.c_str());
    return;
  }
  SaEndpoint* ep = FindEndpoint(query.endpoint);
  std::vector<uint64_t> waiters = std::move(e->waiters);
  uint64_t now = NowMs();
  uint64_t route_life = options_.RouteLifetimeMs();
  if (answer.status == ACM_STATUS_SUCCESS && answer.cacheable && route_life > 0) {
    cache_->CompleteValid(e, answer.path, ExpiryAfter(now, route_life));
  } else if (answer.status != ACM_STATUS_SUCCESS && answer.cacheable &&
             options_.negative_timeout_ms > 0) {
    cache_->CompleteFailed(e, answer.status, ExpiryAfter(now, options_.negative_timeout_ms));
  } else {
    cache_->Erase(e);
  }
  if (answer.status != ACM_STATUS_SUCCESS)
    Log(SSA_LOG_DEBUG, "endpoint %s: %s: status %u: %s (%zu waiting)",
        ep ? ep->Name().c_str() : "?", Describe(query.key).c_str(), answer.status,
        answer.why.c_str(), waiters.size());
  for (uint64_t id : waiters) Answer(ep, id, false, answer.status, &answer.path);
}

}  // namespace sa
}  // namespace ssa
