// mailbox_test.cc: the one mechanism that posts work to a loop from another
// thread (common/base/mailbox.h), by itself and as each of its users has
// it: items from many threads arrive in each thread's order; the bound
// refuses the surplus and counts nothing twice; an item posted while a
// Drain() runs waits for the next one, with the fd readable again; a
// handler that throws leaves the rest queued, in order, ahead of newer
// items; an EventLoop's Post() runs a task that posts itself once per
// iteration, so its fd events and timers still run.
#include <poll.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/mailbox.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

namespace {

bool Readable(int fd) {
  struct pollfd p = {fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

struct Note {  // a typed item, as the upstream bridge has
  int from = 0;
  int seq = 0;
  std::string text;
};

}  // namespace

TEST_GROUP(Mailbox){};

TEST(Mailbox, PostMakesTheFdReadableAndDrainTakesTheItemsInOrder) {
  ssa::Mailbox<Note> box;
  CHECK_OK(box.Open());
  CHECK(box.fd() >= 0);
  CHECK_FALSE(Readable(box.fd()));
  CHECK(box.empty());
  for (int i = 0; i < 3; ++i) CHECK(box.Post(Note{0, i, "n" + std::to_string(i)}));
  CHECK(Readable(box.fd()));
  CHECK_FALSE(box.empty());
  std::vector<int> seen;
  box.Drain([&](Note& n) {
    seen.push_back(n.seq);
    STRCMP_EQUAL(("n" + std::to_string(n.seq)).c_str(), n.text.c_str());
  });
  LONGS_EQUAL(3, seen.size());
  for (int i = 0; i < 3; ++i) LONGS_EQUAL(i, seen[static_cast<size_t>(i)]);
  CHECK_FALSE(Readable(box.fd()));
  CHECK(box.empty());
}

TEST(Mailbox, ItemsFromManyThreadsKeepEachThreadsOrder) {
  ssa::Mailbox<Note> box;
  CHECK_OK(box.Open());
  const int kThreads = 4, kEach = 2000;
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; ++t)
    posters.emplace_back([&box, t] {
      for (int i = 0; i < kEach; ++i) box.Post(Note{t, i, {}});
    });
  std::vector<int> next(kThreads, 0);
  int total = 0;
  bool in_order = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (total < kThreads * kEach && std::chrono::steady_clock::now() < deadline) {
    struct pollfd p = {box.fd(), POLLIN, 0};
    if (poll(&p, 1, 50) != 1) continue;
    box.Drain([&](Note& n) {
      if (n.seq != next[static_cast<size_t>(n.from)]) in_order = false;
      next[static_cast<size_t>(n.from)] = n.seq + 1;
      ++total;
    });
  }
  for (auto& t : posters) t.join();
  LONGS_EQUAL(kThreads * kEach, total);
  CHECK(in_order);
}

TEST(Mailbox, TheBoundRefusesTheSurplusUntilDrained) {
  ssa::Mailbox<int> box(3);
  CHECK_OK(box.Open());
  LONGS_EQUAL(3, box.bound());
  CHECK(box.Post(1));
  CHECK(box.Post(2));
  CHECK(box.Post(3));
  CHECK_FALSE(box.Post(4));
  std::vector<int> seen;
  box.Drain([&](int& v) { seen.push_back(v); });
  LONGS_EQUAL(3, seen.size());
  LONGS_EQUAL(3, seen[2]);
  CHECK(box.Post(5));
  box.Drain([&](int& v) { seen.push_back(v); });
  LONGS_EQUAL(4, seen.size());
  LONGS_EQUAL(5, seen[3]);
}

TEST(Mailbox, UnboundedByDefault) {
  ssa::Mailbox<int> box;
  CHECK(box.bound() == ssa::Mailbox<int>::kUnbounded);
  CHECK_OK(box.Open());
  for (int i = 0; i < 100000; ++i) CHECK(box.Post(i));
  int n = 0;
  box.Drain([&](int&) { ++n; });
  LONGS_EQUAL(100000, n);
}

TEST(Mailbox, AnItemPostedDuringDrainWaitsForTheNextWithTheFdReadable) {
  ssa::Mailbox<int> box;
  CHECK_OK(box.Open());
  box.Post(1);
  std::vector<int> seen;
  box.Drain([&](int& v) {
    seen.push_back(v);
    if (v == 1) box.Post(2);
  });
  LONGS_EQUAL(1, seen.size());
  CHECK(Readable(box.fd()));
  box.Drain([&](int& v) { seen.push_back(v); });
  LONGS_EQUAL(2, seen.size());
  LONGS_EQUAL(2, seen[1]);
}

TEST(Mailbox, AHandlerThatThrowsLeavesTheRestQueuedAheadOfNewerItems) {
  ssa::Mailbox<int> box;
  CHECK_OK(box.Open());
  for (int i = 1; i <= 4; ++i) box.Post(i);
  std::vector<int> seen;
  bool threw = false;
  try {
    box.Drain([&](int& v) {
      if (v == 2) throw std::bad_alloc();
      seen.push_back(v);
    });
  } catch (const std::bad_alloc&) {
    threw = true;
  }
  CHECK(threw);
  LONGS_EQUAL(1, seen.size());
  CHECK(Readable(box.fd()));
  box.Post(5);
  box.Drain([&](int& v) { seen.push_back(v); });
  LONGS_EQUAL(4, seen.size());
  LONGS_EQUAL(3, seen[1]);
  LONGS_EQUAL(4, seen[2]);
  LONGS_EQUAL(5, seen[3]);
}

TEST(Mailbox, WakeMakesTheFdReadableWithoutAnItem) {
  ssa::Mailbox<int> box;
  CHECK_OK(box.Open());
  box.Wake();
  CHECK(Readable(box.fd()));
  int n = 0;
  box.Drain([&](int&) { ++n; });
  LONGS_EQUAL(0, n);
  CHECK_FALSE(Readable(box.fd()));
}

TEST(Mailbox, ItemsStillQueuedAreDroppedWithIt) {
  auto token = std::make_shared<int>(7);
  {
    ssa::Mailbox<std::shared_ptr<int>> box;
    CHECK_OK(box.Open());
    box.Post(token);
    LONGS_EQUAL(2, token.use_count());
  }
  LONGS_EQUAL(1, token.use_count());
}

// EventLoop::Post is a Mailbox: a task that posts itself again runs once
// per iteration, so the loop's timers still fire.
TEST(Mailbox, AnEventLoopTaskThatRepostsItselfDoesNotStarveTimers) {
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  int runs = 0;
  bool fired = false;
  std::function<void()> again = [&] {
    ++runs;
    if (!fired) loop.Post(again);
  };
  loop.AddTimer(std::chrono::milliseconds(20), [&] { fired = true; });
  loop.Post(again);
  CHECK(loop.RunUntil([&] { return fired; }, std::chrono::seconds(10)));
  CHECK(runs >= 1);
}

// A task that throws out of the loop leaves the tasks posted after it to
// run in a later iteration.
TEST(Mailbox, AnEventLoopTaskThatThrowsLeavesTheOthersToRun) {
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  std::vector<int> ran;
  loop.Post([&] { ran.push_back(1); });
  loop.Post([] { throw std::runtime_error("task"); });
  loop.Post([&] { ran.push_back(3); });
  bool threw = false;
  try {
    loop.RunOnce(std::chrono::milliseconds(0));
  } catch (const std::runtime_error&) {
    threw = true;
  }
  CHECK(threw);
  CHECK(loop.RunUntil([&] { return ran.size() == 2; }, std::chrono::seconds(5)));
  LONGS_EQUAL(3, ran[1]);
}
