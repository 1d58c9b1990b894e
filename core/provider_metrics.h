// provider_metrics.h: the providers' own metric families in ibacm's
// metrics file (ABI 1.4, ssa_provider.collect_metrics; the rules are in
// include/ibacm_ssa/provider.h and ibacm(8)).
//
// The core keeps the format: a provider only names families and gives
// samples through the C callbacks of struct ssa_metrics_ops, and every
// call is checked here before anything reaches the PromText. A provider
// is code of somebody else's: one bad name or label would otherwise make
// promtool and node_exporter reject the whole file, and every metric of
// the daemon with it. A refused call returns -EINVAL to the provider, is
// counted per provider (ibacm_provider_metrics_rejected_total) and
// logged, at most one line a minute per provider; what was valid is
// written.
//
// Owned by the daemon next to its MetricsFile; borrows the logger. Loop
// thread only (collect_metrics runs there, as every provider op).
#ifndef IBACM_SSA_CORE_PROVIDER_METRICS_H
#define IBACM_SSA_CORE_PROVIDER_METRICS_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/metrics/prom_text.h"

namespace ssa {

class ProviderMetrics {
 public:
  // One provider asked for its families: its name (the provider label),
  // the port handles it may give samples for with their port labels, and
  // the call to its collect_metrics.
  struct Source {
    std::string provider;
    std::map<const ssa_core_port_t*, std::string> ports;
    std::function<void(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink)> collect;
  };

  explicit ProviderMetrics(Logger* log);

  // Asks every source for its families and appends the valid ones to
  // `out`, after the core's own (a provider family may not take a name
  // `out` holds), then ibacm_provider_metrics_rejected_total. Nothing when
  // `sources` is empty.
  void Write(const std::vector<Source>& sources, metrics::PromText* out);

  // Calls refused so far from `provider`, every snapshot together.
  uint64_t rejected(const std::string& provider) const;

  // Bounds per provider and snapshot, so that no provider can grow the
  // file without end.
  static constexpr size_t kMaxFamilies = 100;
  static constexpr size_t kMaxSamples = 10000;

 private:
  RateLimitedLog refused_log_;
  std::map<std::string, uint64_t> rejected_;
};

}  // namespace ssa

#endif
