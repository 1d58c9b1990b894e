// acmp_loop.h: what the acmp provider's parts (RequestTracker,
// GroupMembership, DatagramIo) get from the provider: one-shot timers and
// its log. AcmpProvider implements both over the core's ops table
// (timer_add, log); unit tests implement fakes.
//
// Threads: the core's loop thread only, like everything in the provider.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_LOOP_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_LOOP_H

#include <cstdint>
#include <functional>

namespace ssa {
namespace acmp {

// One-shot timers (the provider backs this with the core's timer_add).
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual uint64_t Add(uint32_t delay_ms, std::function<void()> fn) = 0;  // 0 on failure
  virtual void Cancel(uint64_t id) = 0;
};

// The provider's log (SSA_LOG_* levels, printf format).
class ProviderLog {
 public:
  virtual ~ProviderLog() = default;
  virtual void Log(int level, const char* fmt, ...) __attribute__((format(printf, 3, 4))) = 0;
};

// The rate limit of the provider's repeated warnings: the first 10 of a
// kind, then every 1000th.
inline bool ShouldLog(uint64_t count) { return count <= 10 || count % 1000 == 0; }
// The same when a count went from `before` to `now` (> before) at once.
inline bool ShouldLogSince(uint64_t before, uint64_t now) {
  return before < 10 || now / 1000 != before / 1000;
}

}  // namespace acmp
}  // namespace ssa

#endif
