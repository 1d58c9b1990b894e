// latency_stats.h: the latencies of a provider test and their percentiles.
//
// Percentiles use the nearest-rank method: the p-th percentile of n sorted
// samples is the one at rank ceil(p/100 * n) (1-based), so it is always a
// latency that was actually measured: p50 of {1,2,3,4} is 2, p99 of 100
// samples is the 99th smallest, p99 of fewer than 100 is the largest.
//
// A plain value; one thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_LATENCY_STATS_H
#define IBACM_SSA_UTIL_IB_ACME_LATENCY_STATS_H

#include <cstddef>
#include <vector>

namespace ssa {
namespace acme {

class LatencyStats {
 public:
  void Add(double ms) { samples_.push_back(ms); }
  size_t count() const { return samples_.size(); }
  bool empty() const { return samples_.empty(); }
  // `percent` in (0, 100]; 0.0 when there are no samples.
  double Percentile(double percent) const;

 private:
  std::vector<double> samples_;
};

}  // namespace acme
}  // namespace ssa

#endif
