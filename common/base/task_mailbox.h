// task_mailbox.h: tasks posted from any thread, run on a Reactor's thread.
//
// EventLoop has Post() of its own; a Reactor that is somebody else's loop
// (the core's, inside a provider: provider_shared::CoreReactor) has only
// fd watches and timers. A TaskMailbox is a Mailbox of tasks (mailbox.h)
// whose fd the reactor watches: Post() queues the task and wakes the fd,
// and the reactor's thread runs the queued tasks, in order; one that
// throws leaves the rest queued and runnable. A WorkerPool built with
// Poster() hands its `done` callbacks back this way.
//
// Threads: Init() and the destructor on the reactor's thread; Post() from
// any thread, but none may still post once the destructor runs (join the
// posting threads first). Tasks still queued then are dropped, not run. A
// task must not destroy the mailbox.
#ifndef IBACM_SSA_COMMON_BASE_TASK_MAILBOX_H
#define IBACM_SSA_COMMON_BASE_TASK_MAILBOX_H

#include <functional>

#include "common/base/mailbox.h"
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
  bool ready() const { return watched_; }

  void Post(Reactor::Task task) { box_.Post(std::move(task)); }
  // Post, as a function a WorkerPool takes.
  std::function<void(Reactor::Task)> Poster() {
    return [this](Reactor::Task t) { Post(std::move(t)); };
  }

 private:
  Reactor* reactor_;
  Mailbox<Reactor::Task> box_;
  bool watched_ = false;
};

}  // namespace ssa

#endif
