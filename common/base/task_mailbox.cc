// task_mailbox.cc: see task_mailbox.h.
#include "common/base/task_mailbox.h"

#include <sys/epoll.h>

namespace ssa {

TaskMailbox::~TaskMailbox() {
  if (watched_) reactor_->UnwatchFd(box_.fd());
}

Status TaskMailbox::Init() {
  Status st = box_.Open();
  if (!st.ok()) return st;
  st = reactor_->WatchFd(box_.fd(), EPOLLIN,
                         [this](uint32_t) { box_.Drain([](Reactor::Task& task) { task(); }); });
  if (!st.ok()) return st;
  watched_ = true;
  return Status::Ok();
}

}  // namespace ssa
