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
}

}  // namespace ssa_provider
}  // namespace ssa
