// option_set.cc: typed option parsers and the notes they make.
#include "common/base/option_set.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>

namespace ssa {

std::string OptionNote::ToString() const {
  return file + ":" + std::to_string(line) + ": " + text + then;
}

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
  static const std::vector<std::string> kWords = {"yes", "true",  "on",  "1",
                                                  "no",  "false", "off", "0"};
  size_t i = 0;
  if (!ParseWord(text, kWords, {}, &i).ok())
    return Status::Error(EINVAL, "'" + text + "' is not a boolean (yes/no, true/false, 1/0)");
  *out = i < kWords.size() / 2;
  return Status::Ok();
}

Status OptionSet::ParseWord(const std::string& text, const std::vector<std::string>& words,
                            const std::vector<std::string>& shown, size_t* index) {
  for (size_t i = 0; i < words.size(); ++i)
    if (!strcasecmp(text.c_str(), words[i].c_str())) {
      *index = i;
      return Status::Ok();
    }
  std::string list;
  for (const auto& w : shown.empty() ? words : shown) list += (list.empty() ? "" : "|") + w;
  return Status::Error(EINVAL, "'" + text + "' is not one of " + list);
}

void OptionSet::String(const std::string& key, std::string* dst) {
  parsers_[key] = [dst](const std::string& v) {
    *dst = v;
    return Status::Ok();
  };
}

void OptionSet::Path(const std::string& key, std::string* dst) {
  parsers_[key] = [dst](const std::string& v) {
    if (v.empty()) return Status::Error(EINVAL, "empty path");
    *dst = v;
    return Status::Ok();
  };
}

void OptionSet::Bool(const std::string& key, bool* dst) {
  parsers_[key] = [dst](const std::string& v) { return ParseBool(v, dst); };
}

void OptionSet::Choice(const std::string& key, std::string* dst, std::vector<std::string> allowed) {
  parsers_[key] = [dst, allowed](const std::string& v) {
    size_t i = 0;
    Status st = ParseWord(v, allowed, {}, &i);
    if (st.ok()) *dst = allowed[i];
    return st;
  };
}

void OptionSet::Custom(const std::string& key, Parser parser) { parsers_[key] = std::move(parser); }

std::vector<std::string> OptionSet::Keys() const {
  std::vector<std::string> keys;
  for (const auto& kv : parsers_) keys.push_back(kv.first);
  return keys;
}

std::optional<OptionNote> OptionSet::WarnUnknown(const ConfigEntry& e, const std::string& file) {
  OptionNote n;
  n.file = file;
  n.line = e.line;
  n.text = "unknown option '" + e.key + "'" + (e.section.empty() ? "" : " in [" + e.section + "]");
  n.then = ", ignored";
  return n;
}

std::vector<OptionNote> OptionSet::Read(const std::vector<ConfigEntry>& entries,
                                        const std::string& file, const UnknownKey& unknown) const {
  std::vector<OptionNote> notes;
  for (const auto& e : entries) {
    auto it = parsers_.find(e.key);
    if (it == parsers_.end()) {
      std::optional<OptionNote> note = unknown(e, file);
      if (note) notes.push_back(std::move(*note));
      continue;
    }
    Status st = it->second(e.value);
    if (!st.ok())
      notes.push_back({OptionNote::Severity::kWarning, file, e.line,
                       "bad value for '" + e.key + "': " + st.message(), "; keeping the default"});
  }
  return notes;
}

namespace {
std::vector<std::string> Strings(const std::vector<OptionNote>& notes) {
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(n.ToString());
  return out;
}
}  // namespace

std::vector<std::string> OptionSet::Apply(const std::vector<ConfigEntry>& entries,
                                          const std::string& file_name) const {
  return Strings(Read(entries, file_name, WarnUnknown));
}

std::vector<std::string> OptionSet::ApplyKnown(const std::vector<ConfigEntry>& entries,
                                               const std::string& file_name) const {
  return Strings(Read(entries, file_name, SkipUnknown));
}

}  // namespace ssa
