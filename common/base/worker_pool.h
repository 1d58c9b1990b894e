// worker_pool.h: a few threads for CPU-heavy work whose results come back to
// an EventLoop.
//
// Submit() is called on the loop thread. `work` runs on a pool thread and must
// not touch loop-owned state; `done` runs afterwards on the loop thread. The
// pool borrows the loop, which must outlive it; on a Reactor without Post
// (a provider on the core's loop) `done` goes back through a TaskMailbox
// (task_mailbox.h), the pool built with its Poster(). Destroying the pool waits for
// the running jobs; queued jobs that never started are dropped together with
// their `done` callbacks.
//
// Users: ibssa's access role computes its consumers' PRDBs here
// (distrib/prdb_service.h) while its loop keeps serving; the ssa provider
// indexes each new PRDB here (providers/ssa/view_builder.h) while ibacm's
// loop keeps answering from the last one. The OpenSM plugin
// does not use it: its extraction thread
// (opensm_plugin/extract_worker.h) is woken by events from OpenSM's own
// threads, with no EventLoop to return to, and makes one SMDB version at a
// time, coalescing requests.
#ifndef IBACM_SSA_COMMON_BASE_WORKER_POOL_H
#define IBACM_SSA_COMMON_BASE_WORKER_POOL_H

#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/mutex.h"

namespace ssa {

class WorkerPool {
 public:
  using PostFn = std::function<void(std::function<void()>)>;  // any thread
  WorkerPool(EventLoop* loop, size_t threads);
  WorkerPool(PostFn post, size_t threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> work, std::function<void()> done);

  // Convenience: the value `work` returns is handed to `done` on the loop.
  template <typename R>
  void SubmitWithResult(std::function<R()> work, std::function<void(R)> done) {
    auto result = std::make_shared<R>();
    Submit([result, work = std::move(work)] { *result = work(); },
           [result, done = std::move(done)] { done(std::move(*result)); });
  }

  size_t thread_count() const { return threads_.size(); }
  void Shutdown();

 private:
  struct Job {
    std::function<void()> work;
    std::function<void()> done;
  };
  void ThreadMain();

  PostFn post_;
  Mutex mutex_;
  CondVar cv_;
  std::deque<Job> queue_ GUARDED_BY(mutex_);
  bool stopping_ GUARDED_BY(mutex_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace ssa

#endif
