// stream_sockaddr.cc: DataAddress <-> sockaddr (stream_sockaddr.h).
#include "common/tree/stream_sockaddr.h"

#include <netinet/in.h>

#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace tree {

socklen_t ToSockaddr(const DataAddress& a, sockaddr_storage* ss) {
  memset(ss, 0, sizeof(*ss));
  if (a.family == 6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = ToBe16(a.port);
    memcpy(&s6->sin6_addr, a.addr.data(), 16);
    return sizeof(*s6);
  }
  auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
  s4->sin_family = AF_INET;
  s4->sin_port = ToBe16(a.port);
  memcpy(&s4->sin_addr, a.addr.data(), 4);
  return sizeof(*s4);
}

DataAddress FromSockaddr(const sockaddr_storage& ss) {
  DataAddress a;
  if (ss.ss_family == AF_INET6) {
    const auto* s6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    a.family = 6;
    a.port = FromBe16(s6->sin6_port);
    memcpy(a.addr.data(), &s6->sin6_addr, 16);
  } else if (ss.ss_family == AF_INET) {
    const auto* s4 = reinterpret_cast<const sockaddr_in*>(&ss);
    a.family = 4;
    a.port = FromBe16(s4->sin_port);
    memcpy(a.addr.data(), &s4->sin_addr, 4);
  }
  return a;
}

}  // namespace tree
}  // namespace ssa
