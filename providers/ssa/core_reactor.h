// core_reactor.h: the Reactor interface (common/base/reactor.h) over the
// fd and timer ops the core hands a provider, so the tree's consumer
// library runs on ibacm's own event loop inside the ssa provider.
//
// Borrows the core's ops table and handle; the core's loop thread only.
#ifndef IBACM_SSA_PROVIDERS_SSA_CORE_REACTOR_H
#define IBACM_SSA_PROVIDERS_SSA_CORE_REACTOR_H

#include <map>
#include <memory>

#include <ibacm_ssa/provider.h>
#include "common/base/reactor.h"

namespace ssa {
namespace ssa_provider {

class CoreReactor : public Reactor {
 public:
  CoreReactor(const ssa_core_ops* ops, ssa_core_t* core) : ops_(ops), core_(core) {}
  ~CoreReactor() override;

  Status WatchFd(int fd, uint32_t events, FdHandler handler) override;
  Status ModifyFd(int fd, uint32_t events) override;
  void UnwatchFd(int fd) override;
  TimerId AddTimer(std::chrono::steady_clock::duration delay, Task handler) override;
  bool CancelTimer(TimerId id) override;

 private:
  static void OnFd(void* arg, int fd, uint32_t events);
  static void OnTimer(void* arg);
  struct Timer {
    CoreReactor* self;
    TimerId id;
    Task task;
  };

  const ssa_core_ops* ops_;
  ssa_core_t* core_;
  // Handlers live here; the core gets a pointer to the map entry's value.
  std::map<int, std::unique_ptr<FdHandler>> fds_;
  std::map<TimerId, std::unique_ptr<Timer>> timers_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
