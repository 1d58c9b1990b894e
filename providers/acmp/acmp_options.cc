// acmp_options.cc: parsing of the acmp provider's options (acmp_options.h).
#include "providers/acmp/acmp_options.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "common/base/option_set.h"
#include "providers/acmp/acmp_port_info.h"

#ifndef SYSCONF_DIR
#define SYSCONF_DIR "/etc/rdma"
#endif

namespace ssa {
namespace acmp {

namespace {

// Ten years of minutes: keeps the millisecond arithmetic far from overflow.
constexpr int64_t kMaxTimeoutMin = 10LL * 366 * 24 * 60;

// Keys the core (upstream's or ours) or the sa provider read: in an INI
// [acmp] section they are misplaced, in an upstream file they are simply
// someone else's.
bool IsCoreKey(const std::string& key) {
  return provider_shared::IsCoreOptionKey(key) || key == "negative_timeout_ms";
}

bool Is(const std::string& v, const char* word) { return !strcasecmp(v.c_str(), word); }

int WorkOutShared(const std::vector<AcmpRawOption>& entries) {
  return provider_shared::FromUpstreamFile(entries, IsCoreKey) ? 1 : 0;
}

// "40:4096 20:2048" -> groups; false (with *bad) on the first bad pair.
bool ParseGroups(const std::string& text, std::vector<GroupRate>* out, std::string* bad) {
  std::istringstream in(text);
  std::string item;
  std::vector<GroupRate> groups;
  while (in >> item) {
    size_t colon = item.find(':');
    char* end = nullptr;
    double gbps = colon == std::string::npos ? 0 : strtod(item.c_str(), &end);
    long bytes = colon == std::string::npos ? 0 : strtol(item.c_str() + colon + 1, nullptr, 10);
    GroupRate g;
    g.rate = RateCodeFromGbps(gbps);
    g.mtu = MtuCodeFromBytes(bytes);
    if (!g.rate || !g.mtu || end != item.c_str() + colon) {
      *bad = "'" + item + "' is not RATE:MTU (Gb/s:bytes, e.g. 40:4096)";
      return false;
    }
    groups.push_back(g);
  }
  *out = groups;
  return true;
}

}  // namespace

AcmpOptions::AcmpOptions()
    : route_data_file(SYSCONF_DIR "/ibacm_route.data"),
      addr_data_file(SYSCONF_DIR "/ibacm_hosts.data") {}

uint64_t AcmpOptions::AddrLifetimeMs() const {
  return addr_timeout_min < 0 ? kNever : static_cast<uint64_t>(addr_timeout_min) * 60000;
}

uint64_t AcmpOptions::RouteLifetimeMs() const {
  return route_timeout_min < 0 ? kNever : static_cast<uint64_t>(route_timeout_min) * 60000;
}

std::string AcmpOptions::Describe() const {
  char buf[512];
  snprintf(buf, sizeof(buf),
           "route_prot %s, loopback_prot %s, addr_timeout %d min, route_timeout %d min, timeout "
           "%d ms, retries %d, resolve_depth %d, send_depth %d, min_mtu %d, min_rate %.1f Gb/s, "
           "%zu extra groups, addr_preload %s, route_preload %s, transport %s, cache_size %zu, "
           "stats_interval %u s",
           route_prot == RouteProt::kAcm ? "acm" : "sa",
           loopback_prot == LoopbackProt::kLocal ? "local" : "none", addr_timeout_min,
           route_timeout_min, timeout_ms, retries, resolve_depth, send_depth, MtuBytes(min_mtu),
           RateMbps(min_rate) / 1000.0, extra_groups.size(), addr_preload ? "acm_hosts" : "none",
           route_preload ? "opensm_full_v1" : "none",
           transport == Transport::kAuto    ? "auto"
           : transport == Transport::kVerbs ? "verbs"
                                            : "sim",
           cache_size, stats_interval_s);
  return buf;
}

void ApplyAcmpOptions(const std::vector<AcmpRawOption>& entries, int shared_file, AcmpOptions* out,
                      std::vector<AcmpOptionNote>* notes) {
  bool shared = shared_file < 0 ? WorkOutShared(entries) != 0 : shared_file != 0;
  for (const auto& e : entries) {
    const std::string& k = e.key;
    const std::string& v = e.value;
    std::string bad;
    int64_t n = 0;
    auto integer = [&](int64_t min, int64_t max, const char* unit) -> bool {
      Status st = OptionSet::ParseInt(v, min, max, &n);
      if (!st.ok()) bad = k + " (" + unit + "): " + st.message();
      return st.ok();
    };
    if (k == "addr_prot") {
      if (!Is(v, "acm")) bad = "addr_prot: '" + v + "' is not acm (the only address protocol)";
    } else if (k == "addr_timeout") {
      if (integer(-1, kMaxTimeoutMin, "minutes, -1 = never"))
        out->addr_timeout_min = static_cast<int>(n);
    } else if (k == "route_timeout") {
      if (integer(-1, kMaxTimeoutMin, "minutes, -1 = never"))
        out->route_timeout_min = static_cast<int>(n);
    } else if (k == "route_prot") {
      if (Is(v, "acm"))
        out->route_prot = AcmpOptions::RouteProt::kAcm;
      else if (Is(v, "sa"))
        out->route_prot = AcmpOptions::RouteProt::kSa;
      else
        bad = "route_prot: '" + v + "' is not acm or sa";
    } else if (k == "loopback_prot") {
      if (Is(v, "none"))
        out->loopback_prot = AcmpOptions::LoopbackProt::kNone;
      else if (Is(v, "local"))
        out->loopback_prot = AcmpOptions::LoopbackProt::kLocal;
      else
        bad = "loopback_prot: '" + v + "' is not none or local";
    } else if (k == "timeout") {
      if (integer(1, 600000, "ms")) out->timeout_ms = static_cast<int>(n);
    } else if (k == "retries") {
      if (integer(0, 100, "tries after the first")) out->retries = static_cast<int>(n);
    } else if (k == "resolve_depth") {
      if (integer(1, 1024, "requests")) out->resolve_depth = static_cast<int>(n);
    } else if (k == "send_depth") {
      if (integer(1, 1024, "responses")) out->send_depth = static_cast<int>(n);
    } else if (k == "recv_depth") {
      if (integer(1, 65536, "buffers")) out->recv_depth = static_cast<int>(n);
    } else if (k == "min_mtu") {
      uint8_t code = MtuCodeFromBytes(strtol(v.c_str(), nullptr, 10));
      if (code)
        out->min_mtu = code;
      else
        bad = "min_mtu: '" + v + "' is not 256, 512, 1024, 2048 or 4096";
    } else if (k == "min_rate") {
      uint8_t code = RateCodeFromGbps(strtod(v.c_str(), nullptr));
      if (code)
        out->min_rate = code;
      else
        bad = "min_rate: '" + v + "' is not an IB rate in Gb/s (2.5, 5, 10, 20, 40, 56, 100, ...)";
    } else if (k == "route_preload") {
      if (Is(v, "none") || Is(v, "no"))
        out->route_preload = false;
      else if (Is(v, "opensm_full_v1"))
        out->route_preload = true;
      else
        bad = "route_preload: '" + v + "' is not none or opensm_full_v1";
    } else if (k == "addr_preload") {
      if (Is(v, "none") || Is(v, "no"))
        out->addr_preload = false;
      else if (Is(v, "acm_hosts"))
        out->addr_preload = true;
      else
        bad = "addr_preload: '" + v + "' is not none or acm_hosts";
    } else if (k == "route_data_file" || k == "addr_data_file" || k == "sim_dir") {
      if (v.empty())
        bad = k + ": empty path";
      else
        (k == "route_data_file"  ? out->route_data_file
         : k == "addr_data_file" ? out->addr_data_file
                                 : out->sim_dir) = v;
    } else if (k == "transport") {
      if (Is(v, "auto"))
        out->transport = AcmpOptions::Transport::kAuto;
      else if (Is(v, "verbs"))
        out->transport = AcmpOptions::Transport::kVerbs;
      else if (Is(v, "sim"))
        out->transport = AcmpOptions::Transport::kSim;
      else
        bad = "transport: '" + v + "' is not auto, verbs or sim";
    } else if (k == "extra_groups") {
      std::string why;
      if (!ParseGroups(v, &out->extra_groups, &why)) bad = "extra_groups: " + why;
    } else if (k == "cache_size") {
      if (integer(16, 100000000, "destinations")) out->cache_size = static_cast<size_t>(n);
    } else if (k == "stats_interval") {
      if (integer(0, 86400 * 7, "seconds, 0 = none"))
        out->stats_interval_s = static_cast<uint32_t>(n);
    } else if (k == "fault_drop_percent") {
      if (integer(0, 100, "percent")) out->fault_drop_probability = n / 100.0;
    } else if (k == "fault_delay_ms") {
      if (integer(0, 60000, "ms")) out->fault_delay_ms = static_cast<uint32_t>(n);
    } else if (k == "fault_seed") {
      if (integer(0, INT64_MAX, "number")) out->fault_seed = static_cast<uint64_t>(n);
    } else {
      if (shared)
        notes->push_back({false, e.file, e.line, "option '" + k + "' is not the acmp provider's"});
      else if (IsCoreKey(k))
        notes->push_back(
            {true, e.file, e.line, "'" + k + "' is not an acmp option (a [core] one?)"});
      else
        notes->push_back({true, e.file, e.line, "unknown option '" + k + "'"});
      continue;
    }
    if (!bad.empty()) notes->push_back({true, e.file, e.line, bad + "; default kept"});
  }
}

}  // namespace acmp
}  // namespace ssa
