// ssa_options.cc: see ssa_options.h.
#include "providers/ssa/ssa_options.h"

#include "common/base/option_set.h"

namespace ssa {
namespace ssa_provider {

void SsaOptions::Bind(OptionSet* set) {
  set->Enum<bool>("fallback", &fallback_sa, {{"sa", true}, {"none", false}});
  set->Choice("transport", &transport, {"tcp", "rsocket"});
  set->Int("mad_timeout_ms", &mad_timeout_ms, 10, 60000);
  set->Int("mad_retries", &mad_retries, 0, 100);
  set->Int("stale_after_s", &stale_after_s, 0, 86400);
  set->Int("fallback_jitter_s", &fallback_jitter_s, 0, 3600);
  set->Int("fallback_sa_rate", &fallback_sa_rate, 0, 1000000);
  set->Int("fallback_sa_burst", &fallback_sa_burst, 1, 1000000);
  set->Int("fallback_wait_ms", &fallback_wait_ms, 0, 600000);
}

}  // namespace ssa_provider
}  // namespace ssa
