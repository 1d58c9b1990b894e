// rsocket_stream.cc: the data channel over librdmacm's rsockets (RDMA
// sockets), for fabrics with HCAs: the same byte stream as TCP without the
// kernel's TCP stack. Not run on the simulated fabric (no RDMA device);
// there Listen/Connect fail with the librdmacm error, which the daemon
// reports at start-up.
//
// rsocket descriptors are not kernel fds and cannot be put in epoll, so
// each stream and listener has an eventfd that the process's rsocket
// poller (rsocket_poller.h: one thread, while any rsocket is open) makes
// readable as the rsocket becomes ready; fd() returns the eventfd. The
// poller only signals: every rrecv/rsend/raccept runs on the owner's loop
// thread.
#include <rdma/rsocket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "common/base/big_endian.h"
#include "common/tree/rsocket_poller.h"
#include "common/tree/stream.h"
#include "common/tree/stream_sockaddr.h"

namespace ssa {
namespace tree {
namespace {

// An rsocket and the eventfd its owner watches; draining the eventfd
// re-arms the poller. Owns both: the rsocket is closed only once the
// poller has let go of it. Holds the poller: the last one destroyed stops
// its thread.
class Signal {
 public:
  Signal(int rs, short events)
      : rs_(rs), efd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)), poller_(RsocketPoller::Acquire()) {
    poller_->Add(rs_, efd_, events);
  }
  ~Signal() {
    poller_->Remove(rs_);  // returns once the poller no longer polls rs_
    rclose(rs_);
    close(efd_);
  }
  int fd() const { return efd_; }
  void Rearm(short events) {
    uint64_t v;
    while (read(efd_, &v, sizeof(v)) == sizeof(v)) {
    }
    poller_->Want(rs_, events);
  }

 private:
  int rs_;
  int efd_;
  std::shared_ptr<RsocketPoller> poller_;
};

class RStream : public Stream {
 public:
  RStream(int rs, std::string peer)
      : rs_(rs), peer_(std::move(peer)), signal_(rs, POLLIN | POLLOUT) {}
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
    socklen_t len = ToSockaddr(a, &ss);
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
      bound.port = FromBe16(reinterpret_cast<sockaddr_in*>(&b)->sin_port);
    out->reset(new RListener(rs, bound));
    return Status::Ok();
  }
  Status Connect(const DataAddress& a, std::unique_ptr<Stream>* out) override {
    sockaddr_storage ss;
    socklen_t len = ToSockaddr(a, &ss);
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
