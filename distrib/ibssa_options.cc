// ibssa_options.cc: see ibssa_options.h.
#include "distrib/ibssa_options.h"

#include <sstream>

#include "common/base/option_set.h"
#include "common/base/text_util.h"

namespace ssa {
namespace distrib {

Status IbssaOptions::ParseRoles(const std::string& text, unsigned* roles) {
  unsigned r = 0;
  std::string word;
  std::istringstream in(text);
  while (std::getline(in, word, ',')) {
    word = Trim(word);
    if (word == "distribution")
      r |= kRoleDistribution;
    else if (word == "access")
      r |= kRoleAccess;
    else
      return Status::Error(
          EINVAL, "role '" + word + "': expected distribution, access or distribution,access");
  }
  if (r == 0) return Status::Error(EINVAL, "empty role: expected distribution, access or both");
  *roles = r;
  return Status::Ok();
}

std::string IbssaOptions::RolesName(unsigned roles) {
  std::string s;
  if (roles & kRoleDistribution) s = "distribution";
  if (roles & kRoleAccess) s += s.empty() ? "access" : ",access";
  return s;
}

std::vector<std::string> IbssaOptions::Apply(const ConfigFile& cfg) {
  OptionSet set;
  set.Custom("role", [this](const std::string& v) { return ParseRoles(v, &roles); });
  set.String("listen", &listen);
  set.String("announce", &announce);
  set.Choice("transport", &transport, {"tcp", "rsocket"});
  set.String("port", &port);
  set.String("log_file", &log_file);
  set.Custom("log_level", [this](const std::string& v) {
    if (!ParseLogLevel(v, &log_level))
      return Status::Error(EINVAL, "'" + v + "' is not error, warn, info, debug or trace");
    return Status::Ok();
  });
  set.String("lock_file", &lock_file);
  set.Int("max_children", &max_children, 1, 1000000);
  set.Int("prdb_threads", &prdb_threads, 1, 256);
  set.Int("prdb_route_table_mb", &prdb_route_table_mb, 0, 16384);
  set.Int("join_timeout_ms", &join_timeout_ms, 10, 600000);
  set.Int("join_retries", &join_retries, 0, 100);
  set.String("metrics_file", &metrics_file);
  set.Int("metrics_interval", &metrics_interval_s, 1, 3600);
  set.String("data_faults", &data_faults);
  set.String("mad_faults", &mad_faults);
  std::vector<std::string> warnings;
  for (const std::string& section : cfg.SectionNames()) {
    if (section != "" && section != "ibssa") {
      warnings.push_back(cfg.name() + ": unknown section [" + section + "], ignored");
      continue;
    }
    std::vector<std::string> w = set.Apply(cfg.Section(section), cfg.name());
    warnings.insert(warnings.end(), w.begin(), w.end());
  }
  return warnings;
}

void IbssaOptions::UseRunDir(const std::string& dir) {
  run_dir = dir;
  lock_file = dir + "/ibssa.pid";
}

std::string IbssaOptions::Describe() const {
  std::ostringstream s;
  s << "role=" << RolesName(roles) << " listen=" << listen << " transport=" << transport
    << " port=" << (port.empty() ? "(first active)" : port)
    << " log_level=" << LogLevelName(log_level) << " max_children=" << max_children
    << " prdb_threads=" << prdb_threads << " prdb_route_table_mb=" << prdb_route_table_mb
    << " join_timeout_ms=" << join_timeout_ms << " join_retries=" << join_retries;
  if (!announce.empty()) s << " announce=" << announce;
  if (!run_dir.empty()) s << " run_dir=" << run_dir;
  if (!metrics_file.empty())
    s << " metrics_file=" << metrics_file << " metrics_interval=" << metrics_interval_s;
  if (!data_faults.empty()) s << " data_faults=" << data_faults;
  if (!mad_faults.empty()) s << " mad_faults=" << mad_faults;
  return s.str();
}

}  // namespace distrib
}  // namespace ssa
