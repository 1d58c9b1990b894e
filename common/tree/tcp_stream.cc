// tcp_stream.cc: the TCP stream transport (stream.h).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/base/raw_fd.h"
#include "common/tree/stream.h"
#include "common/tree/stream_sockaddr.h"

namespace ssa {
namespace tree {
namespace {

class TcpStream : public Stream {
 public:
  TcpStream(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  ~TcpStream() override { RawClose(fd_); }
  int fd() const override { return fd_; }
  Status FinishConnect() override {
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
      return Status::FromErrno("getsockopt");
    if (err) return Status::Error(err, "connect to " + peer_ + ": " + strerror(err));
    return Status::Ok();
  }
  ssize_t Read(void* buf, size_t len) override {
    ssize_t n = recv(fd_, buf, len, 0);
    return n < 0 ? -errno : n;
  }
  ssize_t Write(const void* buf, size_t len) override {
    ssize_t n = send(fd_, buf, len, MSG_NOSIGNAL);
    return n < 0 ? -errno : n;
  }
  std::string peer() const override { return peer_; }

 private:
  int fd_;
  std::string peer_;
};

class TcpListener : public StreamListener {
 public:
  TcpListener(int fd, DataAddress a) : fd_(fd), address_(a) {}
  ~TcpListener() override { RawClose(fd_); }
  int fd() const override { return fd_; }
  Status Accept(std::unique_ptr<Stream>* out) override {
    sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    int fd = accept4(fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return Status::Error(errno, std::string("accept: ") + strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    out->reset(new TcpStream(fd, FromSockaddr(ss).ToString()));
    return Status::Ok();
  }
  DataAddress address() const override { return address_; }

 private:
  int fd_;
  DataAddress address_;
};

class TcpTransport : public StreamTransport {
 public:
  Status Listen(const DataAddress& a, std::unique_ptr<StreamListener>* out) override {
    sockaddr_storage ss;
    socklen_t len = ToSockaddr(a, &ss);
    int fd = NewSocket(ss, SOL_SOCKET, SO_REUSEADDR);
    if (fd < 0) return Status::FromErrno("socket");
    if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, 1024) != 0) {
      Status st = Status::FromErrno("cannot listen on " + a.ToString());
      RawClose(fd);
      return st;
    }
    sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &blen);
    out->reset(new TcpListener(fd, FromSockaddr(bound)));
    return Status::Ok();
  }
  Status Connect(const DataAddress& a, std::unique_ptr<Stream>* out) override {
    if (a.empty()) return Status::Error(EINVAL, "no address to connect to");
    sockaddr_storage ss;
    socklen_t len = ToSockaddr(a, &ss);
    int fd = NewSocket(ss, IPPROTO_TCP, TCP_NODELAY);
    if (fd < 0) return Status::FromErrno("socket");
    if (connect(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 && errno != EINPROGRESS) {
      Status st = Status::FromErrno("connect to " + a.ToString());
      RawClose(fd);
      return st;
    }
    out->reset(new TcpStream(fd, a.ToString()));
    return Status::Ok();
  }
  const char* name() const override { return "tcp"; }

 private:
  // A non-blocking, close-on-exec stream socket of ss's family with the
  // boolean `option` (at `level`) turned on; -1 (errno set) on failure.
  static int NewSocket(const sockaddr_storage& ss, int level, int option) {
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, level, option, &one, sizeof(one));
    return fd;
  }
};

}  // namespace

std::unique_ptr<StreamTransport> NewTcpTransport() { return std::make_unique<TcpTransport>(); }

Status NewStreamTransport(const std::string& name, std::unique_ptr<StreamTransport>* out) {
  if (name == "tcp")
    *out = NewTcpTransport();
  else if (name == "rsocket")
    *out = NewRsocketTransport();
  else
    return Status::Error(EINVAL, "unknown data transport '" + name + "' (tcp or rsocket)");
  return Status::Ok();
}

}  // namespace tree
}  // namespace ssa
