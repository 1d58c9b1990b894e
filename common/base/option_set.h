// option_set.h: binds the keys of one config section to typed variables:
// the one way the core, ibssa, the OpenSM plugin and the providers read
// their options.
//
// Each daemon or provider declares the options it understands, then reads
// the entries of its section. An unknown key or a bad value becomes an
// error note naming the file and line, the allowed values and, for a
// mistyped name, the nearest known one (common/base/nearest_word.h); the
// readers refuse to start on any (a typo must not become another
// behaviour). Words chosen from a list (enumerations, booleans) are
// matched without regard to case, as upstream ibacm does.
//
// The set also remembers, for each key, its effective value as text and
// where that came from ("default", "file:line", or what the reader says,
// e.g. "command line -R"): what --check-config prints (Values()).
// Single-threaded; the bound variables must outlive the set.
#ifndef IBACM_SSA_COMMON_BASE_OPTION_SET_H
#define IBACM_SSA_COMMON_BASE_OPTION_SET_H

#include <cstdint>
#include <cstdio>
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
    kError,  // a mistake to fix: a bad value, an unknown or misplaced key
    kDebug,  // worth a debug line only (another reader's key in a shared file)
  };
  Severity severity = Severity::kError;
  std::string file;
  int line = 0;
  std::string text;  // what is wrong: "bad value for 'k': ..."

  bool error() const { return severity == Severity::kError; }
  // "file:line: " + text.
  std::string ToString() const;
};

// One option's effective value and where it came from, for --check-config.
struct OptionValue {
  std::string key;
  std::string value;   // as the file would spell it; "" for an empty one
  std::string source;  // "default", "file:line", "command line ..."
};

// "[section]" and one "key = value   # source" line per option: how every
// --check-config prints what it read.
void PrintOptionValues(FILE* out, const std::string& section,
                       const std::vector<OptionValue>& values);
// How every --check-config ends: on error "<program>: <message>" on stderr
// and "# errors: <consequence>" on `out`, exit status 1; else "# no
// errors", 0.
int FinishCheck(FILE* out, const std::string& program, const Status& st,
                const std::string& consequence);
// The notes as "file:line: text" strings.
std::vector<std::string> NoteTexts(const std::vector<OptionNote>& notes);
// OK without errors; else EINVAL with one error a line: what a daemon's
// start fails with (every mistake at once, not the first only).
Status OptionErrors(const std::vector<std::string>& errors);

class OptionSet {
 public:
  // Parses one value; a non-OK Status becomes the note's text.
  using Parser = std::function<Status(const std::string& value)>;
  // The bound variable's value as text.
  using Show = std::function<std::string()>;
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
  // Anything else, e.g. keys that may repeat (upstream "provider" lines);
  // `show` gives the value as text.
  void Custom(const std::string& key, Parser parser, Show show);

  bool Knows(const std::string& key) const { return options_.count(key) != 0; }
  // Every key bound, sorted.
  std::vector<std::string> Keys() const;

  // Reads `entries` (from ConfigFile::Section) in order, each from `file`;
  // an entry whose key nobody bound is passed to `unknown`.
  std::vector<OptionNote> Read(const std::vector<ConfigEntry>& entries, const std::string& file,
                               const UnknownKey& unknown);
  // The same, an unknown key being an error that names the nearest bound
  // key (UnknownKeyNote).
  std::vector<OptionNote> Read(const std::vector<ConfigEntry>& entries, const std::string& file);
  // "unknown option 'k' in [section]; did you mean 'x'?" (the nearest
  // of the bound keys and `more`, e.g. other readers' keys).
  OptionNote UnknownKeyNote(const ConfigEntry& entry, const std::string& file,
                            const std::vector<std::string>& more = {}) const;
  // Says nothing (several readers sharing an upstream-format file).
  static std::optional<OptionNote> SkipUnknown(const ConfigEntry&, const std::string&) {
    return std::nullopt;
  }

  // Every bound key's value and source, sorted by key.
  std::vector<OptionValue> Values() const;
  // Records that the reader set `key` itself (e.g. "command line -R").
  void SetSource(const std::string& key, const std::string& source);

  static Status ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out);
  static Status ParseBool(const std::string& text, bool* out);
  // The index of `text` in `words`, case-insensitively; an error listing
  // `shown` (words when empty) and the nearest of them otherwise.
  static Status ParseWord(const std::string& text, const std::vector<std::string>& words,
                          const std::vector<std::string>& shown, size_t* index);

 private:
  struct Bound {
    Parser parse;
    Show show;
    std::string source = "default";
  };
  void Bind(const std::string& key, Parser parse, Show show);

  std::map<std::string, Bound> options_;
};

template <typename T>
void OptionSet::Int(const std::string& key, T* dst, int64_t min, int64_t max) {
  Bind(
      key,
      [dst, min, max](const std::string& v) {
        int64_t wide = 0;
        Status st = ParseInt(v, min, max, &wide);
        if (st.ok()) *dst = static_cast<T>(wide);
        return st;
      },
      [dst] { return std::to_string(static_cast<int64_t>(*dst)); });
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
  Bind(
      key,
      [dst, names, words, shown](const std::string& v) {
        size_t i = 0;
        Status st = ParseWord(v, words, shown, &i);
        if (st.ok()) *dst = names[i].second;
        return st;
      },
      [dst, names] {
        for (const auto& n : names)
          if (n.second == *dst) return n.first;
        return std::string("?");
      });
}

}  // namespace ssa

#endif
