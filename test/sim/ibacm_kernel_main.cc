// ibacm_kernel_main.cc: ibacm with a stand-in for the kernel's RDMA_NL_LS
// socket, for the simulated fabric's tests. The simulator has no kernel
// SA client, so the daemon's NETLINK_RDMA socket (core/netlink seam) is a
// unix datagram socket bound at --kernel-socket PATH; what the daemon
// sends goes to PATH.kernel, where the test, playing the kernel, sends its
// RESOLVE requests from and reads the answers. Every other socket, and
// everything else the daemon does, is ibacm's own (core/daemon.h).
//
// Test program only (never installed). Its command line is ibacm's plus
// --kernel-socket PATH.
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <linux/netlink.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/ibacm_cli.h"

namespace {

// A NetlinkSocket over a bound unix datagram socket; its peer (the test)
// is trusted as the kernel is.
class UnixLsSocket : public ssa::NetlinkSocket {
 public:
  UnixLsSocket(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  ~UnixLsSocket() override { close(fd_); }
  int fd() const override { return fd_; }
  ssize_t Receive(uint8_t* buf, size_t len, bool* from_kernel) override {
    *from_kernel = true;
    ssize_t n = recv(fd_, buf, len, MSG_TRUNC);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
    return static_cast<size_t>(n) > len ? -EMSGSIZE : n;
  }
  ssa::Status Send(const uint8_t* buf, size_t len) override {
    sockaddr_un to = Address(peer_);
    if (sendto(fd_, buf, len, 0, reinterpret_cast<const sockaddr*>(&to), sizeof(to)) < 0)
      return ssa::Status::FromErrno("send to " + peer_);
    return ssa::Status::Ok();
  }
  static sockaddr_un Address(const std::string& path) {
    sockaddr_un a = {};
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    return a;
  }

 private:
  int fd_;
  std::string peer_;
};

ssa::Status OpenUnixLs(const std::string& path, std::unique_ptr<ssa::NetlinkSocket>* out) {
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return ssa::Status::FromErrno("unix socket");
  unlink(path.c_str());
  sockaddr_un a = UnixLsSocket::Address(path);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) < 0) {
    ssa::Status st = ssa::Status::FromErrno("bind " + path);
    close(fd);
    return st;
  }
  out->reset(new UnixLsSocket(fd, path + ".kernel"));
  return ssa::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  // --kernel-socket PATH is ours; the rest is ibacm's command line.
  std::string kernel_socket;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--kernel-socket" && i + 1 < argc)
      kernel_socket = argv[++i];
    else
      args.push_back(argv[i]);
  }
  if (kernel_socket.empty()) {
    fprintf(stderr, "ibacm_kernel: --kernel-socket PATH is required\n");
    return 2;
  }
  args.push_back(nullptr);
  return ssa::IbacmMain(
      static_cast<int>(args.size()) - 1, args.data(),
      [kernel_socket](int protocol, uint32_t groups, std::unique_ptr<ssa::NetlinkSocket>* out) {
        if (protocol == NETLINK_RDMA) return OpenUnixLs(kernel_socket, out);
        return ssa::OpenNetlinkSocket(protocol, groups, out);
      });
}
