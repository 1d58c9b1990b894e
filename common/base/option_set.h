// option_set.h: binds the keys of one config section to typed variables.
//
// Each daemon or provider declares the options it understands, then applies
// the entries of its section. Unknown keys and bad values never abort: each
// one becomes a warning naming the file and line, and the variable keeps its
// default. Single-threaded; the bound variables must outlive Apply().
#ifndef IBACM_SSA_COMMON_BASE_OPTION_SET_H
#define IBACM_SSA_COMMON_BASE_OPTION_SET_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/status.h"

namespace ssa {

class OptionSet {
 public:
  // Parses one value; a non-OK Status becomes the warning text.
  using Parser = std::function<Status(const std::string& value)>;

  void String(const std::string& key, std::string* dst);
  void Int(const std::string& key, int64_t* dst, int64_t min, int64_t max);
  void Int(const std::string& key, int* dst, int min, int max);
  // yes/no, true/false, on/off, 1/0.
  void Bool(const std::string& key, bool* dst);
  // One of `allowed`, stored as given.
  void Choice(const std::string& key, std::string* dst, std::vector<std::string> allowed);
  // Anything else, e.g. keys that may repeat (upstream "provider" lines).
  void Custom(const std::string& key, Parser parser);

  bool Knows(const std::string& key) const { return parsers_.count(key) != 0; }

  // Applies `entries` (from ConfigFile::Section) in order; returns the
  // warnings, each "file:line: ...".
  std::vector<std::string> Apply(const std::vector<ConfigEntry>& entries,
                                 const std::string& file_name) const;
  // Like Apply, but unknown keys are skipped silently (used when several
  // readers share one upstream-format file).
  std::vector<std::string> ApplyKnown(const std::vector<ConfigEntry>& entries,
                                      const std::string& file_name) const;

  static Status ParseInt(const std::string& text, int64_t min, int64_t max, int64_t* out);
  static Status ParseBool(const std::string& text, bool* out);

 private:
  std::vector<std::string> ApplyImpl(const std::vector<ConfigEntry>& entries,
                                     const std::string& file_name, bool warn_unknown) const;
  std::map<std::string, Parser> parsers_;
};

}  // namespace ssa

#endif
