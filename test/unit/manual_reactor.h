// manual_reactor.h: a Reactor (common/base/reactor.h) whose timers a unit
// test fires by hand, for parts that only set timers (the acmp provider's
// RequestTracker, GroupMembership). Fd watches are refused: a test that
// needs them runs a real EventLoop. One thread, the test's.
#ifndef IBACM_SSA_TEST_UNIT_MANUAL_REACTOR_H
#define IBACM_SSA_TEST_UNIT_MANUAL_REACTOR_H

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <map>
#include <utility>

#include "common/base/reactor.h"

class ManualReactor : public ssa::Reactor {
 public:
  struct Timer {
    uint32_t delay_ms;
    Task task;
  };

  ssa::Status WatchFd(int, uint32_t, FdHandler) override {
    return ssa::Status::Error(ENOTSUP, "ManualReactor watches no fd");
  }
  ssa::Status ModifyFd(int, uint32_t) override { return WatchFd(0, 0, nullptr); }
  void UnwatchFd(int) override {}
  TimerId AddTimer(std::chrono::steady_clock::duration delay, Task task) override {
    uint32_t ms =
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::milliseconds>(delay).count());
    last_delay_ms = ms;
    timers[next] = {ms, std::move(task)};
    return next++;
  }
  bool CancelTimer(TimerId id) override { return timers.erase(id) != 0; }

  // Fires the oldest pending timer (there must be one).
  void FireOne() {
    auto it = timers.begin();
    Task task = std::move(it->second.task);
    timers.erase(it);
    task();
  }

  std::map<TimerId, Timer> timers;  // pending, oldest first
  TimerId next = 1;
  uint32_t last_delay_ms = 0;
};

#endif
