// loopback.cc: see loopback.h.
#include "test/support/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>

#include "common/base/big_endian.h"

namespace ssa {
namespace test {

namespace {

// A TCP socket on 127.0.0.1:`port`, or -1 when it cannot be made or `use`
// (connect, or bind and listen) fails.
template <typename Use>
int LoopbackSocket(int port, Use use) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = ToBe16(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = ToBe32(INADDR_LOOPBACK);
  if (!use(fd, reinterpret_cast<sockaddr*>(&a), static_cast<socklen_t>(sizeof(a)))) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int ConnectLoopback(int port) {
  return LoopbackSocket(
      port, [](int fd, const sockaddr* a, socklen_t len) { return connect(fd, a, len) == 0; });
}

int ListenLoopback(int port) {
  return LoopbackSocket(port, [](int fd, const sockaddr* a, socklen_t len) {
    return bind(fd, a, len) == 0 && listen(fd, 4) == 0;
  });
}

int FreeLoopbackPort() {
  int fd = ListenLoopback(0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  int port = 0;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) port = ntohs(a.sin_port);
  close(fd);
  return port;
}

}  // namespace test
}  // namespace ssa
