// event_loop.cc: epoll + eventfd + ordered timer map.
#include "common/base/event_loop.h"

#include <unistd.h>

#include <cerrno>

namespace ssa {

namespace {
constexpr uint64_t kWakeToken = ~0ULL;
uint64_t MakeToken(int fd, uint32_t generation) {
  return (static_cast<uint64_t>(generation) << 32) | static_cast<uint32_t>(fd);
}
}  // namespace

EventLoop::~EventLoop() {
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

Status EventLoop::Init() {
  if (epoll_fd_ >= 0) return Status::Ok();
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return Status::FromErrno("epoll_create1");
  Status st = posted_.Open();
  if (!st.ok()) return st;
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeToken;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, posted_.fd(), &ev) < 0)
    return Status::FromErrno("epoll_ctl(eventfd)");
  return Status::Ok();
}

Status EventLoop::WatchFd(int fd, uint32_t events, FdHandler handler) {
  if (epoll_fd_ < 0) return Status::Error(EINVAL, "event loop not initialised");
  if (fd < 0) return Status::Error(EBADF, "cannot watch a negative fd");
  if (watches_.count(fd))
    return Status::Error(EEXIST, "fd " + std::to_string(fd) + " already watched");
  auto watch = std::make_shared<Watch>();
  watch->generation = next_generation_++;
  if (next_generation_ == 0) next_generation_ = 1;
  watch->handler = std::move(handler);
  struct epoll_event ev = {};
  ev.events = events;
  ev.data.u64 = MakeToken(fd, watch->generation);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0)
    return Status::FromErrno("epoll_ctl(ADD fd " + std::to_string(fd) + ")");
  watches_[fd] = std::move(watch);
  return Status::Ok();
}

Status EventLoop::ModifyFd(int fd, uint32_t events) {
  auto it = watches_.find(fd);
  if (it == watches_.end())
    return Status::Error(ENOENT, "fd " + std::to_string(fd) + " not watched");
  struct epoll_event ev = {};
  ev.events = events;
  ev.data.u64 = MakeToken(fd, it->second->generation);
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) < 0)
    return Status::FromErrno("epoll_ctl(MOD fd " + std::to_string(fd) + ")");
  return Status::Ok();
}

void EventLoop::UnwatchFd(int fd) {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return;
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  watches_.erase(it);
}

EventLoop::TimerId EventLoop::AddTimer(Clock::duration delay, Task handler) {
  TimerId id = next_timer_id_++;
  Clock::time_point deadline = Clock::now() + delay;
  timers_.emplace(std::make_pair(deadline, id), std::move(handler));
  timer_deadlines_[id] = deadline;
  return id;
}

bool EventLoop::CancelTimer(TimerId id) {
  for (std::vector<TimerId>* batch : due_batches_)
    for (TimerId& due : *batch)
      if (due == id) {
        due = 0;  // taken out to run in this batch: skipped
        return true;
      }
  auto it = timer_deadlines_.find(id);
  if (it == timer_deadlines_.end()) return false;
  timers_.erase(std::make_pair(it->second, id));
  timer_deadlines_.erase(it);
  return true;
}

void EventLoop::Post(Task task) { posted_.Post(std::move(task)); }

void EventLoop::Stop() {
  stop_.store(true);
  posted_.Wake();
}

void EventLoop::RunPostedTasks() {
  posted_.Drain([](Task& task) { task(); });
}

void EventLoop::RunDueTimers() {
  Clock::time_point now = Clock::now();
  // Timers added by a handler with zero delay run in the next iteration, so a
  // self-rearming timer cannot starve fd events.
  std::vector<Task> due;
  std::vector<TimerId> ids;
  while (!timers_.empty() && timers_.begin()->first.first <= now) {
    auto it = timers_.begin();
    ids.push_back(it->first.second);
    due.push_back(std::move(it->second));
    timer_deadlines_.erase(it->first.second);
    timers_.erase(it);
  }
  if (due.empty()) return;
  struct Batch {  // on the stack for CancelTimer while the handlers run
    std::vector<std::vector<TimerId>*>* batches;
    ~Batch() { batches->pop_back(); }
  } batch{&due_batches_};
  due_batches_.push_back(&ids);
  for (size_t i = 0; i < due.size(); ++i) {
    if (ids[i] == 0) continue;  // cancelled by an earlier handler of the batch
    ids[i] = 0;                 // running: cancelling it now is too late
    due[i]();
  }
}

int EventLoop::MillisUntilNextTimer(Clock::duration max_wait) const {
  Clock::duration wait = max_wait;
  if (!timers_.empty()) {
    Clock::duration until = timers_.begin()->first.first - Clock::now();
    if (until < wait) wait = until;
  }
  if (wait <= Clock::duration::zero()) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(wait).count();
  // Round up so a timer is never woken for a millisecond early.
  if (std::chrono::milliseconds(ms) < wait) ++ms;
  return ms > 3600000 ? 3600000 : static_cast<int>(ms);
}

Status EventLoop::RunOnce(Clock::duration max_wait) {
  if (epoll_fd_ < 0) return Status::Error(EINVAL, "event loop not initialised");
  ++iteration_;
  if (!posted_.empty()) max_wait = Clock::duration::zero();
  struct epoll_event events[64];
  int n = epoll_wait(epoll_fd_, events, 64, MillisUntilNextTimer(max_wait));
  if (n < 0) {
    if (errno == EINTR) return Status::Ok();
    return Status::FromErrno("epoll_wait");
  }
  bool woken = false;
  for (int i = 0; i < n; ++i) {
    uint64_t token = events[i].data.u64;
    if (token == kWakeToken) {
      woken = true;  // Drain() below reads the fd
      continue;
    }
    int fd = static_cast<int>(token & 0xffffffffu);
    uint32_t generation = static_cast<uint32_t>(token >> 32);
    auto it = watches_.find(fd);
    // Skip events for a watch removed (or replaced) earlier in this batch.
    if (it == watches_.end() || it->second->generation != generation) continue;
    std::shared_ptr<Watch> keep = it->second;
    keep->handler(events[i].events);
  }
  RunDueTimers();
  // Tasks that the handlers and timers above posted run in this iteration.
  if (woken || !posted_.empty()) RunPostedTasks();
  return Status::Ok();
}

Status EventLoop::Run() {
  // A Stop() that came before Run() is honoured; the flag is consumed.
  while (!stop_.exchange(false)) {
    Status st = RunOnce(std::chrono::hours(1));
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

bool EventLoop::RunUntil(const std::function<bool()>& done, Clock::duration timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  while (!done()) {
    Clock::time_point now = Clock::now();
    if (now >= deadline) return done();
    Clock::duration left = deadline - now;
    if (left > std::chrono::milliseconds(50)) left = std::chrono::milliseconds(50);
    if (!RunOnce(left).ok()) return done();
  }
  return true;
}

}  // namespace ssa
