// provider_options.cc: see provider_options.h.
#include "providers/shared/provider_options.h"

#include <fstream>
#include <sstream>

#include "common/base/config_file.h"

namespace ssa {
namespace provider_shared {

namespace {
const char* const kCoreKeys[] = {
    "log_file",
    "log_level",
    "lock_file",
    "provider_lib_path",
    "provider",
    "server_port",
    "server_mode",
    "acme_plus_kernel_only",
    "support_ips_in_addr_cfg",
    "umad_debug_level",
    "sa_depth",
    "route_data_dir",
    "unix_socket",
    "port_file",
    "port_poll_ms",
    "max_clients",
    "addr_file",
    "client_timeout_ms",
};
}  // namespace

int CollectOption(void* arg, const char* key, const char* value, const char* file, int line) {
  auto* out = static_cast<std::vector<RawOption>*>(arg);
  out->push_back({key ? key : "", value ? value : "", file ? file : "?", line});
  return 0;
}

bool IsCoreOptionKey(const std::string& key) {
  for (const char* k : kCoreKeys)
    if (key == k) return true;
  return false;
}

bool FromUpstreamFile(const std::vector<RawOption>& entries,
                      const std::function<bool(const std::string&)>& is_foreign) {
  if (entries.empty()) return false;
  std::ifstream in(entries.front().file, std::ios::binary);
  if (in) {
    std::ostringstream text;
    text << in.rdbuf();
    return ConfigFile::LooksUpstream(text.str());
  }
  for (const auto& e : entries)
    if (is_foreign(e.key)) return true;
  return false;
}

}  // namespace provider_shared
}  // namespace ssa
