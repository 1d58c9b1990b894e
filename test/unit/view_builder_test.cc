// view_builder_test.cc: the ssa provider's off-loop PRDB indexing
// (providers/ssa/view_builder.h) and the mailbox that brings its results
// back to a Reactor (common/base/task_mailbox.h), on an EventLoop: results
// on the loop thread, in order; a PRDB that arrives while one is in flight
// waits and only the newest waiting is built; the same PRDB twice is built
// once; a forgotten port gets nothing; tasks posted from other threads run
// on the loop, and queued ones are dropped with the mailbox.
#include <atomic>
#include <chrono>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/task_mailbox.h"
#include "common/base/worker_pool.h"
#include "common/smdb/smdb_prdb.h"
#include "providers/ssa/view_builder.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using ssa::ssa_provider::PrdbView;
using ssa::ssa_provider::ViewBuilder;

namespace {

std::shared_ptr<const ssa::smdb::Prdb> Prdb(uint64_t epoch, int paths) {
  auto db = std::make_shared<ssa::smdb::Prdb>();
  db->global_epoch = epoch;
  db->source.records[0].base_lid = 4;
  for (int d = 0; d < paths; ++d) {
    ssa::smdb::PrdbPath r;
    r.sgid[15] = 4;
    r.dgid[14] = static_cast<uint8_t>((d + 8) >> 8);
    r.dgid[15] = static_cast<uint8_t>(d + 8);
    r.slid = 4;
    r.dlid = static_cast<uint16_t>(d + 8);
    r.flags = ssa::smdb::kPathReversible;
    db->paths.records.push_back(r);
  }
  db->SortRecords();
  return db;
}

struct Built {
  uint64_t key;
  uint64_t epoch;
  std::thread::id thread;
};

}  // namespace

TEST_GROUP(ViewBuilder) {
  ssa::EventLoop loop;
  std::unique_ptr<ssa::TaskMailbox> mailbox;
  std::unique_ptr<ssa::WorkerPool> pool;
  std::vector<Built> built;
  std::unique_ptr<ViewBuilder> views;

  // As the provider sets it up: a mailbox to the loop, one worker.
  void setup() override {
    CHECK_OK(loop.Init());
    mailbox = std::make_unique<ssa::TaskMailbox>(&loop);
    CHECK_OK(mailbox->Init());
    pool = std::make_unique<ssa::WorkerPool>(mailbox->Poster(), 1);
    views = std::make_unique<ViewBuilder>(
        [this](uint64_t key, std::shared_ptr<const PrdbView> v, double ms) {
          CHECK(ms >= 0);
          built.push_back({key, v->epoch(), std::this_thread::get_id()});
        });
    views->set_pool(pool.get());
    CHECK(views->off_loop());
  }
  void teardown() override {
    pool.reset();
    views.reset();
    mailbox.reset();
  }
  void RunUntil(size_t n) {
    CHECK(loop.RunUntil([&] { return built.size() >= n; }, std::chrono::seconds(10)));
  }
};

TEST(ViewBuilder, ViewsComeBackOnTheLoopInOrderAndOnlyTheNewestWaitingIsBuilt) {
  // The loop does not run between these: the first is in flight (its
  // result cannot be delivered yet), the second waits, the third replaces it.
  views->Build(1, Prdb(1, 50));
  views->Build(1, Prdb(2, 50));
  views->Build(1, Prdb(3, 50));
  views->Build(2, Prdb(7, 5));  // another port: its own slot
  RunUntil(3);
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(50));  // nothing more comes
  LONGS_EQUAL(3, built.size());
  std::vector<uint64_t> port1;
  for (const Built& b : built) {
    CHECK(b.thread == std::this_thread::get_id());
    if (b.key == 1) port1.push_back(b.epoch);
    if (b.key == 2) LONGS_EQUAL(7, b.epoch);
  }
  LONGS_EQUAL(2, port1.size());
  LONGS_EQUAL(1, port1[0]);
  LONGS_EQUAL(3, port1[1]);
}

TEST(ViewBuilder, TheSamePrdbTwiceIsBuiltOnce) {
  auto db = Prdb(4, 20);
  views->Build(1, db);
  views->Build(1, db);
  RunUntil(1);
  views->Build(1, db);  // a view of it is in place: the caller skips it; we would build it again
  RunUntil(2);
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(50));
  LONGS_EQUAL(2, built.size());
}

TEST(ViewBuilder, AForgottenPortGetsNothing) {
  views->Build(1, Prdb(1, 20));
  views->Build(1, Prdb(2, 20));
  views->Forget(1);
  views->Build(2, Prdb(5, 20));
  RunUntil(1);
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(50));
  LONGS_EQUAL(1, built.size());
  LONGS_EQUAL(2, built[0].key);
}

TEST(ViewBuilder, WithoutAPoolViewsAreBuiltAtOnce) {
  views->set_pool(nullptr);
  views->Build(1, Prdb(1, 20));
  LONGS_EQUAL(1, built.size());
}

TEST(ViewBuilder, DestroyedWithBuildsInFlightNothingIsDelivered) {
  for (uint64_t e = 1; e <= 20; ++e) views->Build(e, Prdb(e, 2000));
  // As the provider goes: the worker joined, then the mailbox with the
  // results it holds.
  pool.reset();
  mailbox.reset();
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(50));
  LONGS_EQUAL(0, built.size());
}

TEST_GROUP(TaskMailbox) {
  ssa::EventLoop loop;
  void setup() override { CHECK_OK(loop.Init()); }
};

TEST(TaskMailbox, TasksPostedFromOtherThreadsRunOnTheLoopInOrder) {
  ssa::TaskMailbox box(&loop);
  CHECK_OK(box.Init());
  std::vector<int> ran;
  std::atomic<bool> wrong_thread{false};
  const std::thread::id me = std::this_thread::get_id();
  // The loop runs while the other thread posts.
  std::thread poster([&] {
    for (int i = 0; i < 1000; ++i) {
      box.Post([&, i] {
        if (std::this_thread::get_id() != me) wrong_thread = true;
        ran.push_back(i);
      });
      if (i % 100 == 0) std::this_thread::yield();
    }
  });
  bool all = loop.RunUntil([&] { return ran.size() == 1000; }, std::chrono::seconds(10));
  poster.join();
  CHECK(all);
  CHECK_FALSE(wrong_thread.load());
  for (int i = 0; i < 1000; ++i) LONGS_EQUAL(i, ran[static_cast<size_t>(i)]);
}

TEST(TaskMailbox, ATaskThatThrowsLeavesTheOthersQueuedAndRunnable) {
  ssa::TaskMailbox box(&loop);
  CHECK_OK(box.Init());
  std::vector<int> ran;
  box.Post([&] { ran.push_back(1); });
  box.Post([] { throw std::bad_alloc(); });
  box.Post([&] { ran.push_back(3); });
  bool threw = false;
  try {
    loop.RunUntil([&] { return ran.size() == 2; }, std::chrono::seconds(5));
  } catch (const std::bad_alloc&) {
    threw = true;  // the reactor's guard would log it; the loop goes on
  }
  CHECK(threw);
  CHECK(loop.RunUntil([&] { return ran.size() == 2; }, std::chrono::seconds(5)));
  LONGS_EQUAL(3, ran[1]);
}

TEST(TaskMailbox, TasksStillQueuedAreDroppedWithIt) {
  bool ran = false;
  {
    ssa::TaskMailbox box(&loop);
    CHECK_OK(box.Init());
    box.Post([&] { ran = true; });
    LONGS_EQUAL(1, loop.watch_count());
  }
  LONGS_EQUAL(0, loop.watch_count());
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(20));
  CHECK_FALSE(ran);
}
