// rtnl_addr_codec.cc: RTM_NEWADDR / RTM_DELADDR decoding (see
// rtnl_addr_codec.h).
#include "core/addr_watch/rtnl_addr_codec.h"

#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <cstring>

namespace ssa {

static_assert(sizeof(ifaddrmsg) == 8, "ifaddrmsg");

AddrDecode DecodeAddrMessage(const NlMessage& msg, AddrEvent* out, std::string* why) {
  *out = AddrEvent();
  if (msg.type != RTM_NEWADDR && msg.type != RTM_DELADDR) return AddrDecode::kIgnored;
  if (msg.payload_len < sizeof(ifaddrmsg)) {
    *why = "address message of " + std::to_string(msg.payload_len) + " bytes";
    return AddrDecode::kError;
  }
  ifaddrmsg ifa;
  std::memcpy(&ifa, msg.payload, sizeof(ifa));
  if (ifa.ifa_family != AF_INET && ifa.ifa_family != AF_INET6) return AddrDecode::kIgnored;
  out->added = msg.type == RTM_NEWADDR;
  out->family = ifa.ifa_family;
  out->prefix_len = ifa.ifa_prefixlen;
  out->ifindex = static_cast<int>(ifa.ifa_index);
  size_t addr_len = ifa.ifa_family == AF_INET ? 4 : 16;
  const uint8_t* local = nullptr;
  const uint8_t* address = nullptr;
  NlAttrReader attrs(msg.payload + NlAlign(sizeof(ifa)), msg.payload_len - NlAlign(sizeof(ifa)));
  NlAttr a;
  while (attrs.Next(&a)) {
    switch (a.type) {
      case IFA_LOCAL:
      case IFA_ADDRESS:
        if (a.len != addr_len) {
          *why = "address attribute of " + std::to_string(a.len) + " bytes for family " +
                 std::to_string(ifa.ifa_family);
          return AddrDecode::kError;
        }
        (a.type == IFA_LOCAL ? local : address) = a.data;
        break;
      case IFA_LABEL:
        out->label.assign(reinterpret_cast<const char*>(a.data),
                          strnlen(reinterpret_cast<const char*>(a.data), a.len));
        break;
      default: break;
    }
  }
  if (!attrs.error().empty()) {
    *why = attrs.error();
    return AddrDecode::kError;
  }
  const uint8_t* ours = local ? local : address;
  if (!ours) {
    *why = "no IFA_LOCAL or IFA_ADDRESS";
    return AddrDecode::kError;
  }
  if (out->ifindex <= 0) {
    *why = "interface index " + std::to_string(out->ifindex);
    return AddrDecode::kError;
  }
  out->address.size = sizeof(out->address);
  out->address.type = ifa.ifa_family == AF_INET ? SSA_ADDR_IP : SSA_ADDR_IP6;
  std::memcpy(out->address.data, ours, addr_len);
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(ifa.ifa_family, ours, text, sizeof(text));
  out->text = text;
  return AddrDecode::kEvent;
}

std::vector<uint8_t> EncodeAddrMessage(const AddrEvent& event, uint32_t seq) {
  NlMessageWriter w(event.added ? RTM_NEWADDR : RTM_DELADDR, 0, seq, 0);
  ifaddrmsg ifa = {};
  ifa.ifa_family = event.family;
  ifa.ifa_prefixlen = event.prefix_len;
  ifa.ifa_index = static_cast<uint32_t>(event.ifindex);
  w.Append(&ifa, sizeof(ifa));
  size_t len = event.family == AF_INET ? 4 : 16;
  // As the kernel does: IPv4 gives both (equal unless point-to-point),
  // IPv6 only IFA_ADDRESS.
  w.AppendAttr(IFA_ADDRESS, event.address.data, len);
  if (event.family == AF_INET) w.AppendAttr(IFA_LOCAL, event.address.data, len);
  if (!event.label.empty()) w.AppendAttr(IFA_LABEL, event.label.c_str(), event.label.size() + 1);
  return w.Finish();
}

}  // namespace ssa
