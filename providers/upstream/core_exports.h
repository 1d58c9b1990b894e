// core_exports.h: the one bridge the exported acm_* functions
// (core_exports.cc) serve. Upstream's interface has no context argument:
// those functions are process-wide, so one bridge at a time may be active
// (a second one's init fails, saying so).
// Threads: any; the registry has its own mutex.
#ifndef IBACM_SSA_PROVIDERS_UPSTREAM_CORE_EXPORTS_H
#define IBACM_SSA_PROVIDERS_UPSTREAM_CORE_EXPORTS_H

namespace ssa {
namespace upstream {

class UpstreamBridge;

// False if another bridge is active.
bool ActivateBridge(UpstreamBridge* bridge);
// After this returns no exported function touches `bridge` any more; calls
// from the library's threads are dropped from then on.
void DeactivateBridge(UpstreamBridge* bridge);

}  // namespace upstream
}  // namespace ssa

#endif
