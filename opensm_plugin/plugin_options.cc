// plugin_options.cc: parsing the plugin's options (see plugin_options.h).
#include "opensm_plugin/plugin_options.h"
#include "common/base/text_util.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/option_set.h"

namespace ssa {
namespace opensm_plugin {
namespace {

void Bind(OptionSet* set, PluginOptions* o) {
  set->String("dump_dir", &o->dump_dir);
  set->Custom(
      "log_file",
      [o](const std::string& v) {
        // syslog would call openlog() inside OpenSM and change its identity.
        if (v.empty() || v == "syslog" || v == "stdout")
          return Status::Error(EINVAL, "expected a file path, \"stderr\" or \"none\"");
        o->log_file = v;
        o->log_file_given = true;
        return Status::Ok();
      },
      [o] { return o->log_file; });
  set->Enum<LogLevel>("log_level", &o->log_level, LogLevelWords());
  set->Int("keep", &o->keep, 0, 1000000);
  set->Int("settle_ms", &o->settle_ms, 0, 600000);
  set->Bool("write_deltas", &o->write_deltas);
  set->Bool("dump_text", &o->dump_text);
  set->Bool("core", &o->core);
  set->String("listen", &o->listen);
  set->String("announce", &o->announce);
  set->Choice("transport", &o->transport, {"tcp", "rsocket"});
  set->Int("lease_s", &o->lease_s, 3, 86400);
  set->Int("fanout_core", &o->fanout_core, 1, 100000);
  set->Int("fanout_distribution", &o->fanout_distribution, 1, 100000);
  set->Int("fanout_access", &o->fanout_access, 1, 1000000);
  set->String("allow_distribution", &o->allow_distribution);
  set->String("allow_access", &o->allow_access);
  set->String("hosts_file", &o->hosts_file);
  set->String("federation_file", &o->federation_file);
  set->String("tree_state_file", &o->tree_state_file);
  set->String("metrics_file", &o->metrics_file);
  set->Int("metrics_interval", &o->metrics_interval, 1, 3600);
  set->Int("route_sl_max_calls", &o->route_sl_max_calls, 0, 2000000000);
  set->Int("route_sl_max_rows", &o->route_sl_max_rows, 0, 100000000);
  set->Int("route_sl_smdb_rows", &o->route_sl_smdb_rows, 0, 100000000);
  set->String("data_faults", &o->data_faults);
  set->String("mad_faults", &o->mad_faults);
}

// Applies entries through `set` (bound to the options); the first
// complaint becomes the error.
Status Apply(const std::vector<ConfigEntry>& entries, const std::string& where, OptionSet* set) {
  std::vector<OptionNote> notes = set->Read(entries, where);
  if (notes.empty()) return Status::Ok();
  return Status::Error(EINVAL, notes.front().ToString());
}

Status ReadConfigFile(const std::string& path, std::vector<ConfigEntry>* out) {
  std::ifstream in(path);
  if (!in) return Status::FromErrno("cannot open config file " + path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line = Trim(line);
    if (line.empty()) continue;
    size_t split = line.find_first_of("= \t");
    ConfigEntry e;
    e.key = Trim(line.substr(0, split));
    e.value = split == std::string::npos ? "" : Trim(line.substr(split + 1));
    if (!e.value.empty() && e.value[0] == '=') e.value = Trim(e.value.substr(1));
    e.line = number;
    if (e.key == "config")
      return Status::Error(EINVAL,
                           path + ":" + std::to_string(number) + ": config files do not nest");
    out->push_back(e);
  }
  if (in.bad()) return Status::FromErrno("cannot read config file " + path);
  return Status::Ok();
}

}  // namespace

std::string PluginOptions::Describe() const {
  std::ostringstream s;
  s << "dump_dir=" << (dump_dir.empty() ? "(none)" : dump_dir) << " keep=" << keep
    << " log_file=" << log_file << " log_level=" << LogLevelName(log_level)
    << " settle_ms=" << settle_ms << " write_deltas=" << (write_deltas ? 1 : 0)
    << " dump_text=" << (dump_text ? 1 : 0) << " route_sl_max_calls=" << route_sl_max_calls
    << " route_sl_max_rows=" << route_sl_max_rows << " route_sl_smdb_rows=" << route_sl_smdb_rows
    << " core=" << (core ? 1 : 0);
  if (core) {
    s << " listen=" << listen << " transport=" << transport << " lease_s=" << lease_s
      << " fanout_core=" << fanout_core << " fanout_distribution=" << fanout_distribution
      << " fanout_access=" << fanout_access << " allow_distribution=" << allow_distribution
      << " allow_access=" << allow_access;
    if (!announce.empty()) s << " announce=" << announce;
    if (!hosts_file.empty()) s << " hosts_file=" << hosts_file;
    if (!federation_file.empty()) s << " federation_file=" << federation_file;
    if (!metrics_file.empty())
      s << " metrics_file=" << metrics_file << " metrics_interval=" << metrics_interval;
    if (!data_faults.empty()) s << " data_faults=" << data_faults;
    if (!mad_faults.empty()) s << " mad_faults=" << mad_faults;
  }
  if (!config_file.empty()) s << " (config " << config_file << ")";
  return s.str();
}

Status ParsePluginOptions(const std::string& text, PluginOptions* out,
                          std::vector<OptionValue>* values) {
  PluginOptions o;
  OptionSet set;
  Bind(&set, &o);
  std::vector<ConfigEntry> inline_entries;
  std::string word;
  int index = 0;
  std::string normalized = text;
  for (char& c : normalized)
    if (c == ',' || c == '\t' || c == '\n' || c == '\r') c = ' ';
  std::istringstream words(normalized);
  while (words >> word) {
    ++index;
    size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::Error(EINVAL, "event_plugin_options word " + std::to_string(index) + " '" +
                                       word + "': expected key=value");
    ConfigEntry e;
    e.key = word.substr(0, eq);
    e.value = word.substr(eq + 1);
    e.line = index;
    if (e.key == "config") {
      if (!o.config_file.empty())
        return Status::Error(EINVAL, "event_plugin_options: config= given twice");
      if (e.value.empty()) return Status::Error(EINVAL, "event_plugin_options: empty config=");
      o.config_file = e.value;
      continue;
    }
    inline_entries.push_back(e);
  }
  if (!o.config_file.empty()) {
    std::vector<ConfigEntry> file_entries;
    Status st = ReadConfigFile(o.config_file, &file_entries);
    if (!st.ok()) return st;
    st = Apply(file_entries, o.config_file, &set);
    if (!st.ok()) return st;
  }
  // Positions in the string are word numbers: "event_plugin_options:3: ...".
  Status st = Apply(inline_entries, "event_plugin_options", &set);
  if (!st.ok()) return st;
  if (values) *values = set.Values();
  // The core's thread writes the file; without it nothing would.
  if (!o.metrics_file.empty() && !o.core)
    return Status::Error(EINVAL, "metrics_file needs core=1 (the core's thread writes it)");
  if (!o.federation_file.empty() && !o.core)
    return Status::Error(EINVAL, "federation_file needs core=1 (the core links the subnets)");
  *out = o;
  return Status::Ok();
}

}  // namespace opensm_plugin
}  // namespace ssa
