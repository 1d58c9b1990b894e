// FairQueue: items handed out round robin between their owners, FIFO
// within one owner.
#include "common/base/fair_queue.h"

#include <CppUTest/TestHarness.h>

#include <string>

TEST_GROUP(FairQueue){};

TEST(FairQueue, OwnersTakeTurnsInTheOrderTheyBeganWaiting) {
  ssa::FairQueue<std::string> q;
  for (const char* s : {"a1", "a2", "a3", "a4"}) q.Push(1, s);
  q.Push(2, "b1");
  q.Push(3, "c1");
  q.Push(2, "b2");
  LONGS_EQUAL(7, q.size());
  LONGS_EQUAL(3, q.owners());
  std::string order;
  while (!q.empty()) order += q.Pop() + " ";
  STRCMP_EQUAL("a1 b1 c1 a2 b2 a3 a4 ", order.c_str());
  LONGS_EQUAL(0, q.owners());
}

TEST(FairQueue, AnOwnerThatComesBackWaitsBehindThoseWaiting) {
  ssa::FairQueue<int> q;
  q.Push(1, 10);
  q.Push(2, 20);
  LONGS_EQUAL(10, q.Pop());  // owner 1 has nothing left: out of the turns
  q.Push(1, 11);
  q.Push(2, 21);
  LONGS_EQUAL(20, q.Pop());
  LONGS_EQUAL(11, q.Pop());
  LONGS_EQUAL(21, q.Pop());
  CHECK_TRUE(q.empty());
}

TEST(FairQueue, RemoveTakesOneItemAndAnEmptiedOwnerLosesItsTurn) {
  ssa::FairQueue<int> q;
  q.Push(1, 10);
  q.Push(2, 20);
  q.Push(1, 11);
  int out = 0;
  CHECK_FALSE(q.Remove(
      3, [](int) { return true; }, &out));
  CHECK_FALSE(q.Remove(
      1, [](int v) { return v == 20; }, &out));
  CHECK_TRUE(q.Remove(
      2, [](int v) { return v == 20; }, &out));
  LONGS_EQUAL(20, out);
  LONGS_EQUAL(1, q.owners());
  CHECK_TRUE(q.Remove(
      1, [](int v) { return v == 11; }, &out));
  LONGS_EQUAL(10, q.Pop());
  CHECK_TRUE(q.empty());
  q.Push(5, 50);
  q.Push(6, 60);
  int sum = 0;
  q.ForEach([&sum](int& v) { sum += v; });
  LONGS_EQUAL(110, sum);
  LONGS_EQUAL(2, q.TakeAll().size());
  CHECK_TRUE(q.empty());
  LONGS_EQUAL(0, q.owners());
}
