// resolve_flood.cc: see resolve_flood.h.
#include "test/bench/resolve_flood.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/acm/acm_client.h"

namespace ssa {
namespace bench {

namespace {

int ConnectUnix(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return -1;
  memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

Status ResolveFlood::Start(const std::string& socket, const std::vector<uint8_t>& request,
                           int connections, int depth) {
  request_ = request;
  stop_ = false;
  failed_ = false;
  answered_ = 0;
  conns_.resize(static_cast<size_t>(connections));
  for (Conn& c : conns_) {
    c.fd = ConnectUnix(socket);
    if (c.fd < 0) {
      Status st = Status::FromErrno("flood: cannot connect to " + socket);
      Stop();
      return st;
    }
    for (int i = 0; i < depth; ++i) c.out.insert(c.out.end(), request.begin(), request.end());
  }
  thread_ = std::thread([this] { Run(); });
  return Status::Ok();
}

void ResolveFlood::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  for (Conn& c : conns_)
    if (c.fd >= 0) close(c.fd);
  conns_.clear();
}

bool ResolveFlood::Write(Conn* c) {
  while (!c->out.empty()) {
    ssize_t n = send(c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c->out.erase(c->out.begin(), c->out.begin() + n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
    return false;
  }
  return true;
}

// Each whole answer read puts one more request in flight.
bool ResolveFlood::Read(Conn* c) {
  uint8_t buf[8192];
  for (;;) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->in.insert(c->in.end(), buf, buf + n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    return false;  // closed or broken
  }
  size_t offset = 0;
  for (;;) {
    size_t frame_len = 0;
    std::string error;
    if (c->in.size() - offset < acm::kHeaderLength) break;
    acm::FrameStatus fs =
        acm::PeekFrame(c->in.data() + offset, c->in.size() - offset, &frame_len, &error);
    if (fs == acm::FrameStatus::kInvalid) return false;
    if (fs == acm::FrameStatus::kNeedMore) break;
    offset += frame_len;
    ++answered_;
    c->out.insert(c->out.end(), request_.begin(), request_.end());
  }
  c->in.erase(c->in.begin(), c->in.begin() + offset);
  return true;
}

void ResolveFlood::Run() {
  if (nice_ && setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice_) < 0) failed_ = true;
  std::vector<pollfd> fds(conns_.size());
  while (!stop_) {
    for (size_t i = 0; i < conns_.size(); ++i) {
      if (!Write(&conns_[i])) {
        failed_ = true;
        return;
      }
      fds[i].fd = conns_[i].fd;
      fds[i].events = static_cast<short>(POLLIN | (conns_[i].out.empty() ? 0 : POLLOUT));
      fds[i].revents = 0;
    }
    if (poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR) {
      failed_ = true;
      return;
    }
    for (size_t i = 0; i < conns_.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (!Read(&conns_[i])) {
        failed_ = true;
        return;
      }
    }
  }
}

Status VictimLatency(const std::string& socket, const std::vector<acm::EpAddr>& entries,
                     double seconds, std::vector<double>* latency_us, uint64_t* errors) {
  using Clock = std::chrono::steady_clock;
  AcmClient client;
  Status st = client.Connect(socket);
  if (!st.ok()) return st;
  auto end = Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  acm::ResolveResponse r;
  for (;;) {
    auto t0 = Clock::now();
    if (t0 >= end) break;
    st = client.Resolve(entries, &r);
    if (!st.ok()) return st;
    latency_us->push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    if (r.hdr.status != 0) ++*errors;
  }
  return Status::Ok();
}

}  // namespace bench
}  // namespace ssa
