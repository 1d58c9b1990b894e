// core_options.cc: binding of the core's options to OptionSet.
#include "core/core_options.h"

#include "common/base/option_set.h"

namespace ssa {

void CoreOptions::Bind(OptionSet* set) {
  OptionSet& opts = *set;
  opts.String("log_file", &log_file);
  opts.Custom("log_level", [this](const std::string& v) {
    static const char* const kLevels[] = {"0", "1", "2", "error", "warn", "info", "debug", "trace"};
    for (const char* l : kLevels)
      if (v == l) {
        log_level = v;
        return Status::Ok();
      }
    return Status::Error(EINVAL, "'" + v + "' is not 0, 1, 2 or error|warn|info|debug|trace");
  });
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
  opts.Custom("provider", [this](const std::string& v) {
    if (v.empty()) return Status::Error(EINVAL, "empty provider rule");
    provider_rules.push_back(v);
    return Status::Ok();
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

std::vector<std::string> CoreOptions::Apply(const ConfigFile& cfg) {
  OptionSet opts;
  Bind(&opts);
  if (cfg.format() == ConfigFile::Format::kUpstream)
    return opts.ApplyKnown(cfg.Section(""), cfg.name());
  // INI: keys before any section are treated as [core] too.
  std::vector<ConfigEntry> entries = cfg.Section("");
  for (const auto& e : cfg.Section("core")) entries.push_back(e);
  return opts.Apply(entries, cfg.name());
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
