// confirmation.h: whether the core still confirms each port's PRDB as
// current (ibacm_ssa(7) stale_after_s, fallback_jitter_s). Past the bound
// without the core's confirmation, while an SM runs, a port's view stops
// answering and is not published (the core moved on and the PRDB did not
// follow, or a new master's core does not answer); with no SM at all
// nothing reprograms the fabric and the view answers on.
//
// Check() decides a port's state once a second (the provider's timer) and
// logs each change; the provider withdraws or republishes the tables on
// what it returns. Threads: the core's loop.
#ifndef IBACM_SSA_PROVIDERS_SSA_CONFIRMATION_H
#define IBACM_SSA_PROVIDERS_SSA_CONFIRMATION_H

#include <chrono>
#include <random>

#include "providers/shared/core_log.h"
#include "providers/ssa/fallback_jitter.h"
#include "providers/ssa/port_state.h"
#include "providers/ssa/ssa_options.h"

namespace ssa {
namespace ssa_provider {

class Confirmation {
 public:
  using Clock = std::chrono::steady_clock;
  Confirmation(const SsaOptions& options, provider_shared::CoreLogger log)
      : options_(options), log_(log) {}

  // Reads fallback_jitter_s (after the options are read); seeded per
  // process, so that nodes draw different moments.
  void Init() {
    jitter_ =
        FallbackJitter(std::chrono::seconds(options_.fallback_jitter_s), std::random_device{}());
  }

  enum Change { kSame, kNowUnconfirmed, kConfirmedAgain };
  // Decides `port`'s state at `now` (ConfirmState), logging changes.
  Change Check(PortState* port, Clock::time_point now);

  // Seconds at `now` since the core last confirmed the port's view (since
  // it arrived, if never), or -1 when that does not apply (no view of the
  // current consumer's).
  double SinceConfirmed(const PortState* port, Clock::time_point now) const;

 private:
  // The bound: stale_after_s, at least two renewal periods (0: none).
  double Bound(const PortState* port) const;
  // Whether SinceConfirmed is longer than the bound.
  bool PastBound(const PortState* port, Clock::time_point now) const;
  // No SM has answered since the confirmation and the master SM is the
  // one that gave it (tree::Consumer::sm_silent_since_confirmed).
  bool SmSilent(const PortState* port) const;
  // Whether the port's view has gone unconfirmed past the moment it drew
  // within the last fallback_jitter_s before the bound, while an SM runs.
  bool Unconfirmed(PortState* port, Clock::time_point now);

  const SsaOptions& options_;
  provider_shared::CoreLogger log_;
  FallbackJitter jitter_{std::chrono::milliseconds(0), 0};
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
