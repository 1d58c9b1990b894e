// netlink_socket.cc: the real netlink socket (see netlink_socket.h).
#include "core/netlink/netlink_socket.h"

#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace ssa {

namespace {

class RealNetlinkSocket : public NetlinkSocket {
 public:
  explicit RealNetlinkSocket(int fd) : fd_(fd) {}
  ~RealNetlinkSocket() override { close(fd_); }
  RealNetlinkSocket(const RealNetlinkSocket&) = delete;
  RealNetlinkSocket& operator=(const RealNetlinkSocket&) = delete;

  int fd() const override { return fd_; }

  ssize_t Receive(uint8_t* buf, size_t len, bool* from_kernel) override {
    sockaddr_nl from = {};
    socklen_t from_len = sizeof(from);
    // MSG_TRUNC makes recvfrom return the datagram's real length, so a
    // message larger than the buffer is seen as such and not parsed cut.
    ssize_t n = recvfrom(fd_, buf, len, MSG_TRUNC, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -errno;
    *from_kernel = from_len >= sizeof(from) && from.nl_family == AF_NETLINK && from.nl_pid == 0;
    if (static_cast<size_t>(n) > len) return -EMSGSIZE;
    return n;
  }

  Status Send(const uint8_t* buf, size_t len) override {
    sockaddr_nl to = {};
    to.nl_family = AF_NETLINK;  // pid 0: the kernel
    ssize_t n = sendto(fd_, buf, len, 0, reinterpret_cast<const sockaddr*>(&to), sizeof(to));
    if (n < 0) return Status::FromErrno("netlink send");
    if (static_cast<size_t>(n) != len) return Status::Error(EIO, "netlink send: short write");
    return Status::Ok();
  }

 private:
  int fd_;
};

}  // namespace

Status OpenNetlinkSocket(int protocol, uint32_t groups, std::unique_ptr<NetlinkSocket>* out) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol);
  if (fd < 0)
    return Status::FromErrno("netlink socket (protocol " + std::to_string(protocol) + ")");
  sockaddr_nl addr = {};
  addr.nl_family = AF_NETLINK;
  addr.nl_groups = groups;  // port id 0: the kernel assigns one
  if (bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) < 0) {
    int err = errno;
    char what[64];
    snprintf(what, sizeof(what), "netlink bind (protocol %d, groups 0x%x)", protocol, groups);
    close(fd);
    return Status::Error(err, what);
  }
  out->reset(new RealNetlinkSocket(fd));
  return Status::Ok();
}

NetlinkDrainResult DrainNetlinkSocket(NetlinkSocket* socket, size_t buffer_size, int burst,
                                      const std::function<void(const uint8_t*, size_t)>& handle) {
  NetlinkDrainResult r;
  std::vector<uint8_t> buf(buffer_size);
  for (int i = 0; i < burst; ++i) {
    bool from_kernel = false;
    ssize_t n = socket->Receive(buf.data(), buf.size(), &from_kernel);
    if (n == 0) break;
    if (n == -ENOBUFS) {
      ++r.overflows;
      continue;
    }
    if (n < 0) {
      ++r.errors;
      r.last_error = static_cast<int>(-n);
      if (n != -EMSGSIZE) break;
      continue;
    }
    // Only the kernel may speak on these sockets: another process could
    // otherwise make the daemon answer requests the kernel never made, or
    // invent addresses.
    if (!from_kernel) {
      ++r.foreign;
      continue;
    }
    handle(buf.data(), static_cast<size_t>(n));
  }
  return r;
}

}  // namespace ssa
