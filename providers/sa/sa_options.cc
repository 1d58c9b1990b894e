// sa_options.cc: the sa provider's options (see sa_options.h).
#include "providers/sa/sa_options.h"

#include "common/base/option_set.h"

#ifndef SYSCONF_DIR
#define SYSCONF_DIR "/etc/rdma"
#endif

namespace ssa {
namespace sa {

namespace {

// Longest route_timeout accepted: ten years of minutes (keeps the
// millisecond arithmetic far from overflow).
constexpr int64_t kMaxRouteTimeoutMin = 10LL * 366 * 24 * 60;
constexpr int64_t kMaxCacheSize = 100000000;
constexpr int64_t kMaxNegativeTimeoutMs = 3600LL * 1000;

}  // namespace

SaOptions::SaOptions()
    : addr_data_file(SYSCONF_DIR "/ibacm_hosts.data"),
      route_data_file(SYSCONF_DIR "/ibacm_route.data") {}

void SaOptions::Bind(OptionSet* set) {
  set->Enum<AddrPreload>("addr_preload", &addr_preload,
                         {{"none", AddrPreload::kNone},
                          {"no", AddrPreload::kNone},
                          {"acm_hosts", AddrPreload::kAcmHosts}});
  set->Enum<RoutePreload>("route_preload", &route_preload,
                          {{"none", RoutePreload::kNone},
                           {"no", RoutePreload::kNone},
                           {"opensm_full_v1", RoutePreload::kOpensmFullV1}});
  set->Path("addr_data_file", &addr_data_file);
  set->Path("route_data_file", &route_data_file);
  set->Int("route_timeout", &route_timeout_min, -1, kMaxRouteTimeoutMin);
  set->Int("cache_size", &cache_size, 0, kMaxCacheSize);
  set->Int("negative_timeout_ms", &negative_timeout_ms, 0, kMaxNegativeTimeoutMs);
}

uint64_t SaOptions::RouteLifetimeMs() const {
  if (route_timeout_min < 0) return UINT64_MAX;
  return static_cast<uint64_t>(route_timeout_min) * 60 * 1000;
}

}  // namespace sa
}  // namespace ssa
