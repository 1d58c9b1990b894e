// addr_config.h: upstream's ibacm_addr.cfg, the local addresses of each
// endpoint. One "address device port pkey" line per address, '#' comments;
// address is a host name (up to 63 characters) or an IPv4/IPv6 address,
// pkey is hex or "default" (the port's first P_Key).
//
// Bad lines are skipped with a message naming file and line; the rest of
// the file still counts. So is an address given a second time: an address
// names one endpoint, and which line would win is anybody's guess. Whether
// the device, port and pkey exist is only known once the ports are found:
// PortManager checks that (CheckAgainstPorts). A plain value, read on the
// main thread.
#ifndef IBACM_SSA_CORE_ADDR_CONFIG_H
#define IBACM_SSA_CORE_ADDR_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/status.h"

namespace ssa {

struct AddrConfigEntry {
  std::string text;       // as written, e.g. "node1" or "10.0.0.1"
  ssa_address address{};  // typed, as providers receive it
  std::string device;     // CA name
  int port = 0;
  bool default_pkey = true;
  uint16_t pkey = 0;  // when !default_pkey
  int line = 0;
};

struct UmadPort;

struct AddrConfig {
  std::string name;  // the file, for messages
  std::vector<AddrConfigEntry> entries;
  std::vector<std::string> warnings;

  // `allow_ips`: upstream's support_ips_in_addr_cfg; IP lines are otherwise
  // skipped with a warning.
  static Status Load(const std::string& path, bool allow_ips, AddrConfig* out);
  static AddrConfig Parse(const std::string& text, const std::string& name, bool allow_ips);

  // One "file:line: ..." message per entry naming a device, port or pkey
  // that `ports` lack. Such entries are kept: a pkey may be added to the
  // port later.
  std::vector<std::string> CheckAgainstPorts(const std::vector<UmadPort>& ports) const;
};

// Builds a typed address from text: an IPv4 or IPv6 literal becomes IP/IP6,
// anything else a NAME. Names longer than 63 characters are refused.
Status MakeAddress(const std::string& text, bool allow_ips, ssa_address* out);
// Whether two addresses name the same thing (names case-insensitively,
// the other types by their bytes).
bool SameAddress(const ssa_address& a, const ssa_address& b);
// The printable form of an address (what EP_QUERY lists).
std::string AddressToString(const ssa_address& addr);

}  // namespace ssa

#endif
