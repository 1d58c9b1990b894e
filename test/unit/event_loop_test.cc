#include "common/base/event_loop.h"

#include <CppUTest/TestHarness.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "test/support/check_ok.h"

using namespace std::chrono_literals;

TEST_GROUP(EventLoop) {
  ssa::EventLoop* loop;
  int fds[2];
  void setup() override {
    loop = new ssa::EventLoop();
    CHECK_OK(loop->Init());
    CHECK_EQUAL(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds));
  }
  void teardown() override {
    delete loop;
    close(fds[0]);
    close(fds[1]);
  }
};

TEST(EventLoop, FdWatchFiresOnData) {
  int hits = 0;
  CHECK_OK(loop->WatchFd(fds[0], EPOLLIN, [&](uint32_t ev) {
    CHECK(ev & EPOLLIN);
    char buf[8];
    CHECK(read(fds[0], buf, sizeof(buf)) > 0);
    ++hits;
  }));
  CHECK_EQUAL(1, write(fds[1], "x", 1));
  CHECK_TRUE(loop->RunUntil([&] { return hits == 1; }, 2s));
  CHECK_FALSE(loop->WatchFd(fds[0], EPOLLIN, [](uint32_t) {}).ok());  // one watch per fd
}

TEST(EventLoop, UnwatchInsideOwnHandlerIsSafe) {
  int hits = 0;
  CHECK_OK(loop->WatchFd(fds[0], EPOLLIN, [&](uint32_t) {
    ++hits;
    loop->UnwatchFd(fds[0]);
  }));
  CHECK_EQUAL(1, write(fds[1], "x", 1));
  loop->RunUntil([&] { return hits > 0; }, 2s);
  loop->RunOnce(10ms);  // the unread byte must not fire again
  LONGS_EQUAL(1, hits);
  CHECK_FALSE(loop->IsWatched(fds[0]));
}

TEST(EventLoop, ModifyToWritable) {
  bool writable = false;
  CHECK_OK(loop->WatchFd(fds[0], 0, [&](uint32_t ev) { writable = ev & EPOLLOUT; }));
  CHECK_OK(loop->ModifyFd(fds[0], EPOLLOUT));
  CHECK_TRUE(loop->RunUntil([&] { return writable; }, 2s));
  CHECK_FALSE(loop->ModifyFd(12345, EPOLLIN).ok());
}

TEST(EventLoop, TimersFireInDeadlineOrder) {
  std::vector<int> order;
  loop->AddTimer(30ms, [&] { order.push_back(3); });
  loop->AddTimer(1ms, [&] { order.push_back(1); });
  loop->AddTimer(10ms, [&] { order.push_back(2); });
  CHECK_TRUE(loop->RunUntil([&] { return order.size() == 3; }, 2s));
  LONGS_EQUAL(1, order[0]);
  LONGS_EQUAL(2, order[1]);
  LONGS_EQUAL(3, order[2]);
  LONGS_EQUAL(0, loop->timer_count());
}

TEST(EventLoop, TimerDoesNotFireEarly) {
  auto start = ssa::EventLoop::Clock::now();
  ssa::EventLoop::Clock::time_point fired;
  bool done = false;
  loop->AddTimer(20ms, [&] {
    fired = ssa::EventLoop::Clock::now();
    done = true;
  });
  CHECK_TRUE(loop->RunUntil([&] { return done; }, 2s));
  CHECK(fired - start >= 20ms);
}

TEST(EventLoop, CancelledTimerNeverFires) {
  bool fired = false, other = false;
  auto id = loop->AddTimer(5ms, [&] { fired = true; });
  loop->AddTimer(20ms, [&] { other = true; });
  CHECK_TRUE(loop->CancelTimer(id));
  CHECK_FALSE(loop->CancelTimer(id));
  CHECK_TRUE(loop->RunUntil([&] { return other; }, 2s));
  CHECK_FALSE(fired);
}

// Two timers due in one pass: the first handler closes what owns the
// second (the plugin's core going idle while its data server's tick was
// due: the tick ran on the freed server inside OpenSM). The second must not
// run, and cancelling it says it was pending; one that already ran cannot be
// cancelled.
TEST(EventLoop, ATimerCancelledByAnEarlierHandlerOfTheSamePassNeverFires) {
  bool second = false, third = false, later = false;
  ssa::EventLoop::TimerId b = 0, c = 0;
  bool cancelled_b = false, cancelled_c = true;
  loop->AddTimer(1ms, [&] { cancelled_b = loop->CancelTimer(b); });
  b = loop->AddTimer(1ms, [&] { second = true; });
  c = loop->AddTimer(1ms, [&] { third = true; });
  loop->AddTimer(1ms, [&] { cancelled_c = loop->CancelTimer(c); });
  loop->AddTimer(30ms, [&] { later = true; });
  std::this_thread::sleep_for(5ms);  // all four due in one pass
  CHECK_TRUE(loop->RunUntil([&] { return later; }, 2s));
  CHECK_TRUE(cancelled_b);
  CHECK_FALSE(second);
  CHECK_TRUE(third);
  CHECK_FALSE(cancelled_c);  // it ran before: nothing left to cancel
}

TEST(EventLoop, PostFromOtherThreadWakesLoop) {
  int value = 0;
  std::thread t([&] { loop->Post([&] { value = 42; }); });
  CHECK_TRUE(loop->RunUntil([&] { return value == 42; }, 2s));
  t.join();
}

TEST(EventLoop, StopFromOtherThreadEndsRun) {
  std::thread t([&] { loop->Stop(); });
  CHECK_OK(loop->Run());  // returns even if Stop() came first
  t.join();
}

TEST(EventLoop, UninitialisedLoopRefusesWork) {
  ssa::EventLoop raw;
  CHECK_FALSE(raw.WatchFd(fds[0], EPOLLIN, [](uint32_t) {}).ok());
  CHECK_FALSE(raw.RunOnce(1ms).ok());
}
