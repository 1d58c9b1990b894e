// option_registry.cc: see option_registry.h. Keep each list in step with
// what the reader binds (the unit test fails otherwise).
#include "common/base/option_registry.h"

#include <algorithm>

#include "common/base/nearest_word.h"

namespace ssa {
namespace option_registry {

namespace {

struct Reader {
  std::string name;
  std::vector<std::string> keys;
  std::string embeds;  // a reader whose keys this section holds too
};

const std::vector<Reader>& Table() {
  static const std::vector<Reader> table = [] {
    std::vector<Reader> t = {
        {"core",
         {// upstream ibacm's core options
          "log_file", "log_level", "lock_file", "server_port", "server_mode",
          "acme_plus_kernel_only", "provider_lib_path", "support_ips_in_addr_cfg", "timeout",
          "retries", "sa_depth", "umad_debug_level", "provider",
          // ours
          "unix_socket", "port_file", "port_poll_ms", "max_clients", "client_timeout_ms",
          "client_read_budget", "client_max_inflight", "addr_file", "kernel_path_service",
          "kernel_path_timeout", "addr_watch", "metrics_file", "metrics_interval"},
         ""},
        {"sa",
         {"addr_preload", "addr_data_file", "route_preload", "route_data_file", "route_timeout",
          "cache_size", "negative_timeout_ms"},
         ""},
        {"acmp",
         {// upstream's acmp options
          "addr_prot", "addr_timeout", "route_prot", "route_timeout", "loopback_prot", "timeout",
          "retries", "resolve_depth", "send_depth", "recv_depth", "min_mtu", "min_rate",
          "route_preload", "route_data_file", "addr_preload", "addr_data_file",
          // ours
          "transport", "sim_dir", "extra_groups", "cache_size", "stats_interval",
          "fault_drop_percent", "fault_delay_ms", "fault_seed"},
         ""},
        {"ssa",
         {"fallback", "transport", "mad_timeout_ms", "mad_retries", "stale_after_s",
          "fallback_jitter_s", "fallback_sa_rate", "fallback_sa_burst", "fallback_wait_ms"},
         "sa"},
        {"upstream", {"upstream_provider", "upstream_provider_dir", "require_verbs"}, ""},
    };
    for (Reader& r : t) std::sort(r.keys.begin(), r.keys.end());
    return t;
  }();
  return table;
}

bool Reads(const std::string& reader, const std::string& key) {
  const std::vector<std::string>& keys = KeysOf(reader);
  return std::binary_search(keys.begin(), keys.end(), key);
}

}  // namespace

const std::vector<std::string>& Readers() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Reader& r : Table()) n.push_back(r.name);
    return n;
  }();
  return names;
}

const std::vector<std::string>& KeysOf(const std::string& reader) {
  static const std::vector<std::string> none;
  for (const Reader& r : Table())
    if (r.name == reader) return r.keys;
  return none;
}

std::vector<std::string> SectionsOf(const std::string& key) {
  std::vector<std::string> sections;
  for (const Reader& r : Table())
    if (Reads(r.name, key) || (!r.embeds.empty() && Reads(r.embeds, key)))
      sections.push_back(r.name);
  return sections;
}

std::string SectionList(const std::vector<std::string>& sections) {
  std::vector<std::string> bracketed;
  for (const std::string& s : sections) bracketed.push_back("[" + s + "]");
  return WordList(bracketed);
}

std::string BelongsElsewhere(const std::string& key, const std::string& section) {
  std::vector<std::string> others;
  for (const std::string& s : SectionsOf(key))
    if (s != section) others.push_back(s);
  if (others.empty()) return "";
  return "option '" + key + "' belongs in " + SectionList(others) + ", not [" + section + "]";
}

std::vector<std::string> AllKeys() {
  std::vector<std::string> keys;
  for (const Reader& r : Table()) keys.insert(keys.end(), r.keys.begin(), r.keys.end());
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

}  // namespace option_registry
}  // namespace ssa
