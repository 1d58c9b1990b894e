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

int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = ToBe16(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = ToBe32(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int ListenLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = ToBe16(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = ToBe32(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd, 4) != 0) {
    close(fd);
    return -1;
  }
  return fd;
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
