// reactor.h: the few event-loop services protocol objects need (fd
// watches, one-shot timers), as an interface, so the same object runs on
// an EventLoop (the daemons, tools and tests) or on the loop a host hands
// it through another API (the ssa provider inside ibacm, through the
// provider ABI's fd and timer ops).
//
// Threads: every method is called on the reactor's own thread, and every
// handler runs there. Handlers may add and remove watches and timers,
// their own included.
#ifndef IBACM_SSA_COMMON_BASE_REACTOR_H
#define IBACM_SSA_COMMON_BASE_REACTOR_H

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/base/status.h"

namespace ssa {

class Reactor {
 public:
  using FdHandler = std::function<void(uint32_t events)>;  // EPOLLIN etc.
  using Task = std::function<void()>;
  using TimerId = uint64_t;  // never 0

  virtual ~Reactor() = default;

  // One watch per fd; the caller owns the fd and unwatches it before
  // closing it.
  virtual Status WatchFd(int fd, uint32_t events, FdHandler handler) = 0;
  virtual Status ModifyFd(int fd, uint32_t events) = 0;
  virtual void UnwatchFd(int fd) = 0;
  // One-shot timer; 0 if it could not be created.
  virtual TimerId AddTimer(std::chrono::steady_clock::duration delay, Task handler) = 0;
  // False if it already fired or was cancelled.
  virtual bool CancelTimer(TimerId id) = 0;
};

}  // namespace ssa

#endif
