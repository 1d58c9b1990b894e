// sa_options.h: the sa provider's options ([sa] section of acm_opts.cfg,
// or the matching lines of an upstream ibacm_opts.cfg), with upstream
// ibacm's names and defaults where upstream has the option.
//
//   addr_preload        none | acm_hosts         (upstream; default none)
//   addr_data_file      path                     (upstream; SYSCONF_DIR/ibacm_hosts.data)
//   route_preload       none | opensm_full_v1    (upstream; default none)
//   route_data_file     path                     (upstream; SYSCONF_DIR/ibacm_route.data)
//   route_timeout       minutes a path stays cached; -1 never expires
//                       (upstream; default -1); 0 keeps nothing
//   cache_size          most cached (endpoint, destination) entries (65536)
//   negative_timeout_ms how long a failed lookup is remembered (5000; 0 off)
//
// Which keys to complain about: in our INI format the provider sees only
// its own section, so an unknown key is a mistake (config_warn). An
// upstream-format file has no sections and every provider sees every line,
// so unknown keys there belong to someone else and are only logged at
// debug level. SaOptionsReader tells the two apart the way the core does
// (ConfigFile::LooksUpstream on the file the entries came from); if that
// file cannot be read it falls back to a hint: a key only upstream's core
// or acmp use means the file is shared.
//
// Plain values; one thread at a time.
#ifndef IBACM_SSA_PROVIDERS_SA_SA_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SA_SA_OPTIONS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "providers/shared/provider_options.h"

namespace ssa {
namespace sa {

struct SaOptions {
  enum class AddrPreload { kNone, kAcmHosts };
  enum class RoutePreload { kNone, kOpensmFullV1 };

  AddrPreload addr_preload = AddrPreload::kNone;
  std::string addr_data_file;  // default set by the constructor
  RoutePreload route_preload = RoutePreload::kNone;
  std::string route_data_file;
  int route_timeout_min = -1;
  size_t cache_size = 65536;
  uint32_t negative_timeout_ms = 5000;

  SaOptions();
  // How long a path answer stays cached (UINT64_MAX: forever).
  uint64_t RouteLifetimeMs() const;
};

// One key = value as config_foreach hands it over.
using RawOption = provider_shared::RawOption;

// What applying the options has to say.
struct OptionNote {
  bool warning = false;  // true: config_warn; false: a debug log line
  std::string file;
  int line = 0;
  std::string text;
};

class SaOptionsReader {
 public:
  // Applies `entries` in order to `out`; bad values keep the default.
  // `shared_file`: the entries come from an upstream-format file (see above);
  // pass -1 to have it worked out from the entries' file.
  static void Apply(const std::vector<RawOption>& entries, int shared_file, SaOptions* out,
                    std::vector<OptionNote>* notes);
  // True for keys upstream's core or acmp provider read and we do not.
  static bool IsForeignUpstreamKey(const std::string& key);
};

}  // namespace sa
}  // namespace ssa

#endif
