// acm_load.cc: see acm_load.h.
#include "test/sim/acm_load.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

namespace ssa {
namespace test {
namespace {

using Clock = std::chrono::steady_clock;

struct Conn {
  int fd = -1;
  uint64_t waiting_tid = 0;  // 0: nothing outstanding
  Clock::time_point sent_at;
  Clock::time_point next_at;  // with think time: when to send the next one
  bool due = false;
  std::vector<uint8_t> in;
  std::vector<uint8_t> out;  // what a full socket buffer left unsent
  size_t next_dest = 0;
};

// Blocking connect (a non-blocking one fails with EAGAIN while the
// server's backlog is full, which thousands of clients at once reach), then
// non-blocking for the run.
int ConnectUnix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

double Percentile(std::vector<uint32_t>* v, double p) {
  if (v->empty()) return 0;
  size_t k = static_cast<size_t>(p * static_cast<double>(v->size() - 1));
  std::nth_element(v->begin(), v->begin() + static_cast<long>(k), v->end());
  return (*v)[k];
}

}  // namespace

std::string AcmLoadResult::Describe() const {
  char b[512];
  snprintf(b, sizeof(b),
           "%d clients: sent %llu, answered %llu (success %llu, ENODATA %llu, other errors %llu), "
           "unexpected %llu, malformed %llu, closed %llu, lost %llu; p50 %.0f us, p99 %.0f us, "
           "max %.0f us",
           connected, static_cast<unsigned long long>(sent),
           static_cast<unsigned long long>(answered), static_cast<unsigned long long>(success),
           static_cast<unsigned long long>(enodata), static_cast<unsigned long long>(other_errors),
           static_cast<unsigned long long>(unexpected), static_cast<unsigned long long>(malformed),
           static_cast<unsigned long long>(closed), static_cast<unsigned long long>(lost), p50_us,
           p99_us, max_us);
  return b;
}

Status RunAcmLoad(const AcmLoadOptions& o, std::atomic<uint64_t>* progress, AcmLoadResult* out) {
  *out = AcmLoadResult();
  if (o.destinations.empty()) return Status::Error(EINVAL, "no destinations");
  int ep = epoll_create1(EPOLL_CLOEXEC);
  if (ep < 0) return Status::FromErrno("epoll_create1");
  std::vector<Conn> conns(static_cast<size_t>(o.clients));
  auto cleanup = [&] {
    for (Conn& c : conns)
      if (c.fd >= 0) close(c.fd);
    close(ep);
  };
  for (size_t i = 0; i < conns.size(); ++i) {
    conns[i].fd = ConnectUnix(o.socket);
    if (conns[i].fd < 0) {
      Status st = Status::FromErrno("connect client " + std::to_string(i));
      cleanup();
      return st;
    }
    conns[i].next_dest = i % o.destinations.size();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    ++out->connected;
  }

  uint64_t next_tid = 1;
  std::vector<uint32_t> latencies;
  latencies.reserve(1 << 20);
  auto flush = [&](size_t i) {
    Conn& c = conns[i];
    while (!c.out.empty()) {
      ssize_t n = send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      c.out.erase(c.out.begin(), c.out.begin() + n);
    }
    epoll_event ev{};
    ev.events = c.out.empty() ? uint32_t{EPOLLIN} : uint32_t{EPOLLIN | EPOLLOUT};
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_MOD, c.fd, &ev);
  };
  auto send_next = [&](size_t i) {
    Conn& c = conns[i];
    std::vector<uint8_t> req;
    c.waiting_tid = next_tid++;
    acm::EncodeResolveRequest(c.waiting_tid, {o.source, o.destinations[c.next_dest]}, &req);
    c.next_dest = (c.next_dest + 1) % o.destinations.size();
    c.sent_at = Clock::now();
    c.out.insert(c.out.end(), req.begin(), req.end());
    ++out->sent;
    flush(i);
  };
  auto on_message = [&](Conn& c, const uint8_t* p, size_t len) {
    acm::ResolveResponse r;
    if (!acm::DecodeResolveResponse(p, len, &r).ok()) {
      ++out->malformed;
      return false;
    }
    if (c.waiting_tid == 0 || r.hdr.tid != c.waiting_tid) {
      ++out->unexpected;
      return false;
    }
    c.waiting_tid = 0;
    ++out->answered;
    if (progress) progress->fetch_add(1, std::memory_order_relaxed);
    latencies.push_back(static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.sent_at).count()));
    if (r.hdr.status == acm::kStatusSuccess)
      ++out->success;
    else if (r.hdr.status == acm::kStatusENoData)
      ++out->enodata;
    else
      ++out->other_errors;
    return true;
  };

  for (size_t i = 0; i < conns.size(); ++i) send_next(i);
  auto end_sending = Clock::now() + o.duration;
  auto end_all = end_sending + o.drain;
  bool sending = true;
  std::vector<epoll_event> events(256);
  for (;;) {
    auto now = Clock::now();
    if (sending && (now >= end_sending || (o.stop && o.stop->load()))) sending = false;
    if (sending && o.think.count() > 0)
      for (size_t i = 0; i < conns.size(); ++i)
        if (conns[i].due && conns[i].fd >= 0 && now >= conns[i].next_at) {
          conns[i].due = false;
          send_next(i);
        }
    if (!sending) {
      bool waiting = false;
      for (const Conn& c : conns) waiting |= c.fd >= 0 && c.waiting_tid != 0;
      if (!waiting || now >= end_all) break;
    }
    int n = epoll_wait(ep, events.data(), static_cast<int>(events.size()),
                       o.think.count() > 0 ? 5 : 50);
    for (int k = 0; k < n; ++k) {
      size_t i = events[static_cast<size_t>(k)].data.u64;
      Conn& c = conns[i];
      if (c.fd < 0) continue;
      if (events[static_cast<size_t>(k)].events & EPOLLOUT) flush(i);
      if (!(events[static_cast<size_t>(k)].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) continue;
      uint8_t buf[4096];
      ssize_t got = recv(c.fd, buf, sizeof(buf), 0);
      if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (got <= 0) {
        ++out->closed;
        epoll_ctl(ep, EPOLL_CTL_DEL, c.fd, nullptr);
        close(c.fd);
        c.fd = -1;
        continue;
      }
      c.in.insert(c.in.end(), buf, buf + got);
      bool answered = false;
      for (;;) {
        size_t frame = 0;
        std::string error;
        acm::FrameStatus fs = acm::PeekFrame(c.in.data(), c.in.size(), &frame, &error);
        if (fs == acm::FrameStatus::kNeedMore) break;
        if (fs == acm::FrameStatus::kInvalid) {
          ++out->malformed;
          c.in.clear();
          break;
        }
        answered |= on_message(c, c.in.data(), frame);
        c.in.erase(c.in.begin(), c.in.begin() + static_cast<long>(frame));
      }
      if (answered && sending) {
        if (o.think.count() > 0) {
          c.due = true;
          c.next_at = Clock::now() + o.think;
        } else {
          send_next(i);
        }
      }
    }
  }
  for (const Conn& c : conns)
    if (c.waiting_tid != 0) ++out->lost;
  out->p50_us = Percentile(&latencies, 0.50);
  out->p99_us = Percentile(&latencies, 0.99);
  out->max_us = latencies.empty() ? 0 : *std::max_element(latencies.begin(), latencies.end());
  cleanup();
  return Status::Ok();
}

AcmLoadThread::AcmLoadThread(AcmLoadOptions options) : options_(std::move(options)) {
  options_.stop = &stop_;
  thread_ = std::thread([this] { status_ = RunAcmLoad(options_, &answered_, &result_); });
}

AcmLoadThread::~AcmLoadThread() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool AcmLoadThread::AnswersGoOn(uint64_t more, std::chrono::milliseconds timeout) const {
  uint64_t before = answered();
  auto end = Clock::now() + timeout;
  while (Clock::now() < end) {
    if (answered() >= before + more) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

Status AcmLoadThread::Finish(bool stop_now, AcmLoadResult* out) {
  if (stop_now) stop_ = true;
  if (thread_.joinable()) thread_.join();
  *out = result_;
  return status_;
}

}  // namespace test
}  // namespace ssa
