// option_set.cc: typed option parsers.
#include "common/base/option_set.h"

#include <cerrno>
#include <cstdlib>

namespace ssa {

Status OptionSet::ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out) {
  if (text.empty()) return Status::Error(EINVAL, "empty value, expected a number");
  errno = 0;
  char* end = nullptr;
  long long v = strtoll(text.c_str(), &end, 0);
  if (errno || !end || *end != '\0') return Status::Error(EINVAL, "'" + text + "' is not a number");
  if (v < min || v > max)
    return Status::Error(ERANGE, "'" + text + "' is out of range [" + std::to_string(min) + ", " +
                                     std::to_string(max) + "]");
  *out = v;
  return Status::Ok();
}

Status OptionSet::ParseBool(const std::string& text, bool* out) {
  if (text == "yes" || text == "true" || text == "on" || text == "1") {
    *out = true;
  } else if (text == "no" || text == "false" || text == "off" || text == "0") {
    *out = false;
  } else {
    return Status::Error(EINVAL, "'" + text + "' is not a boolean (yes/no, true/false, 1/0)");
  }
  return Status::Ok();
}

void OptionSet::String(const std::string& key, std::string* dst) {
  parsers_[key] = [dst](const std::string& v) {
    *dst = v;
    return Status::Ok();
  };
}

void OptionSet::Int(const std::string& key, int64_t* dst, int64_t min, int64_t max) {
  parsers_[key] = [dst, min, max](const std::string& v) { return ParseInt(v, min, max, dst); };
}

void OptionSet::Int(const std::string& key, int* dst, int min, int max) {
  parsers_[key] = [dst, min, max](const std::string& v) {
    int64_t wide;
    Status st = ParseInt(v, min, max, &wide);
    if (st.ok()) *dst = static_cast<int>(wide);
    return st;
  };
}

void OptionSet::Bool(const std::string& key, bool* dst) {
  parsers_[key] = [dst](const std::string& v) { return ParseBool(v, dst); };
}

void OptionSet::Choice(const std::string& key, std::string* dst, std::vector<std::string> allowed) {
  parsers_[key] = [dst, allowed](const std::string& v) {
    for (const auto& a : allowed) {
      if (v == a) {
        *dst = v;
        return Status::Ok();
      }
    }
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : "|") + a;
    return Status::Error(EINVAL, "'" + v + "' is not one of " + list);
  };
}

void OptionSet::Custom(const std::string& key, Parser parser) { parsers_[key] = std::move(parser); }

std::vector<std::string> OptionSet::Apply(const std::vector<ConfigEntry>& entries,
                                          const std::string& file_name) const {
  return ApplyImpl(entries, file_name, true);
}

std::vector<std::string> OptionSet::ApplyKnown(const std::vector<ConfigEntry>& entries,
                                               const std::string& file_name) const {
  return ApplyImpl(entries, file_name, false);
}

std::vector<std::string> OptionSet::ApplyImpl(const std::vector<ConfigEntry>& entries,
                                              const std::string& file_name,
                                              bool warn_unknown) const {
  std::vector<std::string> warnings;
  for (const auto& e : entries) {
    std::string where = file_name + ":" + std::to_string(e.line) + ": ";
    auto it = parsers_.find(e.key);
    if (it == parsers_.end()) {
      if (warn_unknown)
        warnings.push_back(where + "unknown option '" + e.key + "'" +
                           (e.section.empty() ? "" : " in [" + e.section + "]") + ", ignored");
      continue;
    }
    Status st = it->second(e.value);
    if (!st.ok())
      warnings.push_back(where + "bad value for '" + e.key + "': " + st.message() +
                         "; keeping the default");
  }
  return warnings;
}

}  // namespace ssa
