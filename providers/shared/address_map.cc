// address_map.cc: acm_hosts parsing and name/IP -> GID lookup (see
// address_map.h).
#include "providers/shared/address_map.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

namespace {
// The ABI's name field is 64 bytes, NUL-padded: at most 63 characters.
constexpr size_t kMaxNameLength = 63;
}  // namespace

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
    default:
      return "";
  }
}

size_t AddressMap::LoadHostsText(const std::string& text, std::vector<AddressFileIssue>* issues) {
  std::istringstream in(text);
  std::string line;
  size_t added = 0;
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
    Gid gid;
    if (inet_pton(AF_INET6, gid_text.c_str(), gid.raw) != 1) {
      issue("'" + gid_text + "' is not a GID");
      continue;
    }
    uint8_t bytes[64] = {};
    std::string key;
    if (inet_pton(AF_INET, addr.c_str(), bytes) == 1) {
      key = AddressKey(SSA_ADDR_IP, bytes, 4);
    } else if (inet_pton(AF_INET6, addr.c_str(), bytes) == 1) {
      key = AddressKey(SSA_ADDR_IP6, bytes, 16);
    } else if (addr.size() > kMaxNameLength) {
      issue("name '" + addr + "' is longer than 63 characters");
      continue;
    } else {
      key = AddressKey(SSA_ADDR_NAME, reinterpret_cast<const uint8_t*>(addr.c_str()), addr.size());
    }
    file_[key] = gid;
    ++added;
  }
  return added;
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
