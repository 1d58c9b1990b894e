// worker_pool.cc: a mutex/condvar job queue drained by N threads.
#include "common/base/worker_pool.h"

namespace ssa {

WorkerPool::WorkerPool(EventLoop* loop, size_t threads)
    : WorkerPool([loop](std::function<void()> done) { loop->Post(std::move(done)); }, threads) {}

WorkerPool::WorkerPool(PostFn post, size_t threads) : post_(std::move(post)) {
  if (threads == 0) threads = 1;
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { ThreadMain(); });
}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Shutdown() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.NotifyAll();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void WorkerPool::Submit(std::function<void()> work, std::function<void()> done) {
  {
    MutexLock lock(&mutex_);
    if (stopping_) return;
    queue_.push_back(Job{std::move(work), std::move(done)});
  }
  cv_.NotifyOne();
}

void WorkerPool::ThreadMain() {
  for (;;) {
    Job job;
    {
      MutexLock lock(&mutex_);
      while (!stopping_ && queue_.empty()) cv_.Wait(&mutex_);
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    job.work();
    if (job.done) post_(std::move(job.done));
  }
}

}  // namespace ssa
