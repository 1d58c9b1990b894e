// mutex.h: the project's mutex, lock and condition variable: std::mutex and
// std::condition_variable with clang's thread-safety attributes
// (thread_annotations.h), so `GUARDED_BY(mu_)` and `REQUIRES(mu_)` are
// checked at compile time by scripts/thread-safety.sh. No cost: every
// member is an inline call of the std one.
//
//   Mutex mu_;
//   std::deque<Item> queue_ GUARDED_BY(mu_);
//   ...
//   MutexLock lock(&mu_);            // std::lock_guard
//   while (!ready_) cv_.Wait(&mu_);  // needs mu_ held
#ifndef IBACM_SSA_COMMON_BASE_MUTEX_H
#define IBACM_SSA_COMMON_BASE_MUTEX_H

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "common/base/thread_annotations.h"

namespace ssa {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope (std::lock_guard).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// std::condition_variable waiting on a Mutex the caller holds. Callers
// loop on their condition (`while (!ready_) cv_.Wait(&mu_);`) in the
// function that holds the lock, so the analysis sees every guarded read.
class CondVar {
 public:
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's
  }

  // False when `deadline` passed without a notification.
  template <typename Clock, typename Duration>
  bool WaitUntil(Mutex* mu, std::chrono::time_point<Clock, Duration> deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    bool notified = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return notified;
  }

  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace ssa

#endif
