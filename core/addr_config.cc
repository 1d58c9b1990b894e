// addr_config.cc: parsing of ibacm_addr.cfg.
#include "core/addr_config.h"

#include <arpa/inet.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "common/base/option_set.h"

namespace ssa {

Status MakeAddress(const std::string& text, bool allow_ips, ssa_address* out) {
  std::memset(out, 0, sizeof(*out));
  out->size = sizeof(*out);
  unsigned char buf[16];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    if (!allow_ips) return Status::Error(EINVAL, "IP address '" + text + "' needs support_ips_in_addr_cfg");
    out->type = SSA_ADDR_IP;
    std::memcpy(out->data, buf, 4);
    return Status::Ok();
  }
  if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    if (!allow_ips) return Status::Error(EINVAL, "IP address '" + text + "' needs support_ips_in_addr_cfg");
    out->type = SSA_ADDR_IP6;
    std::memcpy(out->data, buf, 16);
    return Status::Ok();
  }
  if (text.empty() || text.size() >= sizeof(out->data))
    return Status::Error(EINVAL, "name '" + text + "' must have 1 to 63 characters");
  out->type = SSA_ADDR_NAME;
  std::memcpy(out->data, text.data(), text.size());
  return Status::Ok();
}

std::string AddressToString(const ssa_address& addr) {
  char buf[INET6_ADDRSTRLEN];
  switch (addr.type) {
    case SSA_ADDR_NAME:
      return std::string(reinterpret_cast<const char*>(addr.data),
                         strnlen(reinterpret_cast<const char*>(addr.data), sizeof(addr.data)));
    case SSA_ADDR_IP:
      return inet_ntop(AF_INET, addr.data, buf, sizeof(buf)) ? buf : "?";
    case SSA_ADDR_IP6:
    case SSA_ADDR_GID:
      return inet_ntop(AF_INET6, addr.data, buf, sizeof(buf)) ? buf : "?";
    case SSA_ADDR_LID:
      return std::to_string((addr.data[0] << 8) | addr.data[1]);
    default:
      return "(invalid)";
  }
}

AddrConfig AddrConfig::Parse(const std::string& text, const std::string& name, bool allow_ips) {
  AddrConfig cfg;
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
      std::string hex = pkey.compare(0, 2, "0x") == 0 || pkey.compare(0, 2, "0X") == 0 ? pkey : "0x" + pkey;
      st = OptionSet::ParseInt(hex, 1, 0xffff, &value).WithContext("pkey");
      e.default_pkey = false;
      e.pkey = static_cast<uint16_t>(value);
    }
    if (!st.ok()) {
      cfg.warnings.push_back(where + st.message() + ", line skipped");
      continue;
    }
    cfg.entries.push_back(e);
  }
  return cfg;
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
