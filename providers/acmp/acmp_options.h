// acmp_options.h: the acmp provider's options ([acmp] section of
// acm_opts.cfg, or the matching lines of an upstream ibacm_opts.cfg), with
// upstream ibacm's names, meanings and defaults:
//
//   addr_prot        acm                       (only protocol; default acm)
//   addr_timeout     minutes an address stays cached, -1 never (1440)
//   route_prot       acm | sa: where routes come from (sa)
//   route_timeout    minutes a route stays cached, -1 never (-1)
//   loopback_prot    none | local: local addresses answered locally (local)
//   timeout          ms per try of a request, plus the subnet timeout (2000)
//   retries          tries after the first (2)
//   resolve_depth    resolve requests in flight per endpoint (1)
//   send_depth       responses in flight per endpoint (1)
//   recv_depth       receive buffers per endpoint, verbs only (1024)
//   min_mtu          bytes, MTU of the group every endpoint joins (2048)
//   min_rate         Gb/s, rate of that group (10)
//   route_preload    none | opensm_full_v1 (none), route_data_file
//   addr_preload     none | acm_hosts (none), addr_data_file
// and ours:
//   transport        auto | verbs | sim: the datagram backend; auto takes
//                    verbs when libibverbs lists a device and the process
//                    is not a simulated node (SIM_HOST unset), else sim
//   sim_dir          where the daemons of one simulated fabric meet
//                    (default: DefaultSimDatagramDir())
//   extra_groups     more groups for route_prot acm, as RATE:MTU pairs in
//                    Gb/s and bytes ("20:2048 40:4096"); joined where the
//                    port supports them (no fixed limit of 2 groups)
//   cache_size       destinations cached per endpoint (65536)
//   stats_interval   seconds between INFO lines with each endpoint's
//                    counters, logged only when they changed; 0 = none (600)
//   fault_drop_percent, fault_delay_ms, fault_seed
//                    tests: received datagrams dropped / delayed
//
// Read through providers/shared/provider_options.h, which says what is
// reported about bad values and keys that are not these.
//
// Plain values; one thread at a time.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_OPTIONS_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_OPTIONS_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ssa {

class OptionSet;

namespace acmp {

constexpr uint64_t kNever = UINT64_MAX;

struct GroupRate {
  uint8_t rate = 0;  // code
  uint8_t mtu = 0;   // code
};

struct AcmpOptions {
  enum class RouteProt { kAcm, kSa };
  enum class LoopbackProt { kNone, kLocal };
  enum class Transport { kAuto, kVerbs, kSim };

  int addr_timeout_min = 1440;
  RouteProt route_prot = RouteProt::kSa;
  int route_timeout_min = -1;
  LoopbackProt loopback_prot = LoopbackProt::kLocal;
  int timeout_ms = 2000;
  int retries = 2;
  int resolve_depth = 1;
  int send_depth = 1;
  int recv_depth = 1024;
  uint8_t min_mtu = 4;         // 2048
  uint8_t min_rate = 3;        // 10 Gb/s
  bool route_preload = false;  // opensm_full_v1
  std::string route_data_file;
  bool addr_preload = false;  // acm_hosts
  std::string addr_data_file;
  Transport transport = Transport::kAuto;
  std::string sim_dir;  // empty: the default
  std::vector<GroupRate> extra_groups;
  size_t cache_size = 65536;
  uint32_t stats_interval_s = 600;
  double fault_drop_probability = 0;
  uint32_t fault_delay_ms = 0;
  uint64_t fault_seed = 1;

  AcmpOptions();
  // Binds the keys above to these members.
  void Bind(OptionSet* set);
  // Lifetimes in ms (kNever for -1).
  uint64_t AddrLifetimeMs() const;
  uint64_t RouteLifetimeMs() const;
  // One line for the log: every value.
  std::string Describe() const;
};

}  // namespace acmp
}  // namespace ssa

#endif
