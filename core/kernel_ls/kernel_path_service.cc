// kernel_path_service.cc: the kernel's path-record and address requests
// through the providers (see kernel_path_service.h).
#include "core/kernel_ls/kernel_path_service.h"

#include <arpa/inet.h>
#include <infiniband/acm.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/epoll.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace ssa {

using kernel_ls::LsDecodeError;
using kernel_ls::LsRequest;

namespace {
// Kernel requests are small; a page holds a burst of them.
constexpr size_t kReceiveBuffer = 8192;
// Datagrams read per wake-up before the loop serves others again.
constexpr int kReadBurst = 64;

std::string IpText(const kernel_ls::LsIpResolveRequest& r) {
  char buf[INET6_ADDRSTRLEN];
  return inet_ntop(r.family, r.addr, buf, sizeof(buf)) ? buf : "?";
}
}  // namespace

KernelPathService::KernelPathService(Reactor* reactor, Logger* log, PathResolver* resolver,
                                     Options options)
    : reactor_(reactor),
      log_(log),
      resolver_(resolver),
      options_(options),
      bad_log_(log, std::chrono::seconds(10)) {}

KernelPathService::~KernelPathService() { Stop(); }

uint32_t KernelPathService::answer_deadline_ms() const {
  // Answer (with an error if need be) before the kernel gives up on us: an
  // error makes it ask the SA at once, its own timeout only later.
  return options_.timeout_ms - options_.timeout_ms / 5;
}

bool KernelPathService::Start(const NetlinkOpenFn& open) {
  std::unique_ptr<NetlinkSocket> sock;
  Status st = open(NETLINK_RDMA, NetlinkGroupBit(RDMA_NL_GROUP_LS), &sock);
  if (!st.ok()) {
    SSA_LOG(*log_, kWarn,
            "kernel path-record service unavailable: the kernel offers no RDMA local service "
            "(%s); kernel users (rdma_cm in NFS/RDMA, iSER, SRP) will ask the SA directly",
            st.ToString().c_str());
    return false;
  }
  st = reactor_->WatchFd(sock->fd(), EPOLLIN, [this](uint32_t) { OnReadable(); });
  if (!st.ok()) {
    SSA_LOG(*log_, kError, "kernel path-record service: %s", st.ToString().c_str());
    return false;
  }
  socket_ = std::move(sock);
  std::vector<uint8_t> msg = kernel_ls::EncodeSetTimeout(next_seq_++, options_.timeout_ms);
  st = socket_->Send(msg.data(), msg.size());
  if (!st.ok()) {
    ++stats_.send_failures;
    SSA_LOG(*log_, kWarn, "kernel path-record service: SET_TIMEOUT %u ms not sent: %s",
            options_.timeout_ms, st.ToString().c_str());
  }
  SSA_LOG(*log_, kInfo,
          "kernel path-record service: listening on NETLINK_RDMA group %d; kernel timeout %u ms, "
          "answered by %u ms",
          RDMA_NL_GROUP_LS, options_.timeout_ms, answer_deadline_ms());
  return true;
}

void KernelPathService::Stop() {
  if (!socket_) return;
  reactor_->UnwatchFd(socket_->fd());
  // The kernel would otherwise wait out its timeout for each.
  std::vector<uint64_t> tokens;
  for (const auto& kv : outstanding_) tokens.push_back(kv.first);
  for (uint64_t token : tokens) {
    Outstanding o = std::move(outstanding_[token]);
    outstanding_.erase(token);
    reactor_->CancelTimer(o.timer);
    ++stats_.provider_errors;
    Send(o.request, nullptr);
  }
  if (summary_timer_) reactor_->CancelTimer(summary_timer_);
  summary_timer_ = 0;
  if (stats_.requests || stats_.bad_requests || stats_.ignored || stats_.malformed)
    SSA_LOG(*log_, kInfo, "kernel path-record service stopped: %s", StatsText().c_str());
  socket_.reset();
}

std::string KernelPathService::StatsText() const {
  auto n = [](uint64_t v) { return std::to_string(v); };
  return n(stats_.requests) + " requests (" + n(stats_.ip_requests) +
         " for an address): " + n(stats_.answered_path) + " answered with a path or GID (" +
         n(stats_.answered_directional) + " with outbound and inbound records), " +
         n(stats_.answered_error) + " with an error (" + n(stats_.provider_errors) +
         " provider errors, " + n(stats_.timeouts) + " timeouts, " + n(stats_.bad_requests) +
         " bad requests); " + n(stats_.late_answers) + " late provider answers, " +
         n(stats_.ignored + stats_.malformed) + " messages dropped, " + n(stats_.overflows) +
         " overflows";
}

void KernelPathService::NoteActivity() {
  summary_due_ = true;
  if (summary_timer_ || !options_.summary_interval_ms) return;
  summary_timer_ =
      reactor_->AddTimer(std::chrono::milliseconds(options_.summary_interval_ms), [this] {
        summary_timer_ = 0;
        if (!summary_due_) return;
        summary_due_ = false;
        SSA_LOG(*log_, kInfo, "kernel path-record service: %s", StatsText().c_str());
      });
}

void KernelPathService::OnReadable() {
  NetlinkDrainResult r =
      DrainNetlinkSocket(socket_.get(), kReceiveBuffer, kReadBurst,
                         [this](const uint8_t* data, size_t len) { HandleDatagram(data, len); });
  stats_.overflows += r.overflows;
  stats_.malformed += r.errors;
  stats_.ignored += r.foreign;
  // Lost requests: the kernel times them out and asks the SA.
  if (r.overflows)
    bad_log_.Log(LogLevel::kWarn, "overflow",
                 "kernel path-record service: the kernel dropped requests (socket buffer full); "
                 "they fall back to the SA");
  if (r.errors)
    bad_log_.Log(LogLevel::kWarn, "receive", "kernel path-record service: receive: %s",
                 strerror(r.last_error));
  if (r.foreign)
    bad_log_.Log(LogLevel::kWarn, "sender",
                 "kernel path-record service: message not from the kernel, dropped");
}

void KernelPathService::HandleDatagram(const uint8_t* data, size_t len) {
  NlMessageReader reader(data, len);
  NlMessage msg;
  while (reader.Next(&msg)) HandleMessage(msg);
  if (!reader.error().empty()) {
    ++stats_.malformed;
    bad_log_.Log(LogLevel::kWarn, "framing", "kernel path-record service: bad datagram: %s",
                 reader.error().c_str());
  }
}

void KernelPathService::HandleKernelError(const NlMessage& msg) {
  int32_t error = 0;
  if (msg.payload_len >= sizeof(error)) std::memcpy(&error, msg.payload, sizeof(error));
  if (error == 0) return;  // an acknowledgement
  ++stats_.kernel_errors;
  bad_log_.Log(LogLevel::kWarn, "kernel-error",
               "kernel path-record service: the kernel refused our message: %s",
               strerror(error < 0 ? -error : error));
}

void KernelPathService::HandleMessage(const NlMessage& msg) {
  if (msg.type == NLMSG_ERROR) {
    HandleKernelError(msg);
    return;
  }
  if (msg.type < NLMSG_MIN_TYPE) return;  // NOOP, DONE, OVERRUN
  LsRequest req;
  LsDecodeError why;
  Status st = kernel_ls::DecodeLsRequest(msg, &req, &why);
  NoteActivity();
  if (!st.ok()) {
    std::string kind = kernel_ls::LsDecodeErrorName(why);
    if (why == LsDecodeError::kNotLocalService || why == LsDecodeError::kNotRequest) {
      ++stats_.ignored;
      bad_log_.Log(LogLevel::kDebug, kind, "kernel path-record service: ignored: %s",
                   st.message().c_str());
      return;
    }
    // A request we cannot serve: the kernel waits for this sequence number,
    // and an error sends it to the SA at once.
    ++stats_.bad_requests;
    bad_log_.Log(LogLevel::kWarn, kind,
                 "kernel path-record service: request %u answered with an error: %s", req.seq,
                 st.message().c_str());
    Send(req, nullptr);
    return;
  }
  ++stats_.requests;
  uint64_t token = next_token_++;
  Outstanding& o = outstanding_[token];
  o.request = req;
  o.timer = reactor_->AddTimer(std::chrono::milliseconds(answer_deadline_ms()),
                               [this, token] { OnDeadline(token); });
  // May answer before it returns.
  auto done = [this, token](uint8_t status, const ibv_path_record* p) {
    OnProviderAnswer(token, status, p);
  };
  if (req.is_ip_resolve()) {
    ++stats_.ip_requests;
    SSA_LOG(*log_, kDebug, "kernel address request %u: %s (ifindex %u)", req.seq,
            IpText(req.ip).c_str(), req.ip.ifindex);
    resolver_->ResolveAddress(req.ip.family, req.ip.addr, done);
    return;
  }
  ibv_path_record path = kernel_ls::PathFromRequest(req.resolve);
  SSA_LOG(*log_, kDebug, "kernel path request %u from %s/%u (path use %u)", req.seq,
          req.resolve.device.c_str(), req.resolve.port_num, req.resolve.path_use);
  resolver_->ResolvePath(path, req.resolve.device, req.resolve.port_num, done);
}

void KernelPathService::OnProviderAnswer(uint64_t token, uint8_t status,
                                         const ibv_path_record* path) {
  auto it = outstanding_.find(token);
  if (it == outstanding_.end()) {
    ++stats_.late_answers;
    SSA_LOG(*log_, kDebug, "kernel path request answered after its deadline; dropped");
    return;
  }
  Outstanding o = std::move(it->second);
  outstanding_.erase(it);
  if (o.timer) reactor_->CancelTimer(o.timer);
  bool ok = status == ACM_STATUS_SUCCESS && path;
  if (!ok) ++stats_.provider_errors;
  SSA_LOG(*log_, kDebug, "kernel path request %u: status %u", o.request.seq, status);
  Send(o.request, ok ? path : nullptr);
}

void KernelPathService::OnDeadline(uint64_t token) {
  auto it = outstanding_.find(token);
  if (it == outstanding_.end()) return;
  Outstanding o = std::move(it->second);
  outstanding_.erase(it);
  ++stats_.timeouts;
  bad_log_.Log(LogLevel::kWarn, "timeout",
               "kernel path request %u: no provider answer in %u ms; answered with an error",
               o.request.seq, answer_deadline_ms());
  Send(o.request, nullptr);
}

void KernelPathService::Send(const LsRequest& req, const ibv_path_record* path) {
  if (path)
    ++stats_.answered_path;
  else
    ++stats_.answered_error;
  if (path && !req.is_ip_resolve() && kernel_ls::PathNeedsDirections(req.resolve.path_use, *path)) {
    ++stats_.answered_directional;
    SSA_LOG(*log_, kDebug, "kernel path request %u: %s path, answered with directional records",
            req.seq, kernel_ls::PathIsRouted(*path) ? "routed" : "one-way");
  }
  if (!socket_) return;
  // An address request is answered with the path's DGID: the address's GID.
  std::vector<uint8_t> msg =
      req.is_ip_resolve() ? kernel_ls::EncodeIpResolveAnswer(req, path ? path->dgid.raw : nullptr)
                          : kernel_ls::EncodeResolveAnswer(req, path);
  Status st = socket_->Send(msg.data(), msg.size());
  if (!st.ok()) {
    ++stats_.send_failures;
    bad_log_.Log(LogLevel::kWarn, "send", "kernel path-record service: answer not sent: %s",
                 st.ToString().c_str());
  }
}

}  // namespace ssa
