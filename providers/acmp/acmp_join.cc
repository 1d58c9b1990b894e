// acmp_join.cc: what an acmp endpoint needs before it can resolve: the
// port's MTU, rate and subnet timeout (PortInfoRecord from the SA), and its
// multicast groups (SA joins, then attached in the datagram transport).
// A failed join is tried again with a growing delay; requests for names
// wait for the min group (or fail with ENODATA after a while).
#include <cerrno>
#include <cstring>

#include "common/mad/mad_wire.h"
#include "providers/acmp/acmp_provider.h"

namespace ssa {
namespace acmp {

namespace {

// The longest wait between two join attempts.
constexpr uint32_t kMaxJoinRetryMs = 60000;

}  // namespace

void AcmpProvider::QueryPortInfo(AcmpPort* port) {
  SaOp* op = NewSaOp(SaOp::kPortInfo, port);
  port->attrs_query = op->token;
  uint8_t mad[mad::kMadSize];
  BuildPortInfoRecordGet(port->lid, mad);
  SendSa(op, mad);
}

void AcmpProvider::HandlePortInfo(SaOp* op, int status, const uint8_t* mad, size_t len) {
  AcmpPort* port = FindPort(op->port_id);
  if (!port || port->attrs_query != op->token || status == -ECANCELED) return;
  port->attrs_query = 0;
  PortAttributes a;
  Status st =
      status < 0 ? Status::Error(status, "no answer") : DecodePortInfoRecordResponse(mad, len, &a);
  if (!st.ok()) {
    // Without the SA's word: the min group's MTU, umad's rate, OpenSM's
    // default subnet timeout. Only the better groups depend on these.
    a.mtu = options_.min_mtu;
    a.rate = RateCodeFromGbps(port->rate_gbps);
    if (!a.rate) a.rate = options_.min_rate;
    a.subnet_timeout = kDefaultSubnetTimeout;
    Log(SSA_LOG_WARN, "port %s: PortInfoRecord for LID %u: %s; assuming MTU %d, %u Gb/s",
        port->Name().c_str(), port->lid, st.ToString().c_str(), MtuBytes(a.mtu),
        RateMbps(a.rate) / 1000);
  } else {
    if (!a.rate) a.rate = RateCodeFromGbps(port->rate_gbps);
    if (a.subnet_timeout > kMaxPlausibleSubnetTimeout) {
      Log(SSA_LOG_INFO,
          "port %s: PortInfo:SubnetTimeOut %u (%u ms) is implausible (ibsim ports say 31); "
          "using %u",
          port->Name().c_str(), a.subnet_timeout, SubnetTimeoutMs(a.subnet_timeout),
          kDefaultSubnetTimeout);
      a.subnet_timeout = kDefaultSubnetTimeout;
    }
  }
  port->attrs = a;
  port->attrs_known = true;
  Log(SSA_LOG_INFO, "port %s: MTU %d, rate %.1f Gb/s, subnet timeout %u (%u ms per try + %d)",
      port->Name().c_str(), MtuBytes(a.mtu), RateMbps(a.rate) / 1000.0, a.subnet_timeout,
      port->SubnetTimeoutMs(), options_.timeout_ms);
  for (AcmpEndpoint* ep : port->endpoints) {
    ep->requests->set_try_timeout_ms(port->SubnetTimeoutMs() +
                                     static_cast<uint32_t>(options_.timeout_ms));
    PlanAndJoin(ep);
  }
}

void AcmpProvider::PlanAndJoin(AcmpEndpoint* ep) {
  AcmpPort* port = ep->port;
  std::vector<GroupRate> plan = PlanGroups(options_, port->attrs_known ? port->attrs.rate : 0,
                                           port->attrs_known ? port->attrs.mtu : 0);
  for (const GroupRate& spec : plan) {
    dgram::Gid mgid = AcmMgid(ep->pkey, 0, spec.rate, spec.mtu);
    bool have = false;
    for (const McGroup& g : ep->groups) have = have || g.mgid == mgid;
    if (have) continue;
    McGroup g;
    g.spec = spec;
    g.mgid = mgid;
    ep->groups.push_back(g);
  }
  for (size_t i = 0; i < ep->groups.size(); ++i)
    if (ep->groups[i].state == GroupState::kIdle) Join(ep, i);
}

void AcmpProvider::Join(AcmpEndpoint* ep, size_t index) {
  McGroup& g = ep->groups[index];
  SaOp* op = NewSaOp(SaOp::kJoin, ep->port);
  op->ep_id = ep->id;
  op->group = index;
  g.join_token = op->token;
  g.state = GroupState::kJoining;
  uint8_t mad[mad::kMadSize];
  mad::BuildMcMemberSet(0, JoinRecord(g.spec, ep->port->Gid(), ep->pkey), kJoinCompMask, mad);
  Log(SSA_LOG_DEBUG, "endpoint %s: joining %s", ep->Name().c_str(), dgram::GidText(g.mgid).c_str());
  SendSa(op, mad);
}

void AcmpProvider::HandleJoin(SaOp* op, int status, const uint8_t* mad, size_t len) {
  AcmpEndpoint* ep = FindEndpoint(op->ep_id);
  size_t index = op->group;
  if (!ep || index >= ep->groups.size() || ep->groups[index].join_token != op->token) return;
  McGroup* g = &ep->groups[index];
  g->join_token = 0;
  if (status == -ECANCELED) {  // the port is closing
    g->state = GroupState::kIdle;
    return;
  }
  mad::McMemberRecord answer;
  Status st = status < 0 ? Status::Error(status, "no answer from the SA")
                         : mad::DecodeMcMemberResponse(mad, len, false, &answer);
  if (st.ok() && memcmp(answer.mgid, g->mgid.raw, 16) != 0)
    st = Status::Error(EBADMSG,
                       "the SA answered for MGID " +
                           dgram::GidText(*reinterpret_cast<const dgram::Gid*>(answer.mgid)));
  if (st.ok()) {
    RecordJoin(answer, ep->port->lid, g);
    // Upstream attaches the QP to the min group only: requests go there;
    // the other groups only give routes.
    if (index == 0) st = ep->ud->Join(g->address);
  }
  if (!st.ok()) {
    g->state = GroupState::kFailed;
    ++g->failures;
    uint32_t delay = static_cast<uint32_t>(options_.timeout_ms);
    for (int i = 1; i < g->failures && delay < kMaxJoinRetryMs; ++i) delay *= 2;
    if (delay > kMaxJoinRetryMs) delay = kMaxJoinRetryMs;
    Log(g->failures <= 3 ? SSA_LOG_WARN : SSA_LOG_DEBUG,
        "endpoint %s: join of %s failed (%s); trying again in %u ms", ep->Name().c_str(),
        dgram::GidText(g->mgid).c_str(), st.ToString().c_str(), delay);
    uint64_t ep_id = ep->id;
    dgram::Gid mgid = g->mgid;
    g->retry_timer = Add(delay, [this, ep_id, mgid] {
      AcmpEndpoint* e = FindEndpoint(ep_id);
      if (!e) return;
      for (size_t i = 0; i < e->groups.size(); ++i)
        if (e->groups[i].mgid == mgid && e->groups[i].state == GroupState::kFailed) {
          e->groups[i].retry_timer = 0;
          Join(e, i);
        }
    });
    return;
  }
  g->state = GroupState::kJoined;
  g->attached = index == 0;
  g->failures = 0;
  Log(SSA_LOG_INFO, "endpoint %s: joined %s (MLID 0x%04x, %d bytes, %.1f Gb/s, SL %u)%s",
      ep->Name().c_str(), dgram::GidText(g->mgid).c_str(), answer.mlid, MtuBytes(answer.mtu),
      RateMbps(answer.rate) / 1000.0, answer.sl, index == 0 ? ", attached" : "");
  if (index == 0) BecameReady(ep);
}

void AcmpProvider::LeaveGroups(AcmpEndpoint* ep, bool tell_sa) {
  for (McGroup& g : ep->groups) {
    if (g.retry_timer) Cancel(g.retry_timer);
    if (g.attached) ep->ud->Leave(g.address);
    if (tell_sa && g.state == GroupState::kJoined) {
      SaOp* op = NewSaOp(SaOp::kLeave, ep->port);
      uint8_t mad[mad::kMadSize];
      mad::BuildMcMemberDelete(0, LeaveRecord(g, ep->port->Gid()), kLeaveCompMask, mad);
      SendSa(op, mad);
    }
  }
  ep->groups.clear();
}

void AcmpProvider::BecameReady(AcmpEndpoint* ep) {
  if (ep->ready_timer) Cancel(ep->ready_timer);
  ep->ready_timer = 0;
  std::vector<Waiter> waiting = std::move(ep->until_ready);
  ep->until_ready.clear();
  Log(SSA_LOG_INFO, "endpoint %s ready (QPN 0x%x, %zu requests were waiting)", ep->Name().c_str(),
      ep->ud->qpn(), waiting.size());
  for (const Waiter& w : waiting) Submit(ep, w);
}

}  // namespace acmp
}  // namespace ssa
