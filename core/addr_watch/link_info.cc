// link_info.cc: interface facts from sysfs (see link_info.h).
#include "core/addr_watch/link_info.h"

#include <dirent.h>
#include <net/if_arp.h>

#include <cctype>
#include <cstdlib>
#include <fstream>

#include "common/base/ipoib_interfaces.h"

namespace ssa {

namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return "";
  return line;
}

bool ParseHexU16(const std::string& text, uint16_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  unsigned long v = strtoul(text.c_str(), &end, 16);
  if (end == text.c_str() || (*end && *end != '\n') || v > 0xffff) return false;
  *out = static_cast<uint16_t>(v);
  return true;
}

}  // namespace

bool ParseHardwareAddress(const std::string& text, std::vector<uint8_t>* out) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    if (i + 2 > text.size() || !isxdigit(static_cast<unsigned char>(text[i])) ||
        !isxdigit(static_cast<unsigned char>(text[i + 1])))
      return false;
    out->push_back(static_cast<uint8_t>(strtoul(text.substr(i, 2).c_str(), nullptr, 16)));
    i += 2;
    if (i < text.size()) {
      if (text[i] != ':') return false;
      ++i;
      if (i == text.size()) return false;  // trailing colon
    }
  }
  return !out->empty();
}

uint16_t PkeyFromInterfaceName(const std::string& ifname) {
  size_t dot = ifname.rfind('.');
  if (dot == std::string::npos || dot + 1 >= ifname.size() || ifname.size() - dot - 1 > 4) return 0;
  uint16_t pkey = 0;
  return ParseHexU16(ifname.substr(dot + 1), &pkey) ? pkey : 0;
}

void ParseLinkFiles(const std::string& type, const std::string& address, const std::string& pkey,
                    LinkInfo* out) {
  out->type = atoi(type.c_str());
  out->ipoib = false;
  if (out->type != ARPHRD_INFINIBAND) return;
  std::vector<uint8_t> hw;
  if (!ParseHardwareAddress(address, &hw) ||
      !ParseIpoibHwAddr(hw.data(), hw.size(), &out->gid_prefix, &out->port_guid))
    return;
  out->ipoib = true;
  if (!ParseHexU16(pkey, &out->pkey)) {
    uint16_t from_name = PkeyFromInterfaceName(out->ifname);
    out->pkey = from_name ? from_name : 0xffff;
  }
}

bool SysfsLinkInfo::Lookup(int ifindex, LinkInfo* out) {
  DIR* dir = opendir(root_.c_str());
  if (!dir) return false;
  std::string name;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::string index = ReadLine(root_ + "/" + e->d_name + "/ifindex");
    if (!index.empty() && atoi(index.c_str()) == ifindex) {
      name = e->d_name;
      break;
    }
  }
  closedir(dir);
  if (name.empty()) return false;
  *out = LinkInfo();
  out->ifname = name;
  std::string base = root_ + "/" + name + "/";
  ParseLinkFiles(ReadLine(base + "type"), ReadLine(base + "address"), ReadLine(base + "pkey"), out);
  return true;
}

}  // namespace ssa
