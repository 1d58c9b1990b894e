// addr_config.cc: parsing of ibacm_addr.cfg.
#include "core/addr_config.h"

#include <arpa/inet.h>

#include <strings.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/base/option_set.h"
#include "common/mad/umad_ports.h"

namespace ssa {

Status MakeAddress(const std::string& text, bool allow_ips, ssa_address* out) {
  std::memset(out, 0, sizeof(*out));
  out->size = sizeof(*out);
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    if (!allow_ips)
      return Status::Error(EINVAL, "IP address '" + text + "' needs support_ips_in_addr_cfg");
    out->type = SSA_ADDR_IP;
    std::memcpy(out->data, buf, 4);
    return Status::Ok();
  }
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    if (!allow_ips)
      return Status::Error(EINVAL, "IP address '" + text + "' needs support_ips_in_addr_cfg");
    out->type = SSA_ADDR_IP6;
    std::memcpy(out->data, buf, 16);
    return Status::Ok();
  }
  if (text.empty() || text.size() >= sizeof(out->data))
    return Status::Error(EINVAL, "name '" + text + "' must have 1 to 63 characters");
  // A NUL inside a name would cut it short wherever it is printed or
  // compared as a C string; blanks and control characters would garble the
  // file's columns and the log.
  for (unsigned char c : text)
    if (c <= ' ' || c == 0x7f)
      return Status::Error(EINVAL, "name contains a blank or control character");
  out->type = SSA_ADDR_NAME;
  std::memcpy(out->data, text.data(), text.size());
  return Status::Ok();
}

bool SameAddress(const ssa_address& a, const ssa_address& b) {
  if (a.type != b.type) return false;
  if (a.type == SSA_ADDR_NAME)
    return strncasecmp(reinterpret_cast<const char*>(a.data), reinterpret_cast<const char*>(b.data),
                       sizeof(a.data)) == 0;
  size_t len = a.type == SSA_ADDR_IP ? 4 : a.type == SSA_ADDR_LID ? 2 : 16;
  return std::memcmp(a.data, b.data, len) == 0;
}

std::string AddressToString(const ssa_address& addr) {
  char buf[INET6_ADDRSTRLEN];
  switch (addr.type) {
    case SSA_ADDR_NAME:
      return std::string(reinterpret_cast<const char*>(addr.data),
                         strnlen(reinterpret_cast<const char*>(addr.data), sizeof(addr.data)));
    case SSA_ADDR_IP: return inet_ntop(AF_INET, addr.data, buf, sizeof(buf)) ? buf : "?";
    case SSA_ADDR_IP6:
    case SSA_ADDR_GID: return inet_ntop(AF_INET6, addr.data, buf, sizeof(buf)) ? buf : "?";
    case SSA_ADDR_LID: return std::to_string((addr.data[0] << 8) | addr.data[1]);
    default: return "(invalid)";
  }
}

AddrConfig AddrConfig::Parse(const std::string& text, const std::string& name, bool allow_ips) {
  AddrConfig cfg;
  cfg.name = name;
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    size_t hash = raw.find('#');
    if (hash != std::string::npos) raw.resize(hash);
    std::istringstream fields(raw);
    std::string address, device, port, pkey, extra;
    if (!(fields >> address)) continue;  // blank or comment
    std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (!(fields >> device >> port >> pkey)) {
      cfg.warnings.push_back(where + "expected 'address device port pkey', line skipped");
      continue;
    }
    if (fields >> extra) {
      cfg.warnings.push_back(where + "unexpected '" + extra + "' after the pkey, line skipped");
      continue;
    }
    AddrConfigEntry e;
    e.text = address;
    e.device = device;
    e.line = line_no;
    Status st = MakeAddress(address, allow_ips, &e.address);
    int64_t value = 0;
    if (st.ok()) st = OptionSet::ParseInt(port, 1, 254, &value).WithContext("port");
    e.port = static_cast<int>(value);
    if (st.ok() && pkey != "default") {
      // P_Keys are hex with or without the 0x.
      std::string hex =
          pkey.compare(0, 2, "0x") == 0 || pkey.compare(0, 2, "0X") == 0 ? pkey : "0x" + pkey;
      st = OptionSet::ParseInt(hex, 1, 0xffff, &value).WithContext("pkey");
      e.default_pkey = false;
      e.pkey = static_cast<uint16_t>(value);
    }
    if (!st.ok()) {
      cfg.warnings.push_back(where + st.message() + ", line skipped");
      continue;
    }
    const AddrConfigEntry* first = nullptr;
    for (const auto& prev : cfg.entries)
      if (prev.address.type == e.address.type &&
          std::memcmp(prev.address.data, e.address.data, sizeof(e.address.data)) == 0) {
        first = &prev;
        break;
      }
    if (first) {
      cfg.warnings.push_back(where + "duplicate address '" + address + "' (first on line " +
                             std::to_string(first->line) + "), line skipped");
      continue;
    }
    cfg.entries.push_back(e);
  }
  return cfg;
}

std::vector<std::string> AddrConfig::CheckAgainstPorts(const std::vector<UmadPort>& ports) const {
  std::vector<std::string> warnings;
  for (const auto& e : entries) {
    std::string where = name + ":" + std::to_string(e.line) + ": address '" + e.text + "': ";
    bool device = false;
    const UmadPort* port = nullptr;
    for (const auto& p : ports) {
      if (p.ca_name != e.device) continue;
      device = true;
      if (p.port_num == e.port) port = &p;
    }
    if (!device) {
      warnings.push_back(where + "no device '" + e.device + "'");
    } else if (!port) {
      warnings.push_back(where + "device " + e.device + " has no port " + std::to_string(e.port));
    } else if (!e.default_pkey) {
      // Full and limited membership are the same partition (as endpoints
      // are matched in PortManager::AddressesFor).
      bool found = false;
      for (uint16_t pkey : port->pkeys) found = found || (pkey | 0x8000) == (e.pkey | 0x8000);
      char hex[8];
      snprintf(hex, sizeof(hex), "0x%04x", e.pkey);
      if (!found)
        warnings.push_back(where + "port " + e.device + "/" + std::to_string(e.port) +
                           " has no pkey " + hex);
    }
  }
  return warnings;
}

Status AddrConfig::Load(const std::string& path, bool allow_ips, AddrConfig* out) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot open address file " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  *out = Parse(buf.str(), path, allow_ips);
  return Status::Ok();
}

}  // namespace ssa
