// tree_bench_util.h: bench_tree's small helpers: clocks, /proc readings,
// progress lines, `name = value` figures, a loop on its own thread.
#ifndef IBACM_SSA_TEST_BENCH_TREE_BENCH_UTIL_H
#define IBACM_SSA_TEST_BENCH_TREE_BENCH_UTIL_H

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/status.h"
#include "common/smdb/smdb_index.h"

namespace ssa {
namespace bench {

using Clock = std::chrono::steady_clock;

// Seconds since `t`, and from `a` to `b`.
double Since(Clock::time_point t);
double Between(Clock::time_point a, Clock::time_point b);
// /proc/self/status fields in bytes ("VmRSS", "VmHWM"), or another
// process's.
uint64_t ProcStatusBytes(const char* field, pid_t pid = 0);
// A process's proportional set size (/proc/PID/smaps_rollup "Pss").
uint64_t ProcPssBytes(pid_t pid);
// A /proc/meminfo field ("MemTotal:", ...) in bytes, 0 if missing.
uint64_t MemInfoBytes(const char* key);
double Gib(uint64_t bytes);
// A progress line on stderr, with the seconds since the first one.
void Progress(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Num(double v, int decimals = 3);
// The steady clock as nanoseconds (the same in every process), and back.
int64_t NowNs();
Clock::time_point FromNs(int64_t ns);
// `n` consumer port GUIDs spread evenly over the CA ports of `x`.
std::vector<uint64_t> SpreadConsumers(const smdb::SmdbIndex& x, uint64_t sm_guid, size_t n);
// This process's CPU time, in ms.
double ProcessCpuMs();
// A `name = value` line on stdout (the figures the file comment lists).
void Figure(const std::string& name, const std::string& value);
void Figure(const std::string& name, uint64_t value);

// Runs `f` on `loop`'s thread and waits for its value.
template <class F>
auto RunOn(ssa::EventLoop* loop, F f) -> decltype(f()) {
  using R = decltype(f());
  auto p = std::make_shared<std::promise<R>>();
  std::future<R> fut = p->get_future();
  loop->Post([p, f]() mutable {
    if constexpr (std::is_void<R>::value) {
      f();
      p->set_value();
    } else {
      p->set_value(f());
    }
  });
  return fut.get();
}

// A loop on its own thread, named for profilers (`perf report --sort comm`).
// A loop on its own thread, named for profilers (`perf report --sort comm`).
struct LoopThread {
  ssa::EventLoop loop;
  std::thread thread;
  Status Start(const std::string& name) {
    Status st = loop.Init();
    if (!st.ok()) return st;
    thread = std::thread([this, name] {
      pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
      loop.Run();
    });
    return Status::Ok();
  }
  void Stop() {
    if (!thread.joinable()) return;
    loop.Stop();
    thread.join();
  }
};

}  // namespace bench
}  // namespace ssa

#endif
