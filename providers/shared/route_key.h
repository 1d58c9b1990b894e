// route_key.h: a route's destination as the providers key it: (endpoint,
// GID) or (endpoint, LID). The sa provider's RouteCache is indexed by it;
// path_query.h builds a route query from it, which is all acmp uses it for
// (so acmp does not see route_cache.h or Boost.Intrusive).
//
// Plain value; any thread.
#ifndef IBACM_SSA_PROVIDERS_SHARED_ROUTE_KEY_H
#define IBACM_SSA_PROVIDERS_SHARED_ROUTE_KEY_H

#include <cstdint>
#include <cstring>

namespace ssa {
namespace provider_shared {

// A destination: a GID, or a LID. Names and IP addresses are mapped to
// GIDs before they become keys.
struct RouteKey {
  enum Kind : uint8_t { kGid = 1, kLid = 2 };
  uint64_t endpoint = 0;  // the provider's endpoint id (never reused)
  Kind kind = kGid;
  uint8_t dest[16] = {};  // GID bytes; for a LID, the LID in host order in dest[0..1]

  static RouteKey Gid(uint64_t endpoint, const uint8_t gid[16]);
  static RouteKey Lid(uint64_t endpoint, uint16_t lid);
  uint16_t lid() const { return static_cast<uint16_t>(dest[0] | dest[1] << 8); }

  friend bool operator==(const RouteKey& a, const RouteKey& b) {
    return a.endpoint == b.endpoint && a.kind == b.kind && !memcmp(a.dest, b.dest, sizeof(a.dest));
  }
};

}  // namespace provider_shared
}  // namespace ssa

#endif
