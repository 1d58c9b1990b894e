// config_file.h: reading configuration files into (section, key, value, line)
// entries.
//
// Two formats are accepted and told apart by their content:
//   - INI (our acm_opts.cfg): "[section]" headers and "key = value" lines,
//     parsed with inih;
//   - upstream ibacm's ibacm_opts.cfg: "name value" lines, '#' comments, no
//     sections. Its entries all land in section "" (the core's), so a daemon
//     started with an unchanged upstream file behaves as upstream did.
// A ConfigFile is a plain value; it is read once at start-up on one thread.
#ifndef IBACM_SSA_COMMON_BASE_CONFIG_FILE_H
#define IBACM_SSA_COMMON_BASE_CONFIG_FILE_H

#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {

struct ConfigEntry {
  std::string section;  // "" for keys before any [section] and for upstream files
  std::string key;
  std::string value;
  int line = 0;  // 1-based line number in the file
};

class ConfigFile {
 public:
  enum class Format { kIni, kUpstream };

  // Reads and parses `path`. A syntax error names the file and line.
  static Status Load(const std::string& path, ConfigFile* out);
  // Parses `text`; `name` is used in messages (usually the path).
  static Status Parse(const std::string& text, const std::string& name, ConfigFile* out);
  // True when `text` looks like an upstream "name value" file: no [section]
  // and no line whose name is followed by '=' (or ':'); '=' further on, in
  // a value, does not count.
  static bool LooksUpstream(const std::string& text);

  Format format() const { return format_; }
  const std::string& name() const { return name_; }
  const std::vector<ConfigEntry>& entries() const { return entries_; }
  // The entries of one section, in file order.
  std::vector<ConfigEntry> Section(const std::string& section) const;
  // The last entry for (section, key), or nullptr.
  const ConfigEntry* Find(const std::string& section, const std::string& key) const;
  // Names of all sections that have entries, in first-seen order.
  std::vector<std::string> SectionNames() const;

 private:
  static Status ParseIni(const std::string& text, ConfigFile* out);
  static Status ParseUpstream(const std::string& text, ConfigFile* out);

  Format format_ = Format::kIni;
  std::string name_;
  std::vector<ConfigEntry> entries_;
};

}  // namespace ssa

#endif
