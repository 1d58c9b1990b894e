// event_loop.h: the one epoll loop each daemon runs on.
//
// The loop owns nothing but its epoll fd, the mailbox of posted tasks
// (whose eventfd wakes it) and its timer queue; callers own the fds they
// watch and must Unwatch them before closing them.
// Every method except Post() and Stop() must be called on the loop's thread
// (the thread that calls Run/RunOnce, or any thread before the loop starts).
// Handlers run on the loop thread and may add or remove watches and timers,
// including their own.
#ifndef IBACM_SSA_COMMON_BASE_EVENT_LOOP_H
#define IBACM_SSA_COMMON_BASE_EVENT_LOOP_H

#include <sys/epoll.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/base/mailbox.h"
#include "common/base/reactor.h"
#include "common/base/status.h"

namespace ssa {

// EventLoop is a Reactor (reactor.h), so protocol objects written against
// that interface run on it.
class EventLoop : public Reactor {
 public:
  using Clock = std::chrono::steady_clock;
  // Timer ids are never reused by one loop.

  EventLoop() = default;
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  Status Init();

  // Watches `fd` for `events` (EPOLLIN, EPOLLOUT, ...). One watch per fd.
  Status WatchFd(int fd, uint32_t events, FdHandler handler) override;
  Status ModifyFd(int fd, uint32_t events) override;
  // Removes the watch; pending events for it in this iteration are dropped.
  void UnwatchFd(int fd) override;
  bool IsWatched(int fd) const { return watches_.count(fd) != 0; }
  size_t watch_count() const { return watches_.size(); }

  // One-shot timer. Returns its id, for CancelTimer.
  TimerId AddTimer(Clock::duration delay, Task handler) override;
  // Returns false if the timer already fired or was cancelled.
  bool CancelTimer(TimerId id) override;
  size_t timer_count() const { return timer_deadlines_.size(); }

  // Runs `task` on the loop thread soon, after the tasks posted before it.
  // Any thread. Through a Mailbox (mailbox.h): a task that a posted task
  // posts runs in the next iteration.
  void Post(Task task);

  // Runs until Stop(). Any thread may call Stop().
  Status Run();
  void Stop();
  // One iteration: waits at most `max_wait` for events, runs handlers, due
  // timers and posted tasks.
  Status RunOnce(Clock::duration max_wait);
  // The iteration running now (or last run), counted from 1: tells a
  // handler whether another one of its handlers ran in the same iteration
  // (the client server's turns, core/client_server.h).
  uint64_t iteration() const { return iteration_; }
  // Iterates until `done()` is true or `timeout` passes; returns done().
  bool RunUntil(const std::function<bool()>& done, Clock::duration timeout);

 private:
  struct Watch {
    uint32_t generation;
    FdHandler handler;
  };

  void RunPostedTasks();
  void RunDueTimers();
  int MillisUntilNextTimer(Clock::duration max_wait) const;

  int epoll_fd_ = -1;
  uint32_t next_generation_ = 1;
  std::unordered_map<int, std::shared_ptr<Watch>> watches_;

  TimerId next_timer_id_ = 1;
  std::map<std::pair<Clock::time_point, TimerId>, Task> timers_;
  std::unordered_map<TimerId, Clock::time_point> timer_deadlines_;
  // The timers RunDueTimers took out to run now and has not run yet (one
  // batch per RunDueTimers on the stack): a handler that cancels one of
  // them (say, closing an object whose timer is due in the same batch)
  // must keep it from running.
  std::vector<std::vector<TimerId>*> due_batches_;

  // Post()'s tasks; its fd is the loop's wake fd (Stop() too).
  Mailbox<Task> posted_;
  std::atomic<bool> stop_{false};
  uint64_t iteration_ = 0;
};

}  // namespace ssa

#endif
