// addr_db.cc: AddrDb's members (the bodies shared with Smdb and Prdb are
// smdb_codec.h's templates) and the hosts-file parser.
#include "common/smdb/addr_db.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <sstream>

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_stream.h"

namespace ssa {
namespace smdb {

SSA_SMDB_DB_MEMBERS(AddrDb)

std::array<uint8_t, 16> IpKey(const uint8_t* ip, size_t len) {
  std::array<uint8_t, 16> k{};
  if (len == 4) {
    k[10] = k[11] = 0xff;
    memcpy(k.data() + 12, ip, 4);
  } else if (len >= 16) {
    memcpy(k.data(), ip, 16);
  }
  return k;
}

bool NameKey(const std::string& name, std::array<char, 64>* out) {
  size_t n = strnlen(name.c_str(), name.size());
  if (n == 0 || n > kMaxHostNameLength) return false;
  *out = {};
  for (size_t i = 0; i < n; ++i)
    (*out)[i] = static_cast<char>(tolower(static_cast<unsigned char>(name[i])));
  return true;
}

bool AddrDb::FindName(const std::string& name, uint8_t gid[16]) const {
  AddrName key;
  if (!NameKey(name, &key.name)) return false;
  auto it = std::lower_bound(names.records.begin(), names.records.end(), key,
                             [](const AddrName& a, const AddrName& b) {
                               // As SortRecords orders keys: bytes, unsigned.
                               return memcmp(a.name.data(), b.name.data(), a.name.size()) < 0;
                             });
  if (it == names.records.end() || it->name != key.name) return false;
  memcpy(gid, it->gid.data(), 16);
  return true;
}

bool AddrDb::FindIp(const uint8_t* ip, size_t len, uint8_t gid[16]) const {
  AddrIp key;
  key.ip = IpKey(ip, len);
  auto it = std::lower_bound(ips.records.begin(), ips.records.end(), key,
                             [](const AddrIp& a, const AddrIp& b) { return a.ip < b.ip; });
  if (it == ips.records.end() || it->ip != key.ip) return false;
  memcpy(gid, it->gid.data(), 16);
  return true;
}

size_t ParseHosts(const std::string& text, AddrDb* out, std::vector<HostsIssue>* issues) {
  // Maps first, so a later line replaces an earlier one for the same key.
  std::map<std::array<char, 64>, std::array<uint8_t, 16>> names;
  std::map<std::array<uint8_t, 16>, std::array<uint8_t, 16>> ips;
  std::istringstream in(text);
  std::string line;
  size_t taken = 0;
  int line_no = 0;
  auto issue = [&](const std::string& msg) {
    if (issues) issues->push_back({line_no, msg});
  };
  while (std::getline(in, line)) {
    ++line_no;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string addr, gid_text, extra;
    if (!(fields >> addr)) continue;  // blank or comment
    if (!(fields >> gid_text)) {
      issue("'" + addr + "' has no GID");
      continue;
    }
    if (fields >> extra) issue("text after the GID ignored: '" + extra + "'");
    std::array<uint8_t, 16> gid{};
    if (inet_pton(AF_INET6, gid_text.c_str(), gid.data()) != 1) {
      issue("'" + gid_text + "' is not a GID");
      continue;
    }
    uint8_t bytes[16] = {};
    std::array<char, 64> name;
    if (inet_pton(AF_INET, addr.c_str(), bytes) == 1) {
      ips[IpKey(bytes, 4)] = gid;
    } else if (inet_pton(AF_INET6, addr.c_str(), bytes) == 1) {
      ips[IpKey(bytes, 16)] = gid;
    } else if (NameKey(addr, &name)) {
      names[name] = gid;
    } else {
      issue("name '" + addr + "' is longer than 63 characters");
      continue;
    }
    ++taken;
  }
  out->names.records.clear();
  out->ips.records.clear();
  for (const auto& kv : names) out->names.records.push_back({kv.first, kv.second});
  for (const auto& kv : ips) out->ips.records.push_back({kv.first, kv.second});
  out->SortRecords();
  return taken;
}

}  // namespace smdb
}  // namespace ssa
