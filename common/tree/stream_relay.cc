// stream_relay.cc: see stream_relay.h.
#include "common/tree/stream_relay.h"
#include "common/base/mutex.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "common/base/fault_spec.h"
#include "common/base/raw_fd.h"

namespace ssa {
namespace tree {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kChunk = 65536;
// Read but not yet delivered: beyond this the relay stops reading, as a
// real receive window would (at delay_ms 200 that still passes 20 MB/s).
constexpr size_t kMaxHeld = 4u << 20;

bool WouldBlock(int err) { return err == EAGAIN || err == EWOULDBLOCK; }

class RelayStream : public Stream {
 public:
  RelayStream(std::unique_ptr<Stream> inner, bool connecting, const RelayFaults& faults,
              std::shared_ptr<RelayCounters> counters)
      : inner_(std::move(inner)),
        connecting_(connecting),
        faults_(faults),
        dice_(faults.seed),
        counters_(std::move(counters)),
        peer_(inner_->peer()),
        buf_(kChunk) {}

  ~RelayStream() override {
    if (thread_.joinable()) {
      stop_.store(true);
      eventfd_write(wake_fd_, 1);
      thread_.join();
    }
    for (int fd : {owner_fd_, relay_fd_, wake_fd_})
      if (fd >= 0) RawClose(fd);
    inner_.reset();
  }

  Status Start() {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0)
      return Status::FromErrno("relay socketpair");
    owner_fd_ = sv[0];
    relay_fd_ = sv[1];
    wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return Status::FromErrno("relay eventfd");
    if (connecting_) {
      // Unwritable until the relay has the connect's outcome (see the
      // header): the relay discards exactly these bytes first.
      static const char zeros[16384] = {};
      for (;;) {
        ssize_t n = send(owner_fd_, zeros, sizeof(zeros), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
          if (WouldBlock(errno)) break;
          return Status::FromErrno("relay filler");
        }
        filler_ += static_cast<size_t>(n);
      }
    }
    try {
      thread_ = std::thread([this] { Run(); });
    } catch (const std::system_error& e) {
      return Status::Error(e.code().value(), std::string("relay thread: ") + e.what());
    }
    return Status::Ok();
  }

  int fd() const override { return owner_fd_; }

  Status FinishConnect() override {
    if (!connecting_) return Status::Ok();
    MutexLock lock(&mu_);
    if (!connect_done_)  // the owner's end is not writable before: not reached in practice
      return Status::Error(EINPROGRESS, "connect to " + peer_ + " still in progress");
    return connect_status_;
  }

  ssize_t Read(void* buf, size_t len) override {
    ssize_t n = recv(owner_fd_, buf, len, MSG_DONTWAIT);
    if (n > 0) return n;
    if (n < 0) return -errno;
    int err = error_.load();
    return err ? -err : 0;
  }

  ssize_t Write(const void* buf, size_t len) override {
    int err = error_.load();
    if (err) return -err;
    ssize_t n = send(owner_fd_, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    return n < 0 ? -errno : n;
  }

  std::string peer() const override { return peer_; }

 private:
  // What the relay read from the real stream and has not delivered yet:
  // bytes, or (end) its end of stream or error.
  struct Held {
    Clock::time_point due;
    std::string bytes;
    size_t off = 0;
    bool end = false;
    int error = 0;  // positive errno with `end`; 0: a clean end
  };

  // The relay thread.
  void Run() {
    if (connecting_ && !Connected()) return WaitForStop();
    while (!stop_.load()) {
      Clock::time_point now = Clock::now();
      Deliver(now);
      FlushOut(now);
      bool stalled = now < stall_until_;
      short inner_events = 0;
      if (!inner_done_ && !stalled && held_bytes_ < kMaxHeld) inner_events |= POLLIN;
      if (!out_.empty()) inner_events |= POLLOUT;
      short relay_events = 0;
      if (!held_.empty() && held_.front().due <= now) relay_events |= POLLOUT;  // owner's end full
      if (out_.empty() && !owner_closed_) relay_events |= POLLIN;
      // An fd we want nothing from stays out of the set: poll reports
      // hang-ups unasked, which would spin a stalled reader.
      pollfd p[3] = {{wake_fd_, POLLIN, 0},
                     {inner_events ? inner_->fd() : -1, inner_events, 0},
                     {relay_events ? relay_fd_ : -1, relay_events, 0}};
      Clock::time_point wake_at = Clock::time_point::max();
      if (!held_.empty() && held_.front().due > now) wake_at = held_.front().due;
      if (stalled && !inner_done_ && stall_until_ < wake_at) wake_at = stall_until_;
      if (Poll(p, 3, now, wake_at) < 0) continue;
      if (p[0].revents) {
        eventfd_t v;
        eventfd_read(wake_fd_, &v);
        continue;
      }
      now = Clock::now();
      if ((inner_events & POLLIN) && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) ReadInner(now);
      if ((relay_events & POLLIN) && (p[2].revents & (POLLIN | POLLHUP | POLLERR))) ReadOwner();
    }
    Linger();
  }

  // ppoll until `wake_at` (max: no limit).
  int Poll(pollfd* p, nfds_t n, Clock::time_point now, Clock::time_point wake_at) {
    timespec ts;
    timespec* tsp = nullptr;
    if (wake_at != Clock::time_point::max()) {
      auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wake_at - now).count();
      if (ns < 0) ns = 0;
      ts.tv_sec = static_cast<time_t>(ns / 1000000000);
      ts.tv_nsec = static_cast<long>(ns % 1000000000);
      tsp = &ts;
    }
    return ppoll(p, n, tsp, nullptr);
  }

  // Waits for the real connect to finish and tells the owner; true when
  // connected.
  bool Connected() {
    pollfd p[2] = {{wake_fd_, POLLIN, 0}, {inner_->fd(), POLLOUT, 0}};
    for (;;) {
      if (stop_.load()) return false;
      if (ppoll(p, 2, nullptr, nullptr) < 0) continue;
      if (p[0].revents) {
        eventfd_t v;
        eventfd_read(wake_fd_, &v);
        continue;
      }
      if (p[1].revents) break;
    }
    Status st = inner_->FinishConnect();
    if (!st.ok()) error_.store(-st.code());
    {
      MutexLock lock(&mu_);
      connect_status_ = st;
      connect_done_ = true;
    }
    // The outcome first, then the owner's end writable again.
    if (!DrainFiller() || !st.ok()) {
      shutdown(relay_fd_, SHUT_WR);  // an owner watching for input sees the end too
      return false;
    }
    stall_until_ = Clock::now();
    return true;
  }

  bool DrainFiller() {
    while (filler_ > 0) {
      ssize_t n = recv(relay_fd_, buf_.data(), std::min(filler_, buf_.size()), MSG_DONTWAIT);
      if (n > 0) {
        filler_ -= static_cast<size_t>(n);
        continue;
      }
      if (n == 0 || !WouldBlock(errno)) return false;
      pollfd p[2] = {{wake_fd_, POLLIN, 0}, {relay_fd_, POLLIN, 0}};
      if (ppoll(p, 2, nullptr, nullptr) > 0 && p[0].revents) {
        if (stop_.load()) return false;
        eventfd_t v;
        eventfd_read(wake_fd_, &v);
      }
    }
    return true;
  }

  void WaitForStop() {
    pollfd p = {wake_fd_, POLLIN, 0};
    while (!stop_.load()) {
      ppoll(&p, 1, nullptr, nullptr);
      eventfd_t v;
      eventfd_read(wake_fd_, &v);
    }
  }

  // Hands the owner what is due, in order.
  void Deliver(Clock::time_point now) {
    while (!held_.empty() && held_.front().due <= now) {
      Held& h = held_.front();
      if (h.end) {
        if (h.error) error_.store(h.error);  // before the end the owner reads
        shutdown(relay_fd_, SHUT_WR);
        held_.pop_front();
        continue;
      }
      ssize_t n = send(relay_fd_, h.bytes.data() + h.off, h.bytes.size() - h.off,
                       MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0) {
        if (WouldBlock(errno)) return;  // the owner is not reading: wait for room
        owner_closed_ = true;           // only when the owner's end is gone
        held_.clear();
        held_bytes_ = 0;
        return;
      }
      h.off += static_cast<size_t>(n);
      held_bytes_ -= static_cast<size_t>(n);
      if (h.off == h.bytes.size()) held_.pop_front();
    }
  }

  // One chunk from the real stream, held until due; the dice may stall us.
  void ReadInner(Clock::time_point now) {
    ssize_t n = inner_->Read(buf_.data(), buf_.size());
    if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) return;
    Held h;
    h.due = now + std::chrono::milliseconds(faults_.delay_ms);
    if (n > 0) {
      h.bytes.assign(reinterpret_cast<const char*>(buf_.data()), static_cast<size_t>(n));
      held_bytes_ += h.bytes.size();
      held_.push_back(std::move(h));
      if (faults_.delay_ms > 0) counters_->delayed.fetch_add(1);
      if (dice_.Roll(faults_.stall)) {
        stall_until_ = now + std::chrono::milliseconds(faults_.stall_ms);
        counters_->stalls.fetch_add(1);
      }
      return;
    }
    h.end = true;
    h.error = static_cast<int>(-n);
    held_.push_back(std::move(h));
    inner_done_ = true;
  }

  // The owner's bytes, one buffer at a time (so the owner feels the real
  // stream's backpressure).
  void ReadOwner() {
    ssize_t n = recv(relay_fd_, buf_.data(), buf_.size(), MSG_DONTWAIT);
    if (n > 0) {
      if (!write_failed_)
        out_.append(reinterpret_cast<const char*>(buf_.data()), static_cast<size_t>(n));
    } else if (n == 0 || !WouldBlock(errno)) {
      owner_closed_ = true;
    }
  }

  void FlushOut(Clock::time_point now) {
    while (!out_.empty()) {
      ssize_t n = inner_->Write(out_.data(), out_.size());
      if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR) return;
      if (n < 0) return WriteFailed(static_cast<int>(-n), now);
      out_.erase(0, static_cast<size_t>(n));
    }
  }

  // The owner's next Write fails at once; its reads end with the error
  // after the data already on its way.
  void WriteFailed(int err, Clock::time_point now) {
    write_failed_ = true;
    out_.clear();
    error_.store(err);
    if (inner_done_) return;
    inner_done_ = true;
    Held h;
    h.due = now;
    h.end = true;
    h.error = err;
    held_.push_back(std::move(h));
  }

  // Stopping: what the owner wrote last still goes out, as far as the real
  // socket takes it without waiting.
  void Linger() {
    Clock::time_point now = Clock::now();
    for (int i = 0; i < 64 && !write_failed_; ++i) {
      FlushOut(now);
      if (!out_.empty() || owner_closed_) return;
      ReadOwner();
      if (out_.empty()) return;
    }
  }

  // Fixed at construction.
  std::unique_ptr<Stream> inner_;  // the relay thread's once it runs
  const bool connecting_;
  const RelayFaults faults_;
  FaultDice dice_;  // relay thread
  std::shared_ptr<RelayCounters> counters_;
  const std::string peer_;
  int owner_fd_ = -1;  // the owner's end of the pair
  int relay_fd_ = -1;  // the relay's end
  int wake_fd_ = -1;   // eventfd: stop
  size_t filler_ = 0;  // set before the thread starts, then the thread's
  std::thread thread_;

  // Shared by the two threads.
  std::atomic<bool> stop_{false};
  std::atomic<int> error_{0};  // positive errno for the owner
  Mutex mu_;
  bool connect_done_ GUARDED_BY(mu_) = false;
  Status connect_status_ GUARDED_BY(mu_);

  // The relay thread's.
  std::vector<uint8_t> buf_;
  std::deque<Held> held_;
  size_t held_bytes_ = 0;
  bool inner_done_ = false;  // its end or an error seen: no more reading
  bool write_failed_ = false;
  bool owner_closed_ = false;
  Clock::time_point stall_until_;
  std::string out_;  // the owner's bytes on their way out
};

}  // namespace

Status NewRelayStream(std::unique_ptr<Stream> inner, bool connecting, const RelayFaults& faults,
                      std::shared_ptr<RelayCounters> counters, std::unique_ptr<Stream>* out) {
  auto s = std::make_unique<RelayStream>(std::move(inner), connecting, faults, std::move(counters));
  Status st = s->Start();
  if (st.ok()) *out = std::move(s);
  return st;
}

}  // namespace tree
}  // namespace ssa
