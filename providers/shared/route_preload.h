// route_preload.h: reads OpenSM's dump of path records ("opensm_full_v1",
// the file upstream ibacm calls route_data_file), for route_preload.
//
// OpenSM writes it (opensm-path-records.dump) with one block per port:
//   Channel Adapter 0x0002c90300001231, base LID 5, "host mlx5_0", port 1
//   # LID  : SL : MTU : RATE
//   0x0001 : 0  : 4   : 3
//   0x0007 : UNREACHABLE
//   <blank line>
// The header's first word is "Channel Adapter", "Switch" or "Router"; the
// GUID is the port GUID; MTU and RATE are IBA codes (4 = 2048 bytes,
// 3 = 10 Gb/s). Lines starting with '#' are comments.
//
// As upstream ibacm does, a port uses the block whose GUID and base LID are
// its own; the destination GIDs come from the headers of all blocks (LID ->
// port GUID, with the source's subnet prefix).
//
// Pure functions on caller-owned data; any thread.
#ifndef IBACM_SSA_PROVIDERS_SHARED_ROUTE_PRELOAD_H
#define IBACM_SSA_PROVIDERS_SHARED_ROUTE_PRELOAD_H

#include <infiniband/sa.h>

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace provider_shared {

struct PreloadedRoute {
  uint16_t dlid = 0;
  uint64_t dest_guid = 0;  // 0: no block header gave this LID's GUID
  uint8_t sl = 0;
  uint8_t mtu = 0;   // IBA code
  uint8_t rate = 0;  // IBA code
};

struct PreloadIssue {
  int line = 0;
  std::string message;
};

struct PreloadResult {
  bool found_source = false;           // a block for (guid, lid) exists
  std::vector<PreloadedRoute> routes;  // that block's reachable destinations
  size_t unreachable = 0;              // its UNREACHABLE lines
  std::vector<PreloadIssue> issues;    // malformed lines (skipped)
};

// Reads a whole dump (one pass) and keeps the block of port `port_guid`
// with base LID `lid` (host order).
void ParseOpensmFullV1(std::istream& in, uint64_t port_guid, uint16_t lid, PreloadResult* out);
Status ParseOpensmFullV1File(const std::string& path, uint64_t port_guid, uint16_t lid,
                             PreloadResult* out);

// The path record a preloaded route stands for, laid out as the SA answers
// it: selectors "exactly", reversible, the packet lifetime OpenSM uses with
// its default subnet_timeout (18) and 0 for the port itself. All arguments
// host order except the GIDs (wire bytes).
ibv_path_record PreloadedPathRecord(const PreloadedRoute& route, const uint8_t sgid[16],
                                    const uint8_t dgid[16], uint16_t slid, uint16_t pkey);

}  // namespace provider_shared
}  // namespace ssa

#endif
