// option_set.cc: typed option parsers, the notes they make and the values
// they show.
#include "common/base/option_set.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>

#include "common/base/nearest_word.h"

namespace ssa {

std::string OptionNote::ToString() const { return file + ":" + std::to_string(line) + ": " + text; }

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
  const std::vector<std::string>& allowed = shown.empty() ? words : shown;
  std::string list;
  for (const auto& w : allowed) list += (list.empty() ? "" : "|") + w;
  return Status::Error(EINVAL, "'" + text + "' is not one of " + list + DidYouMean(text, allowed));
}

void OptionSet::Bind(const std::string& key, Parser parse, Show show) {
  options_[key] = Bound{std::move(parse), std::move(show), "default"};
}

void OptionSet::String(const std::string& key, std::string* dst) {
  Bind(
      key,
      [dst](const std::string& v) {
        *dst = v;
        return Status::Ok();
      },
      [dst] { return *dst; });
}

void OptionSet::Path(const std::string& key, std::string* dst) {
  Bind(
      key,
      [dst](const std::string& v) {
        if (v.empty()) return Status::Error(EINVAL, "empty path");
        *dst = v;
        return Status::Ok();
      },
      [dst] { return *dst; });
}

void OptionSet::Bool(const std::string& key, bool* dst) {
  Bind(
      key, [dst](const std::string& v) { return ParseBool(v, dst); },
      [dst] { return std::string(*dst ? "yes" : "no"); });
}

void OptionSet::Choice(const std::string& key, std::string* dst, std::vector<std::string> allowed) {
  Bind(
      key,
      [dst, allowed](const std::string& v) {
        size_t i = 0;
        Status st = ParseWord(v, allowed, {}, &i);
        if (st.ok()) *dst = allowed[i];
        return st;
      },
      [dst] { return *dst; });
}

void OptionSet::Custom(const std::string& key, Parser parser, Show show) {
  Bind(key, std::move(parser), std::move(show));
}

std::vector<std::string> OptionSet::Keys() const {
  std::vector<std::string> keys;
  for (const auto& kv : options_) keys.push_back(kv.first);
  return keys;
}

OptionNote OptionSet::UnknownKeyNote(const ConfigEntry& e, const std::string& file,
                                     const std::vector<std::string>& more) const {
  std::vector<std::string> known = Keys();
  known.insert(known.end(), more.begin(), more.end());
  OptionNote n;
  n.file = file;
  n.line = e.line;
  n.text = "unknown option '" + e.key + "'" + (e.section.empty() ? "" : " in [" + e.section + "]") +
           DidYouMean(e.key, known);
  return n;
}

std::vector<OptionNote> OptionSet::Read(const std::vector<ConfigEntry>& entries,
                                        const std::string& file, const UnknownKey& unknown) {
  std::vector<OptionNote> notes;
  for (const auto& e : entries) {
    auto it = options_.find(e.key);
    if (it == options_.end()) {
      std::optional<OptionNote> note = unknown(e, file);
      if (note) notes.push_back(std::move(*note));
      continue;
    }
    Status st = it->second.parse(e.value);
    if (st.ok())
      it->second.source = file + ":" + std::to_string(e.line);
    else
      notes.push_back({OptionNote::Severity::kError, file, e.line,
                       "bad value for '" + e.key + "': " + st.message()});
  }
  return notes;
}

std::vector<OptionNote> OptionSet::Read(const std::vector<ConfigEntry>& entries,
                                        const std::string& file) {
  return Read(entries, file, [this](const ConfigEntry& e, const std::string& f) {
    return std::optional<OptionNote>(UnknownKeyNote(e, f));
  });
}

std::vector<OptionValue> OptionSet::Values() const {
  std::vector<OptionValue> values;
  for (const auto& kv : options_) values.push_back({kv.first, kv.second.show(), kv.second.source});
  return values;
}

void PrintOptionValues(FILE* out, const std::string& section,
                       const std::vector<OptionValue>& values) {
  fprintf(out, "[%s]\n", section.c_str());
  for (const OptionValue& v : values)
    fprintf(out, "%-24s = %-32s # %s\n", v.key.c_str(), v.value.c_str(), v.source.c_str());
}

int FinishCheck(FILE* out, const std::string& program, const Status& st,
                const std::string& consequence) {
  if (!st.ok()) {
    fprintf(stderr, "%s: %s\n", program.c_str(), st.message().c_str());
    fprintf(out, "# errors: %s\n", consequence.c_str());
    return 1;
  }
  fprintf(out, "# no errors\n");
  return 0;
}

std::vector<std::string> NoteTexts(const std::vector<OptionNote>& notes) {
  std::vector<std::string> texts;
  for (const OptionNote& n : notes) texts.push_back(n.ToString());
  return texts;
}

Status OptionErrors(const std::vector<std::string>& errors) {
  if (errors.empty()) return Status::Ok();
  std::string text;
  for (const std::string& e : errors) text += (text.empty() ? "" : "\n") + e;
  return Status::Error(EINVAL, text);
}

void OptionSet::SetSource(const std::string& key, const std::string& source) {
  auto it = options_.find(key);
  if (it != options_.end()) it->second.source = source;
}

}  // namespace ssa
