// acmp_loop.h: what the acmp provider's parts (RequestTracker,
// GroupMembership, DatagramIo) get from the provider: one-shot timers (the
// common Reactor interface, which the provider backs with the core's ops
// through provider_shared::CoreReactor) and its log (ProviderLog, over the
// core's log op). Unit tests implement fakes of both.
//
// Threads: the core's loop thread only, like everything in the provider.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_LOOP_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_LOOP_H

#include "common/base/reactor.h"

namespace ssa {
namespace acmp {

// The provider's log (SSA_LOG_* levels, printf format).
class ProviderLog {
 public:
  virtual ~ProviderLog() = default;
  virtual void Log(int level, const char* fmt, ...) __attribute__((format(printf, 3, 4))) = 0;
};

}  // namespace acmp
}  // namespace ssa

#endif
