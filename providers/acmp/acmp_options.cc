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

// "2.5", "10": a rate code as the options spell it.
std::string GbpsText(uint8_t code) {
  char buf[16];
  snprintf(buf, sizeof(buf), "%g", RateMbps(code) / 1000.0);
  return buf;
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

void AcmpOptions::Bind(OptionSet* set) {
  set->Custom(
      "addr_prot",
      [](const std::string& v) {
        if (!strcasecmp(v.c_str(), "acm")) return Status::Ok();
        return Status::Error(EINVAL, "'" + v + "' is not acm (the only address protocol)");
      },
      [] { return std::string("acm"); });
  set->Int("addr_timeout", &addr_timeout_min, -1, kMaxTimeoutMin);
  set->Int("route_timeout", &route_timeout_min, -1, kMaxTimeoutMin);
  set->Enum<RouteProt>("route_prot", &route_prot,
                       {{"acm", RouteProt::kAcm}, {"sa", RouteProt::kSa}});
  set->Enum<LoopbackProt>("loopback_prot", &loopback_prot,
                          {{"none", LoopbackProt::kNone}, {"local", LoopbackProt::kLocal}});
  set->Int("timeout", &timeout_ms, 1, 600000);
  set->Int("retries", &retries, 0, 100);
  set->Int("resolve_depth", &resolve_depth, 1, 1024);
  set->Int("send_depth", &send_depth, 1, 1024);
  set->Int("recv_depth", &recv_depth, 1, 65536);
  set->Custom(
      "min_mtu",
      [this](const std::string& v) {
        uint8_t code = MtuCodeFromBytes(strtol(v.c_str(), nullptr, 10));
        if (!code) return Status::Error(EINVAL, "'" + v + "' is not 256, 512, 1024, 2048 or 4096");
        min_mtu = code;
        return Status::Ok();
      },
      [this] { return std::to_string(MtuBytes(min_mtu)); });
  set->Custom(
      "min_rate",
      [this](const std::string& v) {
        uint8_t code = RateCodeFromGbps(strtod(v.c_str(), nullptr));
        if (!code)
          return Status::Error(
              EINVAL, "'" + v + "' is not an IB rate in Gb/s (2.5, 5, 10, 20, 40, 56, 100, ...)");
        min_rate = code;
        return Status::Ok();
      },
      [this] { return GbpsText(min_rate); });
  set->Enum<bool>("route_preload", &route_preload,
                  {{"none", false}, {"no", false}, {"opensm_full_v1", true}});
  set->Enum<bool>("addr_preload", &addr_preload,
                  {{"none", false}, {"no", false}, {"acm_hosts", true}});
  set->Path("route_data_file", &route_data_file);
  set->Path("addr_data_file", &addr_data_file);
  set->Path("sim_dir", &sim_dir);
  set->Enum<Transport>(
      "transport", &transport,
      {{"auto", Transport::kAuto}, {"verbs", Transport::kVerbs}, {"sim", Transport::kSim}});
  set->Custom(
      "extra_groups",
      [this](const std::string& v) {
        std::string why;
        if (!ParseGroups(v, &extra_groups, &why)) return Status::Error(EINVAL, why);
        return Status::Ok();
      },
      [this] {
        std::string text;
        for (const GroupRate& g : extra_groups)
          text +=
              (text.empty() ? "" : " ") + GbpsText(g.rate) + ":" + std::to_string(MtuBytes(g.mtu));
        return text;
      });
  set->Int("cache_size", &cache_size, 16, 100000000);
  set->Int("stats_interval", &stats_interval_s, 0, 86400 * 7);
  set->Custom(
      "fault_drop_percent",
      [this](const std::string& v) {
        int64_t n = 0;
        Status st = OptionSet::ParseInt(v, 0, 100, &n);
        if (st.ok()) fault_drop_probability = n / 100.0;
        return st;
      },
      [this] { return std::to_string(static_cast<int>(fault_drop_probability * 100 + 0.5)); });
  set->Int("fault_delay_ms", &fault_delay_ms, 0, 60000);
  set->Int("fault_seed", &fault_seed, 0, INT64_MAX);
}

}  // namespace acmp
}  // namespace ssa
