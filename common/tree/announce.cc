// announce.cc: see announce.h.
#include "common/tree/announce.h"

#include <netinet/in.h>

#include <cstring>
#include <vector>

#include "common/base/ipoib_interfaces.h"

namespace ssa {
namespace tree {

Status AnnounceAddress(const DataAddress& bound, const std::string& announce, uint64_t port_guid,
                       Logger* log, DataAddress* out) {
  DataAddress a = bound;
  if (!announce.empty()) {
    Status st = DataAddress::Parse(announce + ":0", &a);
    if (!st.ok() && announce.find(':') != std::string::npos)
      st = DataAddress::Parse("[" + announce + "]:0", &a);
    if (!st.ok()) return st.WithContext("announce");
    a.port = bound.port;
    *out = a;
    return Status::Ok();
  }
  bool wildcard = bound.addr == std::array<uint8_t, 16>{};
  if (!wildcard) {
    *out = bound;
    return Status::Ok();
  }
  std::vector<IpoibIp> ips;
  if (ListIpoibIps(&ips).ok())
    for (const IpoibIp& ip : ips)
      if (ip.port_guid == port_guid && ip.family == AF_INET) {
        a.family = 4;
        a.addr = {};
        memcpy(a.addr.data(), ip.addr.data(), 4);
        *out = a;
        return Status::Ok();
      }
  a.family = 4;
  a.addr = {127, 0, 0, 1};
  log->Log(LogLevel::kWarn,
           "no IPoIB address on port 0x%016llx: announcing %s (only members on this machine can "
           "connect; "
           "set announce or listen to an address the fabric reaches)",
           static_cast<unsigned long long>(port_guid), a.ToString().c_str());
  *out = a;
  return Status::Ok();
}

}  // namespace tree
}  // namespace ssa
