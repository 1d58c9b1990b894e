// rsocket_stream.cc: the data channel over librdmacm's rsockets (RDMA
// sockets), for fabrics with HCAs: the same byte stream as TCP without the
// kernel's TCP stack. Not run on the simulated fabric (no RDMA device);
// there Listen/Connect fail with the librdmacm error, which the daemon
// reports at start-up.
//
// rsocket descriptors are not kernel fds and cannot be put in epoll, so
// each stream and listener has an eventfd that a shared poller thread
// (rpoll over every registered rsocket) makes readable or writable as the
// rsocket becomes so; fd() returns the eventfd. The poller only signals:
// every rrecv/rsend/raccept runs on the owner's loop thread.
#include <rdma/rsocket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "common/tree/stream.h"

namespace ssa {
namespace tree {
namespace {

// One thread rpoll()ing every open rsocket, turning readiness into
// eventfd counts. `wants` says which events each rsocket waits for.
class Poller {
 public:
  static Poller& Get() {
    static Poller* p = new Poller;  // lives as long as the process
    return *p;
  }
  void Add(int rs, int efd, short events) {
    std::lock_guard<std::mutex> l(mu_);
    entries_[rs] = {efd, events};
    Start();
  }
  void Want(int rs, short events) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = entries_.find(rs);
    if (it != entries_.end()) it->second.events = events;
  }
  void Remove(int rs) {
    std::lock_guard<std::mutex> l(mu_);
    entries_.erase(rs);
  }

 private:
  struct Entry {
    int efd;
    short events;
  };
  void Start() {
    if (running_) return;
    running_ = true;
    std::thread([this] { Run(); }).detach();
  }
  void Run() {
    for (;;) {
      std::vector<pollfd> fds;
      std::vector<int> efds;
      {
        std::lock_guard<std::mutex> l(mu_);
        for (auto& kv : entries_) {
          fds.push_back({kv.first, kv.second.events, 0});
          efds.push_back(kv.second.efd);
        }
      }
      if (fds.empty()) {
        usleep(10000);
        continue;
      }
      int n = rpoll(fds.data(), fds.size(), 10);
      if (n <= 0) continue;
      for (size_t i = 0; i < fds.size(); ++i)
        if (fds[i].revents) {
          uint64_t one = 1;
          if (write(efds[i], &one, sizeof(one)) < 0) {
            // The eventfd is already signalled (counter full): nothing lost.
          }
          // Level-triggered: stop asking until the owner wants more.
          Want(fds[i].fd, 0);
        }
    }
  }
  std::mutex mu_;
  std::map<int, Entry> entries_;
  std::atomic<bool> running_{false};
};

socklen_t Sockaddr(const DataAddress& a, sockaddr_storage* ss) {
  memset(ss, 0, sizeof(*ss));
  if (a.family == 6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(a.port);
    memcpy(&s6->sin6_addr, a.addr.data(), 16);
    return sizeof(*s6);
  }
  auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
  s4->sin_family = AF_INET;
  s4->sin_port = htons(a.port);
  memcpy(&s4->sin_addr, a.addr.data(), 4);
  return sizeof(*s4);
}

// The eventfd the owner watches; draining it re-arms the poller.
class Signal {
 public:
  Signal(int rs, short events) : rs_(rs), efd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    Poller::Get().Add(rs_, efd_, events);
  }
  ~Signal() {
    Poller::Get().Remove(rs_);
    close(efd_);
  }
  int fd() const { return efd_; }
  void Rearm(short events) {
    uint64_t v;
    while (read(efd_, &v, sizeof(v)) == sizeof(v)) {
    }
    Poller::Get().Want(rs_, events);
  }

 private:
  int rs_;
  int efd_;
};

class RStream : public Stream {
 public:
  RStream(int rs, std::string peer)
      : rs_(rs), peer_(std::move(peer)), signal_(rs, POLLIN | POLLOUT) {}
  ~RStream() override { rclose(rs_); }
  int fd() const override { return signal_.fd(); }
  Status FinishConnect() override {
    int err = 0;
    socklen_t len = sizeof(err);
    rgetsockopt(rs_, SOL_SOCKET, SO_ERROR, &err, &len);
    signal_.Rearm(POLLIN);
    return err ? Status::Error(err, "rsocket connect to " + peer_ + ": " + strerror(err))
               : Status::Ok();
  }
  ssize_t Read(void* buf, size_t len) override {
    ssize_t n = rrecv(rs_, buf, len, 0);
    if (n < 0 && errno == EAGAIN) signal_.Rearm(POLLIN | (blocked_write_ ? POLLOUT : 0));
    return n < 0 ? -errno : n;
  }
  ssize_t Write(const void* buf, size_t len) override {
    ssize_t n = rsend(rs_, buf, len, 0);
    blocked_write_ = n < 0 && errno == EAGAIN;
    if (blocked_write_) signal_.Rearm(POLLIN | POLLOUT);
    return n < 0 ? -errno : n;
  }
  std::string peer() const override { return peer_; }

 private:
  int rs_;
  std::string peer_;
  Signal signal_;
  bool blocked_write_ = false;
};

class RListener : public StreamListener {
 public:
  RListener(int rs, DataAddress a) : rs_(rs), address_(a), signal_(rs, POLLIN) {}
  ~RListener() override { rclose(rs_); }
  int fd() const override { return signal_.fd(); }
  Status Accept(std::unique_ptr<Stream>* out) override {
    int rs = raccept(rs_, nullptr, nullptr);
    if (rs < 0) {
      int err = errno;
      signal_.Rearm(POLLIN);
      return Status::Error(err, std::string("raccept: ") + strerror(err));
    }
    int flags = rfcntl(rs, F_GETFL, 0);
    rfcntl(rs, F_SETFL, flags | O_NONBLOCK);
    out->reset(new RStream(rs, "rsocket peer"));
    return Status::Ok();
  }
  DataAddress address() const override { return address_; }

 private:
  int rs_;
  DataAddress address_;
  Signal signal_;
};

class RsocketTransport : public StreamTransport {
 public:
  Status Listen(const DataAddress& a, std::unique_ptr<StreamListener>* out) override {
    sockaddr_storage ss;
    socklen_t len = Sockaddr(a, &ss);
    int rs = rsocket(ss.ss_family, SOCK_STREAM, 0);
    if (rs < 0) return Status::FromErrno("rsocket (is there an RDMA device?)");
    int one = 1;
    rsetsockopt(rs, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (rbind(rs, reinterpret_cast<sockaddr*>(&ss), len) != 0 || rlisten(rs, 1024) != 0) {
      Status st = Status::FromErrno("rsocket listen on " + a.ToString());
      rclose(rs);
      return st;
    }
    rfcntl(rs, F_SETFL, rfcntl(rs, F_GETFL, 0) | O_NONBLOCK);
    DataAddress bound = a;
    sockaddr_storage b;
    socklen_t blen = sizeof(b);
    if (rgetsockname(rs, reinterpret_cast<sockaddr*>(&b), &blen) == 0)
      bound.port = ntohs(reinterpret_cast<sockaddr_in*>(&b)->sin_port);
    out->reset(new RListener(rs, bound));
    return Status::Ok();
  }
  Status Connect(const DataAddress& a, std::unique_ptr<Stream>* out) override {
    sockaddr_storage ss;
    socklen_t len = Sockaddr(a, &ss);
    int rs = rsocket(ss.ss_family, SOCK_STREAM, 0);
    if (rs < 0) return Status::FromErrno("rsocket (is there an RDMA device?)");
    rfcntl(rs, F_SETFL, rfcntl(rs, F_GETFL, 0) | O_NONBLOCK);
    if (rconnect(rs, reinterpret_cast<sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
      Status st = Status::FromErrno("rsocket connect to " + a.ToString());
      rclose(rs);
      return st;
    }
    out->reset(new RStream(rs, a.ToString()));
    return Status::Ok();
  }
  const char* name() const override { return "rsocket"; }
};

}  // namespace

std::unique_ptr<StreamTransport> NewRsocketTransport() {
  return std::make_unique<RsocketTransport>();
}

}  // namespace tree
}  // namespace ssa
