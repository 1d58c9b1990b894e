// core_reactor.h: the Reactor interface (common/base/reactor.h) over the
// fd and timer ops the core hands a provider, so that what a provider
// runs (the acmp provider's timers and datagram fds, the tree's consumer
// library inside the ssa provider) runs on ibacm's own event loop. The
// one trampoline from the core's C callbacks (fn, arg) to C++ handlers.
//
// Handlers run from the core's loop: none may throw into it (the ABI rule,
// providers/shared/abi_guard.h). A handler that runs out of memory is
// stopped here and logged through the core's log; anything else a handler
// throws is a bug and ends the process, as it would elsewhere.
//
// Borrows the core's ops table and handle, which outlive it. Destroying it
// unwatches every fd and cancels every timer still set. The core's loop
// thread only.
#ifndef IBACM_SSA_PROVIDERS_SHARED_CORE_REACTOR_H
#define IBACM_SSA_PROVIDERS_SHARED_CORE_REACTOR_H

#include <map>
#include <memory>

#include <ibacm_ssa/provider.h>
#include "common/base/reactor.h"

namespace ssa {
namespace provider_shared {

class CoreReactor : public Reactor {
 public:
  CoreReactor(const ssa_core_ops* ops, ssa_core_t* core) : ops_(ops), core_(core) {}
  ~CoreReactor() override;
  CoreReactor(const CoreReactor&) = delete;
  CoreReactor& operator=(const CoreReactor&) = delete;

  Status WatchFd(int fd, uint32_t events, FdHandler handler) override;
  Status ModifyFd(int fd, uint32_t events) override;
  void UnwatchFd(int fd) override;
  TimerId AddTimer(std::chrono::steady_clock::duration delay, Task handler) override;
  bool CancelTimer(TimerId id) override;

 private:
  struct Watch {
    CoreReactor* self;
    FdHandler handler;
  };
  struct Timer {
    CoreReactor* self;
    TimerId id;
    Task task;
  };
  static void OnFd(void* arg, int fd, uint32_t events);
  static void OnTimer(void* arg);
  // Runs a handler; out of memory is logged as `what`, not thrown.
  template <typename Fn>
  void RunGuarded(const char* what, Fn fn);

  const ssa_core_ops* ops_;
  ssa_core_t* core_;
  // Handlers live here; the core gets a pointer to the map entry's value.
  std::map<int, std::unique_ptr<Watch>> fds_;
  std::map<TimerId, std::unique_ptr<Timer>> timers_;
};

}  // namespace provider_shared
}  // namespace ssa

#endif
