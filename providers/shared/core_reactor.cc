// core_reactor.cc: see core_reactor.h.
#include "providers/shared/core_reactor.h"

#include <new>

namespace ssa {
namespace provider_shared {

CoreReactor::~CoreReactor() {
  for (auto& kv : fds_) ops_->fd_unwatch(core_, kv.first);
  for (auto& kv : timers_) ops_->timer_cancel(core_, kv.first);
}

template <typename Fn>
void CoreReactor::RunGuarded(const char* what, Fn fn) {
  try {
    fn();
  } catch (const std::bad_alloc&) {
    ops_->log(core_, SSA_LOG_ERROR, "out of memory in %s", what);
  }
}

Status CoreReactor::WatchFd(int fd, uint32_t events, FdHandler handler) {
  auto w = std::make_unique<Watch>(Watch{this, std::move(handler)});
  int rc = ops_->fd_watch(core_, fd, events, &CoreReactor::OnFd, w.get());
  if (rc < 0) return Status::Error(rc, "fd_watch");
  fds_[fd] = std::move(w);
  return Status::Ok();
}

Status CoreReactor::ModifyFd(int fd, uint32_t events) {
  // The ABI has no modify: watch again with the same handler.
  auto it = fds_.find(fd);
  if (it == fds_.end()) return Status::Error(ENOENT, "fd not watched");
  ops_->fd_unwatch(core_, fd);
  int rc = ops_->fd_watch(core_, fd, events, &CoreReactor::OnFd, it->second.get());
  return rc < 0 ? Status::Error(rc, "fd_watch") : Status::Ok();
}

void CoreReactor::UnwatchFd(int fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end()) return;
  ops_->fd_unwatch(core_, fd);
  fds_.erase(it);
}

void CoreReactor::OnFd(void* arg, int, uint32_t events) {
  auto* w = static_cast<Watch*>(arg);
  CoreReactor* self = w->self;
  self->RunGuarded("an fd handler", [&] {
    // Copied: the handler may unwatch (and so destroy) itself.
    FdHandler h = w->handler;
    h(events);
  });
}

Reactor::TimerId CoreReactor::AddTimer(std::chrono::steady_clock::duration delay, Task handler) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(delay).count();
  auto t = std::make_unique<Timer>(Timer{this, 0, std::move(handler)});
  uint64_t id = ops_->timer_add(core_, static_cast<uint32_t>(ms < 0 ? 0 : ms),
                                &CoreReactor::OnTimer, t.get());
  if (id == 0) {
    ops_->log(core_, SSA_LOG_ERROR, "timer_add failed");
    return 0;
  }
  t->id = id;
  timers_[id] = std::move(t);
  return id;
}

bool CoreReactor::CancelTimer(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return false;
  ops_->timer_cancel(core_, id);
  timers_.erase(it);
  return true;
}

void CoreReactor::OnTimer(void* arg) {
  auto* t = static_cast<Timer*>(arg);
  CoreReactor* self = t->self;
  auto it = self->timers_.find(t->id);
  if (it == self->timers_.end()) return;
  std::unique_ptr<Timer> owned = std::move(it->second);
  self->timers_.erase(it);
  self->RunGuarded("a timer handler", [&] { owned->task(); });
}

}  // namespace provider_shared
}  // namespace ssa
