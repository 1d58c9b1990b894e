// fallback_jitter.cc: see fallback_jitter.h.
#include "providers/ssa/fallback_jitter.h"

namespace ssa {
namespace ssa_provider {

bool FallbackJitter::FallsBack(PortState* port, bool past_bound, Clock::time_point now) {
  if (!past_bound) {
    port->drawn = false;
    return false;
  }
  if (!port->drawn) {
    port->drawn = true;
    std::uniform_int_distribution<int64_t> ms(0, window_.count());
    port->due = now + std::chrono::milliseconds(ms(rng_));
  }
  return now >= port->due;
}

}  // namespace ssa_provider
}  // namespace ssa
