// route_key.cc: RouteKey's constructors (see route_key.h).
#include "providers/shared/route_key.h"

namespace ssa {
namespace provider_shared {

RouteKey RouteKey::Gid(uint64_t endpoint, const uint8_t gid[16]) {
  RouteKey k;
  k.endpoint = endpoint;
  k.kind = kGid;
  memcpy(k.dest, gid, sizeof(k.dest));
  return k;
}

RouteKey RouteKey::Lid(uint64_t endpoint, uint16_t lid) {
  RouteKey k;
  k.endpoint = endpoint;
  k.kind = kLid;
  k.dest[0] = static_cast<uint8_t>(lid);
  k.dest[1] = static_cast<uint8_t>(lid >> 8);
  return k;
}

}  // namespace provider_shared
}  // namespace ssa
