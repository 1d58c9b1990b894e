// link_info.h: what the address watcher needs to know about a network
// interface named by its index: is it IPoIB, and if so on which port (the
// GID in its hardware address) and P_Key. A seam: the daemon reads sysfs,
// tests point SysfsLinkInfo at a directory of their own or give a fake.
//
// IPoIB interfaces have type ARPHRD_INFINIBAND (32) and a 20-byte hardware
// address whose last 16 bytes are the port GID. The P_Key is in
// /sys/class/net/IF/pkey; without that file, a child interface's name
// ("ib0.8001") gives it, and a parent's is the default P_Key 0xffff.
//
// Used on the loop thread; SysfsLinkInfo holds no state.
#ifndef IBACM_SSA_CORE_ADDR_WATCH_LINK_INFO_H
#define IBACM_SSA_CORE_ADDR_WATCH_LINK_INFO_H

#include <cstdint>
#include <string>
#include <vector>

namespace ssa {

struct LinkInfo {
  std::string ifname;
  int type = 0;  // ARPHRD_*
  bool ipoib = false;
  uint64_t gid_prefix = 0;  // the following only when ipoib
  uint64_t port_guid = 0;
  uint16_t pkey = 0xffff;
};

class LinkInfoSource {
 public:
  virtual ~LinkInfoSource() = default;
  // False when no interface has that index (it may have gone meanwhile).
  virtual bool Lookup(int ifindex, LinkInfo* out) = 0;
};

class SysfsLinkInfo : public LinkInfoSource {
 public:
  explicit SysfsLinkInfo(std::string root = "/sys/class/net") : root_(std::move(root)) {}
  bool Lookup(int ifindex, LinkInfo* out) override;

 private:
  std::string root_;
};

// "80:00:04:04:fe:80:..." into bytes; false on anything else.
bool ParseHardwareAddress(const std::string& text, std::vector<uint8_t>* out);
// The P_Key a child interface's name carries ("ib0.8001" -> 0x8001), or 0.
uint16_t PkeyFromInterfaceName(const std::string& ifname);
// Fills `out` (ifname already set) from the sysfs files' contents; an empty
// string stands for a file that is missing.
void ParseLinkFiles(const std::string& type, const std::string& address, const std::string& pkey,
                    LinkInfo* out);

}  // namespace ssa

#endif
