// latency_stats.cc: nearest-rank percentiles (see latency_stats.h).
#include "util/ib_acme/latency_stats.h"

#include <algorithm>
#include <cmath>

namespace ssa {
namespace acme {

double LatencyStats::Percentile(double percent) const {
  if (samples_.empty()) return 0.0;
  std::vector<double> sorted = samples_;
  std::sort(sorted.begin(), sorted.end());
  percent = std::min(std::max(percent, 0.0), 100.0);
  // The small epsilon keeps e.g. 0.29 * 100 = 28.999... from rounding up.
  double exact = percent / 100.0 * static_cast<double>(sorted.size());
  size_t rank = static_cast<size_t>(std::ceil(exact - 1e-9));
  if (rank < 1) rank = 1;
  if (rank > sorted.size()) rank = sorted.size();
  return sorted[rank - 1];
}

}  // namespace acme
}  // namespace ssa
