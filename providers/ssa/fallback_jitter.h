// fallback_jitter.h: when a port stops answering from its PRDB because the
// core has not confirmed it (stale_after_s): at a moment drawn for each
// port within the last fallback_jitter_s before the bound, not at the
// bound itself (issue 46, finding 8). A core that hangs stops confirming
// every consumer's PRDB within one renewal period: without the draw,
// every node of the fabric would send its requests to the SA in the same
// second. The draw is taken before the bound, never after it: the
// administrator's stale_after_s stays the longest an unconfirmed PRDB
// answers.
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
  // One port's draw: how long before the bound it stops answering.
  struct PortState {
    bool drawn = false;
    double early_s = 0;
  };

  FallbackJitter(std::chrono::milliseconds window, uint64_t seed) : window_(window), rng_(seed) {}

  // Whether a port whose PRDB the core last confirmed `age_s` ago (< 0:
  // not timed) stops answering from it, with `bound_s` its stale_after_s
  // (0: never). The port draws its earliness once, uniformly within the
  // window, and keeps it; it never takes more than half the bound.
  bool FallsBack(PortState* port, double age_s, double bound_s);

 private:
  std::chrono::milliseconds window_;
  std::mt19937_64 rng_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
