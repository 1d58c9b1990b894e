// fallback_jitter.h: when a port stops answering from its PRDB because the
// core has not confirmed it (stale_after_s), a random moment within
// fallback_jitter_s after the bound, not the bound itself (issue 46,
// finding 8). A core that hangs stops confirming every consumer's PRDB
// within one renewal period: without this, every node of the fabric would
// send its requests to the SA in the same second. Meanwhile the port
// answers on from the PRDB it held a moment before, as it did up to the
// bound; the drawn moment holds until the core confirms again.
//
// Pure: the caller gives the time; the generator is seeded by the owner (a
// test gives a fixed seed). One thread.
#ifndef IBACM_SSA_PROVIDERS_SSA_FALLBACK_JITTER_H
#define IBACM_SSA_PROVIDERS_SSA_FALLBACK_JITTER_H

#include <chrono>
#include <cstdint>
#include <random>

namespace ssa {
namespace ssa_provider {

class FallbackJitter {
 public:
  using Clock = std::chrono::steady_clock;
  // One port's draw.
  struct PortState {
    bool drawn = false;
    Clock::time_point due{};
  };

  FallbackJitter(std::chrono::milliseconds window, uint64_t seed) : window_(window), rng_(seed) {}

  // Whether a port that is (`past_bound`) or is not past its bound at
  // `now` stops answering from its PRDB: once past, at the moment drawn
  // then, uniformly within the window; not past resets the draw.
  bool FallsBack(PortState* port, bool past_bound, Clock::time_point now);

 private:
  std::chrono::milliseconds window_;
  std::mt19937_64 rng_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
