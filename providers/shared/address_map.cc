// address_map.cc: name/IP -> GID lookup (see address_map.h); the hosts
// format itself is parsed by common/smdb/addr_db.h.
#include "providers/shared/address_map.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

std::string AddressKey(uint16_t type, const uint8_t* data, size_t len) {
  std::string key(1, static_cast<char>(type));
  switch (type) {
    case SSA_ADDR_IP:
      if (len < 4) return "";
      key.append(reinterpret_cast<const char*>(data), 4);
      return key;
    case SSA_ADDR_IP6:
      if (len < 16) return "";
      key.append(reinterpret_cast<const char*>(data), 16);
      return key;
    case SSA_ADDR_NAME: {
      size_t n = strnlen(reinterpret_cast<const char*>(data), len);
      if (n == 0) return "";
      for (size_t i = 0; i < n; ++i)
        key.push_back(static_cast<char>(tolower(static_cast<unsigned char>(data[i]))));
      return key;
    }
    default: return "";
  }
}

size_t AddressMap::LoadHostsText(const std::string& text, std::vector<AddressFileIssue>* issues) {
  smdb::AddrDb db;
  size_t taken = smdb::ParseHosts(text, &db, issues);
  for (const smdb::AddrName& n : db.names.records) {
    Gid gid;
    memcpy(gid.raw, n.gid.data(), 16);
    file_[AddressKey(SSA_ADDR_NAME, reinterpret_cast<const uint8_t*>(n.name.data()),
                     n.name.size())] = gid;
  }
  for (const smdb::AddrIp& ip : db.ips.records) {
    Gid gid;
    memcpy(gid.raw, ip.gid.data(), 16);
    file_[IpRecordKey(ip.ip.data())] = gid;
  }
  return taken;
}

std::string IpRecordKey(const uint8_t ip[16]) {
  static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (!memcmp(ip, v4_mapped, 12)) return AddressKey(SSA_ADDR_IP, ip + 12, 4);
  return AddressKey(SSA_ADDR_IP6, ip, 16);
}

Status AddressMap::LoadHostsFile(const std::string& path, size_t* added,
                                 std::vector<AddressFileIssue>* issues) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot read address data file " + path);
  std::stringstream buf;
  buf << in.rdbuf();
  size_t n = LoadHostsText(buf.str(), issues);
  if (added) *added = n;
  return Status::Ok();
}

void AddressMap::AddLocal(const std::string& key, const void* owner) {
  if (!key.empty()) local_.emplace(key, owner);
}

void AddressMap::RemoveLocal(const void* owner) {
  for (auto it = local_.begin(); it != local_.end();) {
    if (it->second == owner)
      it = local_.erase(it);
    else
      ++it;
  }
}

AddressMap::Found AddressMap::Lookup(const std::string& key, const void** owner, Gid* gid) const {
  if (key.empty()) return Found::kNone;
  auto local = local_.find(key);
  if (local != local_.end()) {
    if (owner) *owner = local->second;
    return Found::kLocal;
  }
  auto file = file_.find(key);
  if (file != file_.end()) {
    if (gid) *gid = file->second;
    return Found::kFile;
  }
  return Found::kNone;
}

}  // namespace provider_shared
}  // namespace ssa
