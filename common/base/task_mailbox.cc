// task_mailbox.cc: see task_mailbox.h.
#include "common/base/task_mailbox.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/base/raw_fd.h"

namespace ssa {

TaskMailbox::~TaskMailbox() {
  if (fd_ < 0) return;
  reactor_->UnwatchFd(fd_);
  RawClose(fd_);
}

Status TaskMailbox::Init() {
  int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) return Status::FromErrno("eventfd");
  Status st = reactor_->WatchFd(fd, EPOLLIN, [this](uint32_t) { RunQueued(); });
  if (!st.ok()) {
    RawClose(fd);
    return st;
  }
  fd_ = fd;
  return Status::Ok();
}

void TaskMailbox::Post(Reactor::Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
  }
  Wake();
}

void TaskMailbox::Wake() {
  uint64_t one = 1;
  // A full counter (never in practice) still leaves the fd readable.
  ssize_t n = RawWrite(fd_, &one, sizeof(one));
  (void)n;
}

void TaskMailbox::RunQueued() {
  uint64_t count;
  ssize_t n = RawRead(fd_, &count, sizeof(count));
  (void)n;
  // One at a time: a task that throws (out of memory, caught and logged by
  // the reactor's guard) leaves the ones behind it queued, and the fd
  // readable again so that they still run.
  for (;;) {
    Reactor::Task task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.empty()) return;
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (...) {
      Wake();
      throw;
    }
  }
}

}  // namespace ssa
