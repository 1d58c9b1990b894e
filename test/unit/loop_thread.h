// loop_thread.h: an EventLoop on a thread of its own, with a TCP stream
// transport and a quiet log, for tests that drive loop-thread objects (the
// data channel's parent and child) over real loopback sockets. Run() runs
// a task there and returns its value.
#ifndef IBACM_SSA_TEST_UNIT_LOOP_THREAD_H
#define IBACM_SSA_TEST_UNIT_LOOP_THREAD_H

#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/tree/stream.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

namespace ssa {
namespace test {

struct LoopThread {
  EventLoop loop;
  Logger log;
  std::unique_ptr<tree::StreamTransport> tcp;
  std::thread thread;
  LoopThread() {
    CHECK_OK(loop.Init());
    log.set_level(LogLevel::kError);
    CHECK_OK(tree::NewStreamTransport("tcp", &tcp));
    thread = std::thread([this] { loop.Run(); });
  }
  ~LoopThread() {
    loop.Stop();
    thread.join();
  }
  template <class T>
  T Run(std::function<T()> f) {
    auto p = std::make_shared<std::promise<T>>();
    loop.Post([p, f] { p->set_value(f()); });
    return p->get_future().get();
  }
};

}  // namespace test
}  // namespace ssa

#endif
