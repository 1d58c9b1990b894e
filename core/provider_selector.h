// provider_selector.h: which provider serves a port, from the "provider"
// rules of the core's options (acm_opts.cfg [core], or upstream's
// ibacm_opts.cfg).
//
// A rule is the text after the key, "NAME TARGET", two words:
//   NAME default                 the default provider (upstream syntax)
//   NAME 0xfe80000000000000      ports whose GID subnet prefix is this
//                                (upstream syntax; any strtoull base-0
//                                number, so decimal works as upstream's did)
//   NAME mlx5_0:1                port 1 of CA mlx5_0 (our addition)
//   NAME mlx5_0                  every port of CA mlx5_0 (our addition)
// A TARGET starting with a digit is a prefix; one starting with a letter is a
// CA name (letters, digits, '_', '-', '.'), optionally ":PORT" with PORT
// 1..254. "default" is matched without regard to case, as upstream did.
//
// Select() tries, whatever the order the rules were added in: the CA:PORT
// rule, then the CA rule, then the prefix rule, then the default (the
// "default" rule, or else the name given to SetDefault), else "".
// A second rule for a target that already has one is an error if it names
// another provider (the first stays) and ignored if it names the same one.
//
// Upstream ibacm's names for providers name ours, so that an unchanged
// upstream file works: "ibacmp" (rdma-core's libibacmp) is our acmp. The
// rule keeps the name written (Rule::upstream_name) for the one line the
// daemon logs about it.
//
// A plain value, filled at start-up and read-only afterwards; const methods
// may then be called from any thread.
#ifndef IBACM_SSA_CORE_PROVIDER_SELECTOR_H
#define IBACM_SSA_CORE_PROVIDER_SELECTOR_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {

class ProviderSelector {
 public:
  struct Rule {
    enum class Kind { kDevicePort, kDevice, kSubnetPrefix, kDefault };
    Kind kind = Kind::kDefault;
    std::string provider;       // ours
    std::string upstream_name;  // the upstream name written, when it was one
    std::string device;         // kDevicePort, kDevice
    int port = 0;               // kDevicePort
    uint64_t prefix = 0;        // kSubnetPrefix, host byte order

    // "mlx5_0:1 -> sa", "0xfe80000000000000 -> sa", "default -> sa".
    std::string ToString() const;
  };

  // Parses and adds one rule; an error names the value and what is wrong.
  Status AddRule(const std::string& value);
  // Our name for a provider upstream ibacm names `name`; `name` otherwise.
  static std::string OurName(const std::string& name);
  // The default used when no "NAME default" rule exists (the daemon gives
  // its first loaded provider, as upstream did). Replaces an earlier one.
  void SetDefault(const std::string& name) { default_ = name; }
  const std::string& default_provider() const { return default_; }

  // The provider for port `port_num` of CA `ca_name` whose GID subnet
  // prefix is `gid_prefix` (host byte order); "" if nothing matches.
  std::string Select(const std::string& ca_name, int port_num, uint64_t gid_prefix) const;

  // Rules in the order they were added (the default rule included).
  const std::vector<Rule>& rules() const { return rules_; }
  // One line per rule in the order Select() tries them, then the default;
  // for the start-up log.
  std::vector<std::string> Describe() const;

 private:
  const Rule* FindTarget(const Rule& rule) const;

  std::vector<Rule> rules_;
  std::string default_;
};

}  // namespace ssa

#endif
