// fallback_jitter.cc: see fallback_jitter.h.
#include "providers/ssa/fallback_jitter.h"

#include <algorithm>

namespace ssa {
namespace ssa_provider {

bool FallbackJitter::FallsBack(PortState* port, double age_s, double bound_s) {
  if (bound_s <= 0 || age_s < 0) return false;
  if (!port->drawn) {
    port->drawn = true;
    std::uniform_int_distribution<int64_t> ms(0, window_.count());
    port->early_s = static_cast<double>(ms(rng_)) / 1000.0;
  }
  return age_s > bound_s - std::min(port->early_s, bound_s / 2);
}

}  // namespace ssa_provider
}  // namespace ssa
