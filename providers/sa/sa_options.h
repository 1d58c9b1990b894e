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
// Read through providers/shared/provider_options.h, which says what is
// reported about bad values and keys that are not these.
//
// Plain values; one thread at a time.
#ifndef IBACM_SSA_PROVIDERS_SA_SA_OPTIONS_H
#define IBACM_SSA_PROVIDERS_SA_SA_OPTIONS_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace ssa {

class OptionSet;

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
  // Binds the keys above to these members.
  void Bind(OptionSet* set);
  // How long a path answer stays cached (UINT64_MAX: forever).
  uint64_t RouteLifetimeMs() const;
};

}  // namespace sa
}  // namespace ssa

#endif
