// ibssa_options.cc: see ibssa_options.h.
#include "distrib/ibssa_options.h"

#include <sstream>

#include "common/base/nearest_word.h"
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
      return Status::Error(EINVAL, "'" + word +
                                       "' is not distribution, access or distribution,access" +
                                       DidYouMean(word, {"distribution", "access"}));
  }
  if (r == 0)
    return Status::Error(EINVAL,
                         "empty role: expected distribution, access or distribution,access");
  *roles = r;
  return Status::Ok();
}

std::string IbssaOptions::RolesName(unsigned roles) {
  std::string s;
  if (roles & kRoleDistribution) s = "distribution";
  if (roles & kRoleAccess) s += s.empty() ? "access" : ",access";
  return s;
}

void IbssaOptions::Bind(OptionSet* set) {
  set->Custom(
      "role", [this](const std::string& v) { return ParseRoles(v, &roles); },
      [this] { return RolesName(roles); });
  set->String("listen", &listen);
  set->String("announce", &announce);
  set->Choice("transport", &transport, {"tcp", "rsocket"});
  set->String("port", &port);
  set->String("log_file", &log_file);
  set->Enum<LogLevel>("log_level", &log_level, LogLevelWords());
  set->String("lock_file", &lock_file);
  set->Int("max_children", &max_children, 1, 1000000);
  set->Int("prdb_threads", &prdb_threads, 1, 256);
  set->Int("prdb_route_table_mb", &prdb_route_table_mb, 0, 16384);
  set->Bool("prefix_rows", &prefix_rows);
  set->Int("join_timeout_ms", &join_timeout_ms, 10, 600000);
  set->Int("join_retries", &join_retries, 0, 100);
  set->String("metrics_file", &metrics_file);
  set->Int("metrics_interval", &metrics_interval_s, 1, 3600);
  set->String("data_faults", &data_faults);
  set->String("mad_faults", &mad_faults);
}

std::vector<OptionNote> IbssaOptions::Read(const ConfigFile& cfg, OptionSet* set) {
  std::vector<OptionNote> notes;
  for (const std::string& section : cfg.SectionNames()) {
    if (section != "" && section != "ibssa") {
      // The first entry's line is where the section is in use.
      int line = cfg.Section(section).front().line;
      notes.push_back({OptionNote::Severity::kError, cfg.name(), line,
                       "unknown section [" + section +
                           "] (options go before any section or in "
                           "[ibssa])" +
                           DidYouMean(section, {"ibssa"})});
      continue;
    }
    std::vector<OptionNote> n = set->Read(cfg.Section(section), cfg.name());
    notes.insert(notes.end(), n.begin(), n.end());
  }
  return notes;
}

std::vector<std::string> IbssaOptions::Apply(const ConfigFile& cfg) {
  OptionSet set;
  Bind(&set);
  return NoteTexts(Read(cfg, &set));
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
  if (!prefix_rows) s << " prefix_rows=no";
  if (!data_faults.empty()) s << " data_faults=" << data_faults;
  if (!mad_faults.empty()) s << " mad_faults=" << mad_faults;
  return s.str();
}

}  // namespace distrib
}  // namespace ssa
