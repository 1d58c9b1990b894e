// bridge_options.cc: see bridge_options.h.
#include "providers/upstream/bridge_options.h"

#include "common/base/option_set.h"

namespace ssa {
namespace upstream {

BridgeOptions::BridgeOptions() : upstream_provider_dir(UPSTREAM_PROVIDER_DIR) {}

void BridgeOptions::Bind(OptionSet* set) {
  set->String("upstream_provider", &upstream_provider);
  set->String("upstream_provider_dir", &upstream_provider_dir);
  set->Bool("require_verbs", &require_verbs);
}

}  // namespace upstream
}  // namespace ssa
