// mailbox.h: the one way work is posted to a loop from another thread.
//
// A Mailbox<Item> is a queue and an eventfd: Post() queues an item and
// makes the fd readable; the loop that watches the fd calls Drain(), which
// hands it, in order, every item queued when Drain() began. Items posted
// while Drain() runs (by the items themselves, or by other threads) wait
// for the next Drain(): the fd is readable again for them, so a task that
// posts itself cannot starve the loop's other work. A handler that throws
// (out of memory) leaves the items behind it queued and the fd readable, so
// they still run, and the exception goes on to the loop's guard.
//
// Its users, each with its own item type and bound:
//   - EventLoop::Post (event_loop.h): Mailbox<Reactor::Task>, the loop's
//     own wake fd (Wake() also serves Stop());
//   - TaskMailbox (task_mailbox.h): Mailbox<Reactor::Task> watched on a
//     Reactor that has no Post of its own (the core's loop, inside a
//     provider);
//   - the upstream bridge (providers/upstream/upstream_bridge.h): a bounded
//     Mailbox<InboxItem> watched through the provider ABI's fd ops, so a
//     library that floods the core is refused (Post() returns false).
//
// Threads: Post(), Wake() and empty() from any thread; Open(), Drain() and
// the destructor on the loop's thread, and no thread may post once the
// destructor runs (join the posting threads first). Items still queued
// then are dropped, not handled. Raw system calls on the eventfd: see
// raw_fd.h (umad2sim).
#ifndef IBACM_SSA_COMMON_BASE_MAILBOX_H
#define IBACM_SSA_COMMON_BASE_MAILBOX_H

#include <sys/eventfd.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <utility>

#include "common/base/mutex.h"
#include "common/base/raw_fd.h"
#include "common/base/status.h"

namespace ssa {

template <typename Item>
class Mailbox {
 public:
  static constexpr size_t kUnbounded = std::numeric_limits<size_t>::max();

  // At most `bound` items queued at once; Post() refuses more.
  explicit Mailbox(size_t bound = kUnbounded) : bound_(bound) {}
  ~Mailbox() {
    if (fd_ >= 0) RawClose(fd_);
  }
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // Creates the eventfd the loop watches (for EPOLLIN); once.
  Status Open() {
    if (fd_ >= 0) return Status::Ok();
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return Status::FromErrno("eventfd");
    fd_ = fd;
    return Status::Ok();
  }
  int fd() const { return fd_; }
  size_t bound() const { return bound_; }

  // Queues `item` and wakes the loop. False, and `item` is dropped, if
  // `bound` items are queued already (the caller counts it).
  bool Post(Item item) {
    {
      MutexLock lock(&mu_);
      if (queue_.size() >= bound_) return false;
      queue_.push_back(std::move(item));
    }
    Wake();
    return true;
  }

  // Makes the fd readable without queuing anything.
  void Wake() {
    uint64_t one = 1;
    // A full counter (never in practice) still leaves the fd readable.
    ssize_t n = RawWrite(fd_, &one, sizeof(one));
    (void)n;
  }

  bool empty() const {
    MutexLock lock(&mu_);
    return queue_.empty();
  }

  // Calls `handle(Item&)` for each item queued now, in order (loop only).
  template <typename Handler>
  void Drain(Handler&& handle) {
    uint64_t count;
    ssize_t n = RawRead(fd_, &count, sizeof(count));
    (void)n;
    std::deque<Item> batch;
    {
      MutexLock lock(&mu_);
      batch.swap(queue_);
    }
    while (!batch.empty()) {
      Item item = std::move(batch.front());
      batch.pop_front();
      try {
        handle(item);
      } catch (...) {
        Requeue(&batch);
        throw;
      }
    }
  }

 private:
  // The rest of a batch whose handler threw goes back in front of what was
  // posted since, and the fd is readable again.
  void Requeue(std::deque<Item>* rest) {
    {
      MutexLock lock(&mu_);
      queue_.insert(queue_.begin(), std::make_move_iterator(rest->begin()),
                    std::make_move_iterator(rest->end()));
    }
    Wake();
  }

  const size_t bound_;
  int fd_ = -1;
  mutable Mutex mu_;
  std::deque<Item> queue_ GUARDED_BY(mu_);
};

}  // namespace ssa

#endif
