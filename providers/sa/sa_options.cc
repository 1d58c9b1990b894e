// sa_options.cc: parsing of the sa provider's options (see sa_options.h).
#include "providers/sa/sa_options.h"

#include <strings.h>

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

// Keys of upstream ibacm's ibacm_opts.cfg that belong to acmp; with the
// core's keys, never ours and never worth a warning.
const char* const kAcmpKeys[] = {
    "addr_prot",     "addr_timeout", "route_prot", "loopback_prot", "timeout",  "retries",
    "resolve_depth", "send_depth",   "recv_depth", "min_mtu",       "min_rate",
};

int WorkOutShared(const std::vector<RawOption>& entries) {
  return provider_shared::FromUpstreamFile(entries, SaOptionsReader::IsForeignUpstreamKey) ? 1 : 0;
}

}  // namespace

SaOptions::SaOptions()
    : addr_data_file(SYSCONF_DIR "/ibacm_hosts.data"),
      route_data_file(SYSCONF_DIR "/ibacm_route.data") {}

uint64_t SaOptions::RouteLifetimeMs() const {
  if (route_timeout_min < 0) return UINT64_MAX;
  return static_cast<uint64_t>(route_timeout_min) * 60 * 1000;
}

bool SaOptionsReader::IsForeignUpstreamKey(const std::string& key) {
  if (provider_shared::IsCoreOptionKey(key)) return true;
  for (const char* k : kAcmpKeys)
    if (key == k) return true;
  return false;
}

void SaOptionsReader::Apply(const std::vector<RawOption>& entries, int shared_file, SaOptions* out,
                            std::vector<OptionNote>* notes) {
  bool shared = shared_file < 0 ? WorkOutShared(entries) != 0 : shared_file != 0;
  for (const auto& e : entries) {
    std::string bad;  // non-empty: the value was rejected, this says why
    const std::string& v = e.value;
    int64_t n = 0;
    if (e.key == "addr_preload") {
      if (!strcasecmp(v.c_str(), "none") || !strcasecmp(v.c_str(), "no"))
        out->addr_preload = SaOptions::AddrPreload::kNone;
      else if (!strcasecmp(v.c_str(), "acm_hosts"))
        out->addr_preload = SaOptions::AddrPreload::kAcmHosts;
      else
        bad = "addr_preload: '" + v + "' is not none or acm_hosts";
    } else if (e.key == "route_preload") {
      if (!strcasecmp(v.c_str(), "none") || !strcasecmp(v.c_str(), "no"))
        out->route_preload = SaOptions::RoutePreload::kNone;
      else if (!strcasecmp(v.c_str(), "opensm_full_v1"))
        out->route_preload = SaOptions::RoutePreload::kOpensmFullV1;
      else
        bad = "route_preload: '" + v + "' is not none or opensm_full_v1";
    } else if (e.key == "addr_data_file" || e.key == "route_data_file") {
      if (v.empty())
        bad = e.key + ": empty path";
      else
        (e.key == "addr_data_file" ? out->addr_data_file : out->route_data_file) = v;
    } else if (e.key == "route_timeout") {
      Status st = OptionSet::ParseInt(v, -1, kMaxRouteTimeoutMin, &n);
      if (st.ok())
        out->route_timeout_min = static_cast<int>(n);
      else
        bad = "route_timeout (minutes, -1 = never): " + st.message();
    } else if (e.key == "cache_size") {
      Status st = OptionSet::ParseInt(v, 0, kMaxCacheSize, &n);
      if (st.ok())
        out->cache_size = static_cast<size_t>(n);
      else
        bad = "cache_size (entries): " + st.message();
    } else if (e.key == "negative_timeout_ms") {
      Status st = OptionSet::ParseInt(v, 0, kMaxNegativeTimeoutMs, &n);
      if (st.ok())
        out->negative_timeout_ms = static_cast<uint32_t>(n);
      else
        bad = "negative_timeout_ms: " + st.message();
    } else {
      if (shared)
        notes->push_back(
            {false, e.file, e.line, "option '" + e.key + "' is not the sa provider's"});
      else if (IsForeignUpstreamKey(e.key))
        notes->push_back(
            {true, e.file, e.line, "'" + e.key + "' is not an sa option (a [core] one?)"});
      else
        notes->push_back({true, e.file, e.line, "unknown option '" + e.key + "'"});
      continue;
    }
    if (!bad.empty()) notes->push_back({true, e.file, e.line, bad + "; default kept"});
  }
}

}  // namespace sa
}  // namespace ssa
