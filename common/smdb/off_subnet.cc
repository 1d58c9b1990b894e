// off_subnet.cc: the SA's router choice for off-subnet DGIDs (off_subnet.h).
#include "common/smdb/off_subnet.h"

#include <cstring>

#include "common/base/big_endian.h"

namespace ssa {
namespace smdb {
namespace {

// The HopLimit the SA gives a path through a router (IB_HOPLIMIT_MAX).
constexpr uint32_t kRouterHopLimit = 0xFF;

bool IsRouterPort(const SmdbIndex& x, uint32_t port) {
  return port != SmdbIndex::kNone && x.node_of(x.port(port)).type == kNodeRouter;
}

}  // namespace

uint64_t GidPrefix(const uint8_t gid[16]) { return GetBe64(gid); }

void RouteThroughRouter(const uint8_t dgid[16], ibv_path_record* rec) {
  std::memcpy(rec->dgid.raw, dgid, 16);
  rec->flowlabel_hoplimit = ToBe32(kRouterHopLimit);
}
uint64_t GidGuid(const uint8_t gid[16]) { return GetBe64(gid + 8); }

uint64_t FirstRouterPort(const SmdbIndex& x) {
  // OpenSM keys its router table by the network-order GUID read as a host
  // integer of the SM's host (kSubnetSmBigEndian).
  const uint32_t flags = x.subnet().flags;
  uint64_t best = 0, best_key = 0;
  for (const SmdbIndex::Port& p : x.ports()) {
    if (p.port_guid == 0 || x.node_of(p).type != kNodeRouter) continue;
    uint64_t key = SmMapOrder64(p.port_guid, flags);
    if (best == 0 || key < best_key) {
      best = p.port_guid;
      best_key = key;
    }
  }
  return best;
}

uint64_t RouterPortFor(const SmdbIndex& x, uint64_t prefix) {
  for (const SmdbPrefixRoute& r : x.prefix_routes()) {
    if (r.prefix != 0 && r.prefix != prefix) continue;
    // The first route that matches decides, even when it names no router.
    if (r.router_port_guid == 0) return FirstRouterPort(x);
    return IsRouterPort(x, x.PortByGuid(r.router_port_guid)) ? r.router_port_guid : 0;
  }
  return 0;
}

}  // namespace smdb
}  // namespace ssa
