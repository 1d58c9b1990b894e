// mad_faults.cc: see mad_faults.h.
#include "common/mad/mad_faults.h"

#include <sys/epoll.h>
#include <sys/timerfd.h>

#include <cerrno>

#include "common/base/raw_fd.h"

namespace ssa {

const std::vector<std::string>& FaultyMadTransport::Keys() {
  static const std::vector<std::string> keys = {"drop", "dup", "reorder", "delay", "seed"};
  return keys;
}

FaultyMadTransport::FaultyMadTransport(std::unique_ptr<MadTransport> inner, const FaultSpec& spec)
    : inner_(std::move(inner)),
      drop_(spec.Get("drop")),
      dup_(spec.Get("dup")),
      reorder_(spec.Get("reorder")),
      delay_ms_(static_cast<int>(spec.Get("delay"))),
      dice_(static_cast<uint64_t>(spec.Get("seed"))) {}

Status FaultyMadTransport::Open(uint8_t mgmt_class, uint8_t class_version) {
  Status st = inner_->Open(mgmt_class, class_version);
  if (st.ok()) st = SetUpDelay();
  if (!st.ok()) Close();
  return st;
}

// With delay, once the inner transport is open (the daemons wrap one they
// opened already).
Status FaultyMadTransport::SetUpDelay() {
  if (delay_ms_ <= 0 || epoll_fd_ >= 0 || inner_->fd() < 0) return Status::Ok();
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  epoll_event in{}, timer{};
  in.events = timer.events = EPOLLIN;
  in.data.fd = inner_->fd();
  timer.data.fd = timer_fd_;
  if (epoll_fd_ < 0 || timer_fd_ < 0 ||
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, inner_->fd(), &in) != 0 ||
      epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, timer_fd_, &timer) != 0) {
    Status st = Status::FromErrno("mad_faults delay: epoll/timerfd");
    CloseDelay();
    return st;
  }
  return Status::Ok();
}

void FaultyMadTransport::CloseDelay() {
  if (epoll_fd_ >= 0) RawClose(epoll_fd_);
  if (timer_fd_ >= 0) RawClose(timer_fd_);
  epoll_fd_ = timer_fd_ = -1;
  delayed_.clear();
}

void FaultyMadTransport::Close() {
  CloseDelay();
  inner_->Close();
}

int FaultyMadTransport::fd() const { return delay_ms_ > 0 ? epoll_fd_ : inner_->fd(); }

Status FaultyMadTransport::Pull(ReceivedMad* out) {
  if (delay_ms_ <= 0) return inner_->Receive(out);
  if (epoll_fd_ < 0) return Status::Error(EBADF, "mad_faults: not open");
  Clock::time_point now = Clock::now();
  // Everything that has arrived, so the inner fd stops being readable;
  // bounded like the owners' own loops (the fd stays readable past that).
  for (int i = 0; i < 256; ++i) {
    Delayed d;
    Status st = inner_->Receive(&d.mad);
    if (st.code() == -EAGAIN) break;
    if (!st.ok()) return st;
    d.due = now + std::chrono::milliseconds(delay_ms_);
    delayed_.push_back(d);
    ++counters_.delayed;
  }
  if (!delayed_.empty() && delayed_.front().due <= now) {
    *out = delayed_.front().mad;
    delayed_.pop_front();
    return Status::Ok();
  }
  ArmTimer(now);
  return Status::Error(EAGAIN, "no MAD due");
}

// Setting a timerfd also clears its expiry, so once Pull has said EAGAIN
// our fd is readable again only for new input or the next due MAD.
void FaultyMadTransport::ArmTimer(Clock::time_point now) {
  itimerspec its{};
  if (!delayed_.empty()) {
    auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(delayed_.front().due - now).count();
    if (ns < 1) ns = 1;
    its.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
    its.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
  }
  timerfd_settime(timer_fd_, 0, &its, nullptr);
}

Status FaultyMadTransport::Send(const uint8_t* mad, size_t len, const MadAddress& to,
                                int response_timeout_ms) {
  if (dice_.Roll(drop_)) {
    ++counters_.dropped_sent;
    return Status::Ok();  // as lost on the wire: the sender sees nothing
  }
  return inner_->Send(mad, len, to, response_timeout_ms);
}

Status FaultyMadTransport::Receive(ReceivedMad* out) {
  if (!pending_.empty()) {
    *out = pending_.front();
    pending_.pop_front();
    return Status::Ok();
  }
  for (;;) {
    ReceivedMad m;
    Status st = Pull(&m);
    if (!st.ok()) {
      // Nothing else waiting: a held MAD comes out now.
      if (st.code() == -EAGAIN && holding_) {
        holding_ = false;
        *out = held_;
        return Status::Ok();
      }
      return st;
    }
    if (dice_.Roll(drop_)) {
      ++counters_.dropped_received;
      continue;
    }
    if (!holding_ && dice_.Roll(reorder_)) {
      ++counters_.reordered;
      holding_ = true;
      held_ = m;
      continue;
    }
    if (holding_) {  // the held one goes after this one
      pending_.push_back(held_);
      holding_ = false;
    }
    if (dice_.Roll(dup_)) {
      ++counters_.duplicated;
      pending_.push_back(m);
    }
    *out = m;
    return Status::Ok();
  }
}

Status WrapMadFaults(const std::string& spec_text, std::unique_ptr<MadTransport>* inout) {
  if (spec_text.empty()) return Status::Ok();
  FaultSpec spec;
  Status st = FaultSpec::Parse(spec_text, FaultyMadTransport::Keys(), &spec);
  if (!st.ok()) return st.WithContext("mad_faults");
  auto wrapped = std::make_unique<FaultyMadTransport>(std::move(*inout), spec);
  st = wrapped->SetUpDelay();  // the daemons wrap a transport they opened
  *inout = std::move(wrapped);
  return st.WithContext("mad_faults");
}

}  // namespace ssa
