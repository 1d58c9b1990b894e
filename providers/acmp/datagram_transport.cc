// datagram_transport.cc: the fault-injecting endpoint wrapper (WithFaults)
// and GID text. The backends are in sim_datagram.cc and verbs_datagram.cc.
#include "providers/acmp/datagram_transport.h"

#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <chrono>
#include <queue>
#include <random>
#include <vector>

#include "common/base/raw_fd.h"

namespace ssa {
namespace dgram {

std::string GidText(const Gid& gid) {
  char buf[INET6_ADDRSTRLEN];
  if (!inet_ntop(AF_INET6, gid.raw, buf, sizeof(buf))) return "?";
  return buf;
}

const char* RejectReasonName(RejectReason why) {
  switch (why) {
    case RejectReason::kBadHeader: return "bad header";
    case RejectReason::kWrongQpn: return "wrong destination QPN";
    case RejectReason::kNotMember: return "multicast group not joined";
    case RejectReason::kWrongQkey: return "wrong Q_Key";
    case RejectReason::kWrongPkey: return "P_Key mismatch";
    case RejectReason::kBadCompletion: return "receive completion error";
    case RejectReason::kBadLength: return "bad length";
    case RejectReason::kCount: break;
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// Drops and delays what `inner_` receives. Delayed datagrams wait in a heap
// ordered by due time; a timerfd armed for the earliest one makes the
// wrapper's epoll fd readable when it is due.
class FaultyEndpoint : public DatagramEndpoint {
 public:
  FaultyEndpoint(std::unique_ptr<DatagramEndpoint> inner, const FaultOptions& faults)
      : inner_(std::move(inner)), faults_(faults), rng_(faults.seed) {}
  ~FaultyEndpoint() override {
    if (timer_fd_ >= 0) RawClose(timer_fd_);
    if (epoll_fd_ >= 0) RawClose(epoll_fd_);
  }
  FaultyEndpoint(const FaultyEndpoint&) = delete;
  FaultyEndpoint& operator=(const FaultyEndpoint&) = delete;

  Status Init() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) return Status::FromErrno("epoll_create1");
    timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd_ < 0) return Status::FromErrno("timerfd_create");
    for (int fd : {inner_->fd(), timer_fd_}) {
      epoll_event ev = {};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0) return Status::FromErrno("epoll_ctl");
    }
    return Status::Ok();
  }

  uint32_t qpn() const override { return inner_->qpn(); }
  const EndpointParams& params() const override { return inner_->params(); }
  int fd() const override { return epoll_fd_; }
  Status Send(const UnicastTarget& to, const uint8_t* data, size_t len) override {
    return inner_->Send(to, data, len);
  }
  Status SendToGroup(const Group& group, const uint8_t* data, size_t len) override {
    return inner_->SendToGroup(group, data, len);
  }
  Status Join(const Group& group) override { return inner_->Join(group); }
  Status Leave(const Group& group) override { return inner_->Leave(group); }

  bool Receive(Datagram* out) override {
    uint64_t expirations;
    while (read(timer_fd_, &expirations, sizeof(expirations)) > 0) {
    }
    Clock::time_point now = Clock::now();
    Held h;
    while (inner_->Receive(&h.datagram)) {
      if (faults_.drop_probability > 0 && coin_(rng_) < faults_.drop_probability) {
        ++injected_drops_;
        continue;
      }
      uint32_t delay = faults_.delay_ms;
      if (faults_.delay_jitter_ms)
        delay += static_cast<uint32_t>(rng_() % (faults_.delay_jitter_ms + 1));
      if (delay) ++injected_delays_;
      h.due = now + std::chrono::milliseconds(delay);
      h.seq = next_seq_++;
      held_.push(h);
    }
    if (!held_.empty() && held_.top().due <= now) {
      *out = held_.top().datagram;
      held_.pop();
      ++delivered_;
      return true;
    }
    if (!held_.empty()) ArmTimer(held_.top().due - now);
    return false;
  }

  const EndpointStats& stats() const override {
    stats_ = inner_->stats();
    stats_.received = delivered_;
    stats_.injected_drops = injected_drops_;
    stats_.injected_delays = injected_delays_;
    return stats_;
  }

 private:
  struct Held {
    Datagram datagram;
    Clock::time_point due;
    uint64_t seq = 0;  // keeps equal due times in arrival order
  };
  struct Later {
    bool operator()(const Held& a, const Held& b) const {
      return a.due != b.due ? a.due > b.due : a.seq > b.seq;
    }
  };

  void ArmTimer(Clock::duration wait) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
    if (ns <= 0) ns = 1;  // 0 would disarm the timer
    itimerspec its = {};
    its.it_value.tv_sec = ns / 1000000000;
    its.it_value.tv_nsec = ns % 1000000000;
    timerfd_settime(timer_fd_, 0, &its, nullptr);
  }

  std::unique_ptr<DatagramEndpoint> inner_;
  FaultOptions faults_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> coin_{0.0, 1.0};
  std::priority_queue<Held, std::vector<Held>, Later> held_;
  uint64_t next_seq_ = 0;
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  uint64_t delivered_ = 0;
  uint64_t injected_drops_ = 0;
  uint64_t injected_delays_ = 0;
  mutable EndpointStats stats_;
};

}  // namespace

Status WithFaults(std::unique_ptr<DatagramEndpoint> inner, const FaultOptions& faults,
                  std::unique_ptr<DatagramEndpoint>* out) {
  if (!inner) return Status::Error(EINVAL, "WithFaults: no endpoint to wrap");
  auto wrapped = std::make_unique<FaultyEndpoint>(std::move(inner), faults);
  Status st = wrapped->Init();
  if (!st.ok()) return st.WithContext("fault injection");
  *out = std::move(wrapped);
  return Status::Ok();
}

}  // namespace dgram
}  // namespace ssa
