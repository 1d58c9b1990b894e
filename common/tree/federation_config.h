// federation_config.h: the federation file (the plugin's federation_file=,
// ibssa_osm(7), doc/federation.md): which cores of other subnets this core
// exchanges address entries with, where it listens for them, and the key
// it shares with each.
//
//   # this core's end of the federation links
//   listen 192.0.2.10:7475
//   hold_s 120                  # optional, default 300
//   # peer NAME ADDR:PORT[,ADDR:PORT...] SUBNET-PREFIX KEY-FILE
//   peer west 192.0.2.20:7475 0xfec0000000000002 /etc/rdma/ibssa-fed-west.key
//   # a peer subnet with a standby SM: its master's core is the only one
//   # listening, so it is found by dialling each address in turn
//   peer east 192.0.2.30:7475,192.0.2.31:7475 0xfec0000000000003 /etc/...
//
// A key file holds one line of 64 hex digits (32 random bytes, e.g.
// `openssl rand -hex 32`), the same on both ends of a link; it must be a
// regular file owned by the user OpenSM runs as, with no permission for
// group or others (0600 or 0400). Addresses are numeric (IPv4, or [IPv6]).
// Every mistake is an error naming the file and line and what to fix: the
// plugin then refuses to load.
//
// Plain values; any thread.
#ifndef IBACM_SSA_COMMON_TREE_FEDERATION_CONFIG_H
#define IBACM_SSA_COMMON_TREE_FEDERATION_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/tree/link_auth.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

constexpr int kDefaultFederationHoldS = 300;
// Addresses on one peer line at most (SM hosts of one subnet).
constexpr size_t kMaxPeerAddresses = 8;

struct FederationPeer {
  std::string name;  // for logs and metrics
  // Its cores' federation listeners, dialled in turn (one per SM host of
  // that subnet: only its master's core listens).
  std::vector<DataAddress> addresses;
  uint64_t prefix = 0;  // its subnet prefix: it may announce only GIDs under it
  std::string key_file;
  CoreSecret key{};  // read from key_file
  int line = 0;
};

struct FederationConfig {
  std::string path;
  DataAddress listen;
  // How long a peer's entries are still served after its link broke
  // before they are withdrawn (seconds).
  int hold_s = kDefaultFederationHoldS;
  std::vector<FederationPeer> peers;
};

// Whether a subnet prefix lies in fe80::/10, every subnet's link-local
// prefix: a GID under it names no subnet in particular (OpenSM's SA takes
// such a DGID as local), so no federation peer may have one.
inline bool IsLinkLocalPrefix(uint64_t prefix) { return (prefix >> 54) == (0xfe80ULL >> 6); }

// Reads and checks `path` and every key file it names.
Status ReadFederationFile(const std::string& path, FederationConfig* out);
// The same from text (`path` for messages); key files are still read.
Status ParseFederationText(const std::string& text, const std::string& path, FederationConfig* out);
// One key file: its mode and owner checked, 64 hex digits.
Status ReadFederationKey(const std::string& path, CoreSecret* out);

}  // namespace tree
}  // namespace ssa

#endif
