// address_file.cc: the -A file's text (see address_file.h).
#include "util/ib_acme/address_file.h"

#include <cstdint>
#include <cstdio>

namespace ssa {
namespace acme {

namespace {

const char kAddressFileHeader[] =
    "# ibacm_addr.cfg: the addresses of this host's ibacm endpoints.\n"
    "#\n"
    "# Written by \"ib_acme -A\"; edit as needed. Each line is\n"
    "#   address device port pkey\n"
    "# address: a host name (up to 63 characters). IP addresses of IPoIB\n"
    "#          interfaces need no line here: the daemon finds them at start-up\n"
    "#          and follows them as they are added and deleted (addr_watch).\n"
    "# device:  the CA name (ibstat -l)\n"
    "# port:    the port number, from 1\n"
    "# pkey:    the P_Key in hex, or 'default' for the port's first P_Key\n"
    "#\n"
    "# Examples:\n"
    "# node31      mlx5_0 1 default\n"
    "# node31-1    mlx5_0 1 0x8001\n"
    "# node31-2    mlx5_0 2 default\n";

std::string PkeyHex(uint16_t pkey) {
  char buf[8];
  snprintf(buf, sizeof(buf), "%04x", pkey);
  return buf;
}

}  // namespace

std::string ShortHostName(const std::string& host_name) {
  size_t start = host_name.find_first_not_of('.');
  if (start == std::string::npos) return "";
  size_t end = host_name.find('.', start);
  return host_name.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::vector<std::string> AddressLines(const std::string& host, const std::vector<UmadPort>& ports) {
  std::vector<std::string> lines;
  bool named_active = false;
  int index = 1;
  for (const UmadPort& p : ports) {
    if (p.port_num < 1) continue;
    std::string where = " " + p.ca_name + " " + std::to_string(p.port_num) + " default";
    if (!named_active && p.IsActive()) {
      lines.push_back(host + where);
      named_active = true;
    }
    lines.push_back(host + "-" + std::to_string(index++) + where);
  }
  return lines;
}

std::string AddressFileText(const std::string& host, const std::vector<UmadPort>& ports) {
  std::string text = kAddressFileHeader;
  for (const std::string& line : AddressLines(host, ports)) text += line + "\n";
  // Endpoints exist for every P_Key; show how to name the others.
  int index = 1;
  for (const UmadPort& p : ports) {
    if (p.port_num < 1) continue;
    for (size_t i = 1; i < p.pkeys.size(); ++i)
      text += "# " + host + "-" + std::to_string(index) + "-" + PkeyHex(p.pkeys[i]) + " " +
              p.ca_name + " " + std::to_string(p.port_num) + " 0x" + PkeyHex(p.pkeys[i]) + "\n";
    ++index;
  }
  return text;
}

}  // namespace acme
}  // namespace ssa
