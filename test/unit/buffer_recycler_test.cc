// buffer_recycler_test.cc: released buffers come back with their memory,
// the list stays bounded, small buffers go to malloc, buffers may outlive
// the recycler, and threads may take and release at once.
#include "common/base/buffer_recycler.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "CppUTest/TestHarness.h"

using ssa::BufferRecycler;

namespace {
constexpr size_t kBig = 512 << 10;
}

TEST_GROUP(BufferRecycler){};

TEST(BufferRecycler, AReleasedBufferIsReusedWithItsMemory) {
  BufferRecycler r(4);
  std::string s = r.Take(kBig);
  CHECK(s.capacity() >= kBig + kBig / 64);  // room for a slightly bigger next version
  s.assign(kBig, 'x');
  std::shared_ptr<const std::string> shared = r.Share(std::move(s));
  const char* memory = shared->data();
  CHECK_EQUAL(kBig, shared->size());
  shared.reset();
  CHECK_EQUAL(1u, r.counters().kept);
  std::string again = r.Take(kBig);
  CHECK(again.empty());
  CHECK(again.data() == memory);
  BufferRecycler::Counters c = r.counters();
  CHECK_EQUAL(1u, c.reused);
  CHECK_EQUAL(1u, c.fresh);
  CHECK_EQUAL(0u, c.kept);
  CHECK_EQUAL(0u, c.kept_bytes);
}

TEST(BufferRecycler, TakesTheSmallestKeptBufferThatFits) {
  BufferRecycler r(4);
  r.Share(std::string(kBig, 'a'));  // released at once
  r.Share(std::string(2 * kBig, 'b'));
  r.Share(std::string(4 * kBig, 'c'));
  CHECK_EQUAL(3u, r.counters().kept);
  CHECK(r.Take(kBig + 1).capacity() >= 2 * kBig);
  BufferRecycler::Counters c = r.counters();
  CHECK_EQUAL(2u, c.kept);
  // The 2x one was taken: the 1x and the 4x remain.
  std::string big = r.Take(3 * kBig);
  CHECK(big.capacity() >= 4 * kBig);
  CHECK_EQUAL(1u, r.counters().kept);
  // Nothing kept fits: a new one.
  std::string huge = r.Take(8 * kBig);
  CHECK_EQUAL(1u, r.counters().fresh);
  CHECK_EQUAL(1u, r.counters().kept);
}

TEST(BufferRecycler, TheListIsBoundedAndSmallBuffersAreNotKept) {
  BufferRecycler r(2);
  std::vector<std::shared_ptr<const std::string>> held;
  for (int i = 0; i < 3; ++i) held.push_back(r.Share(std::string(kBig, 'x')));
  held.push_back(r.Share(std::string(100, 's')));
  held.clear();
  BufferRecycler::Counters c = r.counters();
  CHECK_EQUAL(2u, c.kept);
  CHECK_EQUAL(2u, c.returned);
  CHECK_EQUAL(2u, c.dropped);  // the third big one and the small one
  CHECK(c.kept_bytes >= 2 * kBig);
}

TEST(BufferRecycler, BuffersMayOutliveTheRecycler) {
  std::shared_ptr<const std::string> survivor;
  {
    BufferRecycler r(4);
    survivor = r.Share(std::string(kBig, 'z'));
    r.Share(std::string(kBig, 'k'));  // kept, freed with the recycler
  }
  CHECK_EQUAL('z', (*survivor)[kBig - 1]);
  survivor.reset();  // freed normally (ASan/LSan check it)
}

TEST(BufferRecycler, ThreadsTakeAndReleaseConcurrently) {
  BufferRecycler r(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&r, t] {
      std::vector<std::shared_ptr<const std::string>> mine;
      for (int i = 0; i < 200; ++i) {
        std::string s = r.Take(kBig / 8);
        s.assign(kBig / 8, static_cast<char>('a' + t));
        mine.push_back(r.Share(std::move(s)));
        if (mine.size() > 3) mine.erase(mine.begin());
        for (const auto& b : mine) CHECK_EQUAL(static_cast<char>('a' + t), b->back());
      }
    });
  for (auto& th : threads) th.join();
  BufferRecycler::Counters c = r.counters();
  CHECK_EQUAL(800u, c.reused + c.fresh);
  CHECK(c.reused > 0);
  CHECK(c.kept <= 8u);
}
