// task_mailbox.h: tasks posted from any thread, run on a Reactor's thread.
//
// EventLoop has Post() of its own; a Reactor that is somebody else's loop
// (the core's, inside a provider: provider_shared::CoreReactor) has only
// fd watches and timers. The mailbox is a queue and an eventfd the reactor
// watches: Post() queues the task and wakes the fd, and the reactor's
// thread runs every queued task, in order; one that throws leaves the rest
// queued and runnable. A WorkerPool built with
// Poster() hands its `done` callbacks back this way.
//
// Threads: Init() and the destructor on the reactor's thread; Post() from
// any thread, but none may still post once the destructor runs (join the
// posting threads first). Tasks still queued then are dropped, not run. A
// task must not destroy the mailbox. Raw system calls on the eventfd: see
// raw_fd.h (umad2sim).
#ifndef IBACM_SSA_COMMON_BASE_TASK_MAILBOX_H
#define IBACM_SSA_COMMON_BASE_TASK_MAILBOX_H

#include <deque>
#include <functional>
#include <mutex>

#include "common/base/reactor.h"
#include "common/base/status.h"

namespace ssa {

class TaskMailbox {
 public:
  explicit TaskMailbox(Reactor* reactor) : reactor_(reactor) {}
  ~TaskMailbox();
  TaskMailbox(const TaskMailbox&) = delete;
  TaskMailbox& operator=(const TaskMailbox&) = delete;

  // Creates the eventfd and watches it.
  Status Init();
  bool ready() const { return fd_ >= 0; }

  void Post(Reactor::Task task);
  // Post, as a function a WorkerPool takes.
  std::function<void(Reactor::Task)> Poster() {
    return [this](Reactor::Task t) { Post(std::move(t)); };
  }

 private:
  void RunQueued();
  void Wake();

  Reactor* reactor_;
  int fd_ = -1;
  std::mutex mu_;  // guards queue_
  std::deque<Reactor::Task> queue_;
};

}  // namespace ssa

#endif
