// ibacm_kernel_main.cc: ibacm with a stand-in for the kernel's RDMA_NL_LS
// socket, for the simulated fabric's tests. The simulator has no kernel
// SA client, so the daemon's NETLINK_RDMA socket (core/netlink seam) is a
// unix datagram socket bound at --kernel-socket PATH; what the daemon
// sends goes to PATH.kernel, where the test, playing the kernel, sends its
// RESOLVE requests from and reads the answers. Every other socket, and
// everything else the daemon does, is ibacm's own (core/daemon.h).
//
// Test program only (never installed). Options: -O, -A, -R, -L and
// --provider-dir as ibacm's, always in the foreground.
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "common/base/daemon_shell.h"
#include "core/daemon.h"

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
  ssa::Daemon::Settings settings;
  std::string kernel_socket;
  enum { kProviderDir = 256, kKernelSocket };
  static const struct option long_opts[] = {
      {"provider-dir", required_argument, nullptr, kProviderDir},
      {"kernel-socket", required_argument, nullptr, kKernelSocket},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "PA:O:R:L:", long_opts, nullptr)) != -1) {
    switch (c) {
      case 'P': break;
      case 'A':
        settings.addr_file = optarg;
        settings.addr_file_given = true;
        break;
      case 'O':
        settings.opts_file = optarg;
        settings.opts_file_given = true;
        break;
      case 'R': settings.run_dir = optarg; break;
      case 'L': settings.log_target = optarg; break;
      case kProviderDir: settings.provider_dir = optarg; break;
      case kKernelSocket: kernel_socket = optarg; break;
      default: return 2;
    }
  }
  if (kernel_socket.empty()) {
    fprintf(stderr, "ibacm_kernel: --kernel-socket PATH is required\n");
    return 2;
  }
  settings.netlink_open = [kernel_socket](int protocol, uint32_t groups,
                                          std::unique_ptr<ssa::NetlinkSocket>* out) {
    if (protocol == NETLINK_RDMA) return OpenUnixLs(kernel_socket, out);
    return ssa::OpenNetlinkSocket(protocol, groups, out);
  };
  ssa::DaemonShell shell("ibacm");
  if (!shell.Detach(true)) return 1;
  ssa::Daemon daemon(settings);
  ssa::Status st = daemon.Configure();
  if (!st.ok()) return shell.Fail(daemon.log(), "configure", st);
  if (!shell.Lock(daemon.options().run_dir, daemon.options().lock_file, daemon.log())) return 1;
  st = daemon.Start();
  if (!st.ok()) return shell.Fail(daemon.log(), "start", st);
  return shell.Run(
      daemon.loop(), daemon.log(), false, [&] { return daemon.Run(); },
      [&] { daemon.RequestStop(); }, [&] { daemon.Shutdown(); });
}
