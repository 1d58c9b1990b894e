#include "common/base/worker_pool.h"

#include <CppUTest/TestHarness.h>

#include <atomic>
#include <thread>

#include "test/support/check_ok.h"

using namespace std::chrono_literals;

TEST_GROUP(WorkerPool) {
  ssa::EventLoop loop;
  void setup() override { CHECK_OK(loop.Init()); }
};

TEST(WorkerPool, WorkRunsOffLoopAndResultComesBackOnLoop) {
  ssa::WorkerPool pool(&loop, 2);
  std::thread::id loop_thread = std::this_thread::get_id();
  std::atomic<int> worked{0};
  int done = 0;
  for (int i = 0; i < 10; ++i) {
    pool.SubmitWithResult<int>(
        [&, i] {
          CHECK(std::this_thread::get_id() != loop_thread);
          ++worked;
          return i * i;
        },
        [&, i](int r) {
          CHECK(std::this_thread::get_id() == loop_thread);
          LONGS_EQUAL(i * i, r);
          ++done;
        });
  }
  CHECK_TRUE(loop.RunUntil([&] { return done == 10; }, 5s));
  LONGS_EQUAL(10, worked.load());
}

TEST(WorkerPool, ShutdownJoinsAndRefusesNewWork) {
  auto pool = std::make_unique<ssa::WorkerPool>(&loop, 1);
  LONGS_EQUAL(1, pool->thread_count());
  pool->Shutdown();
  bool ran = false;
  pool->Submit([&] { ran = true; }, nullptr);
  pool.reset();
  loop.RunOnce(1ms);
  CHECK_FALSE(ran);
}
