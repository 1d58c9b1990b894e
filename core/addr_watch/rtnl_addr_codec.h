// rtnl_addr_codec.h: the address messages of rtnetlink (NETLINK_ROUTE,
// <linux/rtnetlink.h>, <linux/if_addr.h>): RTM_NEWADDR and RTM_DELADDR as
// the kernel multicasts them to RTMGRP_IPV4_IFADDR and RTMGRP_IPV6_IFADDR.
//
// Layout: struct nlmsghdr; struct ifaddrmsg (family, prefix length,
// flags, scope, interface index: 8 bytes); then rtattr attributes, of
// which IFA_LOCAL (the interface's own address; for IPv4 IFA_ADDRESS may be
// the peer's) or else IFA_ADDRESS, and IFA_LABEL (the interface name).
//
// Pure functions, any thread.
#ifndef IBACM_SSA_CORE_ADDR_WATCH_RTNL_ADDR_CODEC_H
#define IBACM_SSA_CORE_ADDR_WATCH_RTNL_ADDR_CODEC_H

#include <cstdint>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "core/netlink/netlink_msg.h"

namespace ssa {

struct AddrEvent {
  bool added = false;  // RTM_NEWADDR; false: RTM_DELADDR
  int ifindex = 0;
  uint8_t family = 0;  // AF_INET or AF_INET6
  uint8_t prefix_len = 0;
  ssa_address address{};  // SSA_ADDR_IP or SSA_ADDR_IP6
  std::string text;       // printable address
  std::string label;      // IFA_LABEL, when given
};

enum class AddrDecode {
  kEvent,    // `out` holds an address event
  kIgnored,  // another message type or family: not an error
  kError,    // malformed: `why` says how
};

AddrDecode DecodeAddrMessage(const NlMessage& msg, AddrEvent* out, std::string* why);

// The message as the kernel sends it (tests and recorded-message fixtures).
std::vector<uint8_t> EncodeAddrMessage(const AddrEvent& event, uint32_t seq = 0);

}  // namespace ssa

#endif
