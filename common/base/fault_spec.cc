// fault_spec.cc: see fault_spec.h.
#include "common/base/fault_spec.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>

namespace ssa {

Status FaultSpec::Parse(const std::string& text, const std::vector<std::string>& known,
                        FaultSpec* out) {
  FaultSpec spec;
  std::string t = text;
  std::replace(t.begin(), t.end(), ',', ' ');
  std::istringstream in(t);
  std::string pair;
  while (in >> pair) {
    size_t eq = pair.find('=');
    std::string key = pair.substr(0, eq);
    if (eq == std::string::npos || eq + 1 == pair.size())
      return Status::Error(EINVAL, "fault '" + pair + "': expected key=value");
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
      return Status::Error(EINVAL, "fault '" + key + "' unknown here (known: " + list + ")");
    }
    const char* v = pair.c_str() + eq + 1;
    char* end = nullptr;
    double value = strtod(v, &end);
    if (*end != '\0' || value < 0)
      return Status::Error(EINVAL, "fault '" + pair + "': not a number >= 0");
    spec.values_[key] = value;
  }
  *out = spec;
  return Status::Ok();
}

double FaultSpec::Get(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::string FaultSpec::ToString() const {
  std::ostringstream s;
  for (const auto& kv : values_) s << (s.tellp() > 0 ? "," : "") << kv.first << "=" << kv.second;
  return s.str();
}

FaultDice::FaultDice(uint64_t seed)
    : rng_(seed ? seed
                : static_cast<uint64_t>(
                      std::chrono::steady_clock::now().time_since_epoch().count())) {}

bool FaultDice::Roll(double p) {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return std::uniform_real_distribution<double>(0, 1)(rng_) < p;
}

uint64_t FaultDice::Below(uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_);
}

}  // namespace ssa
