// provider_selector.cc: parsing and matching of "provider" rules.
#include "core/provider_selector.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ssa {

namespace {

constexpr size_t kMaxNameLen = 31;  // SSA_PROV_NAME_MAX less the NUL
constexpr int kMaxPort = 254;       // IB port numbers 1..254; 255 is reserved

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool IsWord(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsWordChar(c)) return false;
  return true;
}

Status RuleError(const std::string& value, const std::string& what) {
  return Status::Error(EINVAL, "provider rule '" + value + "': " + what);
}

Status ParsePrefix(const std::string& value, const std::string& text, uint64_t* out) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (end == text.c_str() || *end != '\0')
    return RuleError(value, "subnet prefix '" + text + "' is not a number");
  if (errno == ERANGE) return RuleError(value, "subnet prefix '" + text + "' is over 64 bits");
  *out = v;
  return Status::Ok();
}

Status ParseDevice(const std::string& value, const std::string& text, ProviderSelector::Rule* r) {
  const size_t colon = text.find(':');
  r->device = text.substr(0, colon);
  if (!IsWord(r->device))
    return RuleError(value,
                     "device '" + r->device + "' may only hold letters, digits, '_', '-' and '.'");
  if (colon == std::string::npos) {
    r->kind = ProviderSelector::Rule::Kind::kDevice;
    return Status::Ok();
  }
  const std::string port = text.substr(colon + 1);
  bool digits = !port.empty() && port.size() <= 3;
  for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  const int num = digits ? std::atoi(port.c_str()) : 0;
  if (num < 1 || num > kMaxPort)
    return RuleError(value, "port '" + port + "' is not a number from 1 to 254");
  r->kind = ProviderSelector::Rule::Kind::kDevicePort;
  r->port = num;
  return Status::Ok();
}

bool SameTarget(const ProviderSelector::Rule& a, const ProviderSelector::Rule& b) {
  if (a.kind != b.kind) return false;
  using Kind = ProviderSelector::Rule::Kind;
  switch (a.kind) {
    case Kind::kDevicePort: return a.device == b.device && a.port == b.port;
    case Kind::kDevice: return a.device == b.device;
    case Kind::kSubnetPrefix: return a.prefix == b.prefix;
    case Kind::kDefault: return true;
  }
  return false;
}

std::string TargetString(const ProviderSelector::Rule& r) {
  using Kind = ProviderSelector::Rule::Kind;
  switch (r.kind) {
    case Kind::kDevicePort: return r.device + ":" + std::to_string(r.port);
    case Kind::kDevice: return r.device;
    case Kind::kSubnetPrefix: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, r.prefix);
      return buf;
    }
    case Kind::kDefault: return "default";
  }
  return "?";
}

}  // namespace

std::string ProviderSelector::Rule::ToString() const {
  return TargetString(*this) + " -> " + provider;
}

Status ProviderSelector::AddRule(const std::string& value) {
  std::istringstream in(value);
  std::string name, target, extra;
  in >> name >> target;
  if (name.empty() || target.empty() || (in >> extra))
    return RuleError(value,
                     "expected 'NAME default', 'NAME SUBNET_PREFIX' or 'NAME DEVICE[:PORT]'");
  if (!IsWord(name) || name.size() > kMaxNameLen)
    return RuleError(
        value, "provider name '" + name + "' is not 1 to 31 letters, digits, '_', '-' or '.'");

  Rule rule;
  rule.provider = OurName(name);
  if (rule.provider != name) rule.upstream_name = name;
  Status st;
  if (strcasecmp(target.c_str(), "default") == 0) {
    rule.kind = Rule::Kind::kDefault;
  } else if (std::isdigit(static_cast<unsigned char>(target[0]))) {
    rule.kind = Rule::Kind::kSubnetPrefix;
    st = ParsePrefix(value, target, &rule.prefix);
  } else if (std::isalpha(static_cast<unsigned char>(target[0]))) {
    st = ParseDevice(value, target, &rule);
  } else {
    st = RuleError(
        value, "target '" + target + "' is neither 'default', a subnet prefix nor DEVICE[:PORT]");
  }
  if (!st.ok()) return st;

  if (const Rule* earlier = FindTarget(rule)) {
    if (earlier->provider == rule.provider) return Status::Ok();  // a repeat, harmless
    return RuleError(value, TargetString(rule) + " is already served by '" + earlier->provider +
                                "'; the first rule stays");
  }
  if (rule.kind == Rule::Kind::kDefault) default_ = rule.provider;
  rules_.push_back(rule);
  return Status::Ok();
}

std::string ProviderSelector::OurName(const std::string& name) {
  // Upstream ships one provider, libibacmp.so, named "ibacmp".
  if (strcasecmp(name.c_str(), "ibacmp") == 0) return "acmp";
  return name;
}

const ProviderSelector::Rule* ProviderSelector::FindTarget(const Rule& rule) const {
  for (const auto& r : rules_)
    if (SameTarget(r, rule)) return &r;
  return nullptr;
}

std::string ProviderSelector::Select(const std::string& ca_name, int port_num,
                                     uint64_t gid_prefix) const {
  // Most specific first, whatever order the rules came in.
  const Rule::Kind order[] = {Rule::Kind::kDevicePort, Rule::Kind::kDevice,
                              Rule::Kind::kSubnetPrefix};
  for (Rule::Kind kind : order) {
    for (const auto& r : rules_) {
      if (r.kind != kind) continue;
      if ((kind == Rule::Kind::kDevicePort && r.device == ca_name && r.port == port_num) ||
          (kind == Rule::Kind::kDevice && r.device == ca_name) ||
          (kind == Rule::Kind::kSubnetPrefix && r.prefix == gid_prefix))
        return r.provider;
    }
  }
  return default_;
}

std::vector<std::string> ProviderSelector::Describe() const {
  std::vector<std::string> lines;
  const Rule::Kind order[] = {Rule::Kind::kDevicePort, Rule::Kind::kDevice,
                              Rule::Kind::kSubnetPrefix};
  for (Rule::Kind kind : order)
    for (const auto& r : rules_)
      if (r.kind == kind) lines.push_back(r.ToString());
  if (!default_.empty()) lines.push_back("default -> " + default_);
  return lines;
}

}  // namespace ssa
