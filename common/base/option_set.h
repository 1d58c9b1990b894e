// option_set.h: binds the keys of one config section to typed variables:
// the one way the core, ibssa, the OpenSM plugin and the providers read
// their options.
//
// Each daemon or provider declares the options it understands, then reads
// the entries of its section. Unknown keys and bad values never abort: each
// becomes a note naming the file and line, with a severity, and the
// variable keeps its default. Words chosen from a list (enumerations,
// booleans) are matched without regard to case, as upstream ibacm does.
// Single-threaded; the bound variables must outlive Read().
#ifndef IBACM_SSA_COMMON_BASE_OPTION_SET_H
#define IBACM_SSA_COMMON_BASE_OPTION_SET_H

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/status.h"

namespace ssa {

// What reading an entry has to say.
struct OptionNote {
  enum class Severity {
    kWarning,  // a mistake to fix: a bad value, an unknown or misplaced key
    kDebug,    // worth a debug line only (another reader's key in a shared file)
  };
  Severity severity = Severity::kWarning;
  std::string file;
  int line = 0;
  std::string text;  // what is wrong: "bad value for 'k': ..."
  std::string then;  // what was done about it: "; keeping the default"

  bool warning() const { return severity == Severity::kWarning; }
  // "file:line: " + text + then.
  std::string ToString() const;
};

class OptionSet {
 public:
  // Parses one value; a non-OK Status becomes the note's text.
  using Parser = std::function<Status(const std::string& value)>;
  // What to say about an entry whose key nobody bound (nothing: nullopt).
  using UnknownKey =
      std::function<std::optional<OptionNote>(const ConfigEntry& entry, const std::string& file)>;

  void String(const std::string& key, std::string* dst);
  // A file or directory name: like String, but empty is a bad value.
  void Path(const std::string& key, std::string* dst);
  // A whole number in [min, max] (decimal, or 0x hex), into any integer type.
  template <typename T>
  void Int(const std::string& key, T* dst, int64_t min, int64_t max);
  // yes/no, true/false, on/off, 1/0.
  void Bool(const std::string& key, bool* dst);
  // One of `allowed`, stored as spelled there.
  void Choice(const std::string& key, std::string* dst, std::vector<std::string> allowed);
  // One of the names of `names`, stored as the value it names. Several
  // names may name one value (upstream's "no" for "none"); messages list
  // the first name of each value.
  template <typename T>
  void Enum(const std::string& key, T* dst, std::vector<std::pair<std::string, T>> names);
  // Anything else, e.g. keys that may repeat (upstream "provider" lines).
  void Custom(const std::string& key, Parser parser);

  bool Knows(const std::string& key) const { return parsers_.count(key) != 0; }
  // Every key bound, sorted.
  std::vector<std::string> Keys() const;

  // Reads `entries` (from ConfigFile::Section) in order, each from `file`;
  // an entry whose key nobody bound is passed to `unknown`.
  std::vector<OptionNote> Read(const std::vector<ConfigEntry>& entries, const std::string& file,
                               const UnknownKey& unknown) const;
  // The usual `unknown`: a warning "unknown option 'k' in [section]", and
  // one that says nothing (several readers sharing an upstream-format file).
  static std::optional<OptionNote> WarnUnknown(const ConfigEntry& entry, const std::string& file);
  static std::optional<OptionNote> SkipUnknown(const ConfigEntry&, const std::string&) {
    return std::nullopt;
  }

  // Read with WarnUnknown, or with SkipUnknown: the notes as strings.
  std::vector<std::string> Apply(const std::vector<ConfigEntry>& entries,
                                 const std::string& file_name) const;
  std::vector<std::string> ApplyKnown(const std::vector<ConfigEntry>& entries,
                                      const std::string& file_name) const;

  static Status ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out);
  static Status ParseBool(const std::string& text, bool* out);
  // The index of `text` in `words`, case-insensitively; an error listing
  // `shown` (words when empty) otherwise.
  static Status ParseWord(const std::string& text, const std::vector<std::string>& words,
                          const std::vector<std::string>& shown, size_t* index);

 private:
  std::map<std::string, Parser> parsers_;
};

template <typename T>
void OptionSet::Int(const std::string& key, T* dst, int64_t min, int64_t max) {
  parsers_[key] = [dst, min, max](const std::string& v) {
    int64_t wide = 0;
    Status st = ParseInt(v, min, max, &wide);
    if (st.ok()) *dst = static_cast<T>(wide);
    return st;
  };
}

template <typename T>
void OptionSet::Enum(const std::string& key, T* dst, std::vector<std::pair<std::string, T>> names) {
  std::vector<std::string> words, shown;
  for (size_t i = 0; i < names.size(); ++i) {
    words.push_back(names[i].first);
    bool first = true;
    for (size_t j = 0; j < i; ++j) first = first && !(names[j].second == names[i].second);
    if (first) shown.push_back(names[i].first);
  }
  parsers_[key] = [dst, names, words, shown](const std::string& v) {
    size_t i = 0;
    Status st = ParseWord(v, words, shown, &i);
    if (st.ok()) *dst = names[i].second;
    return st;
  };
}

}  // namespace ssa

#endif
