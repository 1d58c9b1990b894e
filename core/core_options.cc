// core_options.cc: binding of the core's options to OptionSet.
#include "core/core_options.h"

#include <algorithm>

#include "common/base/option_registry.h"
#include "common/base/option_set.h"
#include "core/provider_selector.h"

namespace ssa {

void CoreOptions::Bind(OptionSet* set) {
  OptionSet& opts = *set;
  opts.String("log_file", &log_file);
  opts.Choice("log_level", &log_level, {"0", "1", "2", "error", "warn", "info", "debug", "trace"});
  opts.String("lock_file", &lock_file);
  opts.Int("server_port", &server_port, 1, 65535);
  opts.Choice("server_mode", &server_mode, {"unix", "loop", "open"});
  opts.Bool("acme_plus_kernel_only", &acme_plus_kernel_only);
  opts.String("provider_lib_path", &provider_lib_path);
  opts.Bool("support_ips_in_addr_cfg", &support_ips_in_addr_cfg);
  opts.Int("timeout", &timeout_ms, 1, 3600 * 1000);
  opts.Int("retries", &retries, 0, 100);
  opts.Int("sa_depth", &sa_depth, 1, 100);
  opts.Int("umad_debug_level", &umad_debug_level, 0, 10);
  opts.Custom(
      "provider",
      [this](const std::string& v) {
        // The syntax now, with the line; the names once providers are loaded.
        ProviderSelector probe;
        Status st = probe.AddRule(v);
        if (st.ok()) provider_rules.push_back({v, ""});
        return st;
      },
      [this] {
        std::string rules;
        for (const ProviderRuleLine& r : provider_rules)
          rules += (rules.empty() ? "" : ", ") + r.value;
        return rules;
      });
  opts.String("unix_socket", &unix_socket_path);
  opts.String("port_file", &port_file);
  opts.Int("port_poll_ms", &port_poll_ms, 100, 3600 * 1000);
  opts.Int("max_clients", &max_clients, 0, 10000000);
  opts.Int("client_timeout_ms", &client_timeout_ms, 0, 3600 * 1000);
  opts.Int("client_read_budget", &client_read_budget, 1, 65536);
  opts.Int("client_max_inflight", &client_max_inflight, 1, 65536);
  opts.String("addr_file", &addr_file);
  opts.Bool("kernel_path_service", &kernel_path_service);
  // The kernel clamps SET_TIMEOUT to 100..200000 ms.
  opts.Int("kernel_path_timeout", &kernel_path_timeout_ms, 100, 200000);
  opts.Bool("addr_watch", &addr_watch);
  opts.String("metrics_file", &metrics_file);
  opts.Int("metrics_interval", &metrics_interval_s, 1, 3600);
}

std::vector<OptionNote> CoreOptions::Read(const ConfigFile& cfg, OptionSet* set) {
  const bool upstream = cfg.format() == ConfigFile::Format::kUpstream;
  // INI: keys before any section are treated as [core] too.
  std::vector<ConfigEntry> entries = cfg.Section("");
  if (!upstream)
    for (const auto& e : cfg.Section("core")) entries.push_back(e);
  const bool bridge_in_use = cfg.Find(upstream ? "" : "upstream", "upstream_provider") != nullptr;
  OptionSet::UnknownKey unknown = [&](const ConfigEntry& e, const std::string& file) {
    std::optional<OptionNote> note;
    if (upstream) {
      const std::vector<std::string> all = option_registry::AllKeys();
      bool someones = std::binary_search(all.begin(), all.end(), e.key);
      if (!someones && !bridge_in_use) note = set->UnknownKeyNote(e, file, all);
      return note;
    }
    std::string elsewhere = option_registry::BelongsElsewhere(e.key, "core");
    if (elsewhere.empty()) return std::optional<OptionNote>(set->UnknownKeyNote(e, file));
    note = OptionNote{OptionNote::Severity::kError, file, e.line, elsewhere};
    return note;
  };
  const size_t rules_before = provider_rules.size();
  std::vector<OptionNote> notes = set->Read(entries, cfg.name(), unknown);
  // The rules the set took, in file order: each gets its line.
  size_t next = rules_before;
  for (const ConfigEntry& e : entries)
    if (e.key == "provider" && next < provider_rules.size() &&
        provider_rules[next].value == e.value)
      provider_rules[next++].where = cfg.name() + ":" + std::to_string(e.line);
  return notes;
}

std::vector<std::string> CoreOptions::Apply(const ConfigFile& cfg) {
  OptionSet set;
  Bind(&set);
  return NoteTexts(Read(cfg, &set));
}

void CoreOptions::UseRunDir(const std::string& dir) {
  run_dir = dir;
  unix_socket_path = dir + "/ibacm-unix.sock";
  unix_socket_link = dir + "/ibacm.sock";
  port_file = dir + "/ibacm-tcp.port";
  port_file_link = dir + "/ibacm.port";
  lock_file = dir + "/ibacm.pid";
}

}  // namespace ssa
