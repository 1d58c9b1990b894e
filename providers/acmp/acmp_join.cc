// acmp_join.cc: what an acmp endpoint needs before it can resolve: the
// port's MTU, rate and subnet timeout (PortInfoRecord from the SA), and its
// multicast groups (GroupMembership, acmp_membership.h: SA joins, then
// attached in the datagram transport), wired here to the provider's SA
// operations and the endpoint's datagram QP. Requests for names wait for
// the min group (or fail with ENODATA after a while).
#include <sys/epoll.h>

#include <cerrno>
#include <cstring>

#include "common/mad/mad_wire.h"
#include "providers/acmp/acmp_provider.h"

namespace ssa {
namespace acmp {

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
    JoinGroups(ep);
  }
}

std::unique_ptr<GroupMembership> AcmpProvider::NewMembership(AcmpEndpoint* ep) {
  // The endpoint owns its membership, so the callbacks run only while it
  // is open; an SA operation, which may outlive it, refers to it by id.
  GroupMembership::Callbacks cb;
  cb.send_join = [this, ep](size_t index, uint64_t token, const uint8_t* mad) {
    SaOp* op = NewSaOp(SaOp::kJoin, ep->port);
    op->ep_id = ep->id;
    op->group = index;
    op->join_token = token;
    SendSa(op, mad);
  };
  cb.send_leave = [this, ep](const uint8_t* mad) { SendSa(NewSaOp(SaOp::kLeave, ep->port), mad); };
  cb.attach = [ep](const dgram::Group& g) { return ep->ud()->Join(g); };
  cb.detach = [ep](const dgram::Group& g) { ep->ud()->Leave(g); };
  cb.ready = [this, ep] { BecameReady(ep); };
  return std::make_unique<GroupMembership>(&reactor_, this, &options_, std::move(cb), ep->Name(),
                                           ep->pkey);
}

std::unique_ptr<DatagramIo> AcmpProvider::NewDatagramIo(AcmpEndpoint* ep) {
  DatagramIo::Callbacks cb;
  cb.on_datagram = [this, ep](const dgram::Datagram& dg) { HandleDatagram(ep, dg); };
  cb.watch = [this, ep](int fd) {
    return reactor_.WatchFd(fd, EPOLLIN, [ep](uint32_t) { ep->io->Drain(); }).code();
  };
  cb.unwatch = [this](int fd) { reactor_.UnwatchFd(fd); };
  return std::make_unique<DatagramIo>(&reactor_, this, std::move(cb), ep->Name(),
                                      options_.send_depth);
}

void AcmpProvider::JoinGroups(AcmpEndpoint* ep) {
  AcmpPort* port = ep->port;
  ep->groups->Update(port->Gid(), port->lid, port->attrs_known ? port->attrs.rate : 0,
                     port->attrs_known ? port->attrs.mtu : 0);
}

void AcmpProvider::HandleJoin(SaOp* op, int status, const uint8_t* mad, size_t len) {
  AcmpEndpoint* ep = FindEndpoint(op->ep_id);
  if (ep) ep->groups->Answered(op->group, op->join_token, status, mad, len);
}

void AcmpProvider::BecameReady(AcmpEndpoint* ep) {
  if (ep->ready_timer) reactor_.CancelTimer(ep->ready_timer);
  ep->ready_timer = 0;
  std::vector<Waiter> waiting = std::move(ep->until_ready);
  ep->until_ready.clear();
  Log(SSA_LOG_INFO, "endpoint %s ready (QPN 0x%x, %zu requests were waiting)", ep->Name().c_str(),
      ep->ud()->qpn(), waiting.size());
  for (const Waiter& w : waiting) Submit(ep, w);
}

}  // namespace acmp
}  // namespace ssa
