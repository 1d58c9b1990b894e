// acme_address.cc: address classification and parsing (see acme_address.h).
#include "util/ib_acme/acme_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

namespace ssa {
namespace acme {

ClassifiedAddress ClassifyAddress(const std::string& arg, AddrFormat format) {
  ClassifiedAddress out;
  out.text = arg;
  if (format != AddrFormat::kUnspecified) {
    out.format = format;
    return out;
  }
  uint8_t raw[16];
  if (inet_pton(AF_INET, arg.c_str(), raw) > 0 || inet_pton(AF_INET6, arg.c_str(), raw) > 0) {
    out.format = AddrFormat::kIp;
    return out;
  }
  struct addrinfo hints = {};
  hints.ai_protocol = IPPROTO_TCP;
  struct addrinfo* res = nullptr;
  if (getaddrinfo(arg.c_str(), nullptr, &hints, &res) != 0) {
    out.format = AddrFormat::kLid;
    return out;
  }
  char text[INET6_ADDRSTRLEN];
  const char* ok = nullptr;
  if (res->ai_family == AF_INET)
    ok = inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr, text,
                   sizeof(text));
  else
    ok = inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(res->ai_addr)->sin6_addr, text,
                   sizeof(text));
  freeaddrinfo(res);
  if (ok) {
    out.format = AddrFormat::kIp;
    out.text = text;
  } else {
    out.format = AddrFormat::kName;
  }
  return out;
}

bool ParseIpAddress(const std::string& text, acm::EpAddr* out) {
  in_addr v4;
  if (inet_pton(AF_INET, text.c_str(), &v4) > 0) {
    out->SetIpv4(v4);
    return true;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, text.c_str(), &v6) > 0) {
    out->SetIpv6(v6);
    return true;
  }
  return false;
}

bool ParseGid(const std::string& text, ibv_gid* gid) {
  return inet_pton(AF_INET6, text.c_str(), gid->raw) > 0;
}

}  // namespace acme
}  // namespace ssa
