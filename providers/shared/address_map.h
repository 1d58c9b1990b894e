// address_map.h: how the sa and acmp providers turn a host name, IPv4 or
// IPv6 address into the GID they ask the SA (or the fabric) about.
//
// Two sources, looked up in this order:
//   1. the local endpoints' own addresses (ibacm_addr.cfg), added and
//      removed as the core adds and removes them; they map to the GID of
//      their port, which the caller supplies at lookup time through the
//      owner, so a GID prefix change needs no update here;
//   2. the address data file in upstream ibacm's `acm_hosts` format
//      (addr_data_file, with addr_preload = acm_hosts), read once:
//          # comment
//          <address> <gid>
//      <address> is an IPv4 or IPv6 address or a host name (at most 63
//      characters); <gid> is the IPv6-style text of a GID, e.g.
//      fe80::2:c903:0:1f12. Later lines override earlier ones.
// Host names compare case-insensitively, as the core compares them.
//
// Ownership: plain value; borrows nothing. Owners registered with AddLocal
// are opaque pointers the caller keeps valid until RemoveLocal.
// Threads: one thread at a time (the core's loop thread).
#ifndef IBACM_SSA_PROVIDERS_SHARED_ADDRESS_MAP_H
#define IBACM_SSA_PROVIDERS_SHARED_ADDRESS_MAP_H

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/addr_db.h"

namespace ssa {
namespace provider_shared {

struct Gid {
  uint8_t raw[16] = {};
};

// A name or IP address in canonical form: the ABI address type followed by
// its bytes (4 for IPv4, 16 for IPv6, the lower-cased name for names).
// Empty when `type` is not a name or IP type or the name is empty.
std::string AddressKey(uint16_t type, const uint8_t* data, size_t len);

// The key of an address database IP record (16 bytes, IPv4 mapped).
std::string IpRecordKey(const uint8_t ip[16]);

// One problem found in the address data file.
using AddressFileIssue = smdb::HostsIssue;

class AddressMap {
 public:
  // Parses acm_hosts text; good lines are added (replacing earlier ones),
  // bad ones reported in `issues` and skipped. Returns how many were added.
  size_t LoadHostsText(const std::string& text, std::vector<AddressFileIssue>* issues);
  // Reads and parses a file; fails only if it cannot be read.
  Status LoadHostsFile(const std::string& path, size_t* added,
                       std::vector<AddressFileIssue>* issues);

  // Local endpoint addresses: `owner` identifies the endpoint address.
  void AddLocal(const std::string& key, const void* owner);
  void RemoveLocal(const void* owner);

  // What `key` maps to: a local owner (set *owner) or a file GID (set *gid).
  enum class Found { kNone, kLocal, kFile };
  Found Lookup(const std::string& key, const void** owner, Gid* gid) const;

  size_t local_entries() const { return local_.size(); }

 private:
  std::unordered_map<std::string, Gid> file_;
  // Several endpoints may carry one address; the first added answers.
  std::multimap<std::string, const void*> local_;
};

}  // namespace provider_shared
}  // namespace ssa

#endif
