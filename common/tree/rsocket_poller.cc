// rsocket_poller.cc: see rsocket_poller.h.
#include "common/tree/rsocket_poller.h"
#include "common/base/mutex.h"

#include <rdma/rsocket.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace ssa {
namespace tree {

std::shared_ptr<RsocketPoller> RsocketPoller::Acquire() {
  // Only a weak reference here: the streams and listeners own the poller.
  static Mutex mu;
  static std::weak_ptr<RsocketPoller> current;
  MutexLock lock(&mu);
  std::shared_ptr<RsocketPoller> poller = current.lock();
  if (!poller) {
    poller = std::make_shared<RsocketPoller>(rpoll);
    current = poller;
  }
  return poller;
}

RsocketPoller::RsocketPoller(PollFn poll)
    : poll_(poll), wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)), thread_([this] { Run(); }) {}

RsocketPoller::~RsocketPoller() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    Wake();
  }
  thread_.join();
  close(wake_fd_);
}

void RsocketPoller::Wake() {
  uint64_t one = 1;
  if (write(wake_fd_, &one, sizeof(one)) < 0) {
    // The counter is full: the thread is woken already.
  }
}

void RsocketPoller::Add(int fd, int efd, short events) {
  MutexLock lock(&mu_);
  entries_[fd] = {efd, events};
  Wake();
}

void RsocketPoller::Want(int fd, short events) {
  MutexLock lock(&mu_);
  auto it = entries_.find(fd);
  if (it == entries_.end() || it->second.events == events) return;
  it->second.events = events;
  Wake();
}

void RsocketPoller::Remove(int fd) {
  MutexLock lock(&mu_);
  if (!entries_.erase(fd) || !polling_) return;
  // The thread may be polling `fd` now: wait until it is back, and so
  // polls a set without it, before the owner closes it.
  uint64_t round = round_;
  Wake();
  while (round_ == round) round_done_.Wait(&mu_);
}

uint64_t RsocketPoller::rounds() const {
  MutexLock lock(&mu_);
  return round_;
}

void RsocketPoller::Run() {
  std::vector<pollfd> fds;
  mu_.Lock();
  while (!stop_) {
    fds.assign(1, {wake_fd_, POLLIN, 0});
    for (const auto& kv : entries_)
      if (kv.second.events) fds.push_back({kv.first, kv.second.events, 0});
    polling_ = true;
    mu_.Unlock();
    int n = poll_(fds.data(), fds.size(), -1);  // blocks: Wake() ends it
    mu_.Lock();
    polling_ = false;
    ++round_;
    round_done_.NotifyAll();
    if (n <= 0) continue;  // EINTR; nothing else fails with valid arguments
    if (fds[0].revents) {
      uint64_t count;
      while (read(wake_fd_, &count, sizeof(count)) == sizeof(count)) {
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      // Still registered (Remove waits for this round, so an erased entry
      // is gone and its eventfd may be closed: not written to).
      auto it = entries_.find(fds[i].fd);
      if (it == entries_.end()) continue;
      uint64_t one = 1;
      if (write(it->second.efd, &one, sizeof(one)) < 0) {
        // The eventfd is already signalled (counter full): nothing lost.
      }
      it->second.events = 0;  // level-triggered: until the owner wants more
    }
  }
  mu_.Unlock();
}

}  // namespace tree
}  // namespace ssa
