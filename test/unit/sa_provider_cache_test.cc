// sa_provider_cache_test.cc: the sa provider's RouteCache: LRU size bound,
// lazy expiry, negative entries, pending entries that coalesce requests and
// are never evicted, and the erase hooks port changes rely on.
#include <arpa/inet.h>

#include <cstring>
#include <vector>

#include "common/base/big_endian.h"
#include "providers/shared/route_cache.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::provider_shared::kNeverExpires;
using ssa::provider_shared::RouteCache;
using ssa::provider_shared::RouteEntry;
using ssa::provider_shared::RouteKey;
using ssa::provider_shared::RouteState;

namespace {

ibv_path_record PathTo(uint16_t dlid) {
  ibv_path_record p{};
  p.dlid = ssa::ToBe16(dlid);
  p.slid = ssa::ToBe16(1);
  return p;
}

// Adds a completed (valid) entry for LID `lid` on endpoint 1.
void AddValid(RouteCache* c, uint16_t lid, uint64_t expires = kNeverExpires) {
  RouteEntry* e = c->AddPending(RouteKey::Lid(1, lid), 1, lid);
  c->CompleteValid(e, PathTo(lid), expires);
}

}  // namespace

TEST_GROUP(SaProviderCache){};

TEST(SaProviderCache, KeysTellEndpointKindAndDestinationApart) {
  uint8_t gid[16] = {0xfe, 0x80};
  gid[15] = 7;
  CHECK(RouteKey::Lid(1, 7) == RouteKey::Lid(1, 7));
  CHECK_FALSE(RouteKey::Lid(1, 7) == RouteKey::Lid(2, 7));
  CHECK_FALSE(RouteKey::Lid(1, 7) == RouteKey::Lid(1, 8));
  CHECK_FALSE(RouteKey::Lid(1, 7) == RouteKey::Gid(1, gid));
  LONGS_EQUAL(0x1234, RouteKey::Lid(1, 0x1234).lid());
  RouteCache c(10);
  AddValid(&c, 7);
  CHECK(c.Find(RouteKey::Lid(1, 7), 0) != nullptr);
  CHECK(c.Find(RouteKey::Lid(2, 7), 0) == nullptr);
  CHECK(c.Find(RouteKey::Gid(1, gid), 0) == nullptr);
}

TEST(SaProviderCache, SizeBoundDropsTheLeastRecentlyUsed) {
  RouteCache c(3);
  AddValid(&c, 1);
  AddValid(&c, 2);
  AddValid(&c, 3);
  CHECK(c.Find(RouteKey::Lid(1, 1), 0) != nullptr);  // 1 is now the most recent
  AddValid(&c, 4);                                   // evicts 2, the oldest unused
  LONGS_EQUAL(3, c.completed());
  LONGS_EQUAL(1, c.stats().evictions);
  CHECK(c.Find(RouteKey::Lid(1, 2), 0) == nullptr);
  CHECK(c.Find(RouteKey::Lid(1, 1), 0) != nullptr);
  CHECK(c.Find(RouteKey::Lid(1, 3), 0) != nullptr);
  CHECK(c.Find(RouteKey::Lid(1, 4), 0) != nullptr);
}

TEST(SaProviderCache, ExpiryIsCheckedOnLookup) {
  RouteCache c(10);
  AddValid(&c, 9, 1000);
  RouteEntry* e = c.Find(RouteKey::Lid(1, 9), 999);
  CHECK(e != nullptr);
  LONGS_EQUAL(9, ssa::FromBe16(e->path.dlid));
  CHECK(c.Find(RouteKey::Lid(1, 9), 1000) == nullptr);  // expired: dropped
  LONGS_EQUAL(1, c.stats().expirations);
  LONGS_EQUAL(0, c.size());
}

TEST(SaProviderCache, NegativeEntriesHoldAStatusUntilTheyExpire) {
  RouteCache c(10);
  RouteEntry* e = c.AddPending(RouteKey::Lid(1, 99), 1, 5);
  c.CompleteFailed(e, 9 /* EDESTADDR */, 5000);
  e = c.Find(RouteKey::Lid(1, 99), 4999);
  CHECK(e != nullptr);
  CHECK(e->state == RouteState::kFailed);
  LONGS_EQUAL(9, e->status);
  CHECK(c.Find(RouteKey::Lid(1, 99), 5000) == nullptr);
}

TEST(SaProviderCache, PendingEntriesCollectWaitersAndAreNeverEvicted) {
  RouteCache c(1);
  RouteEntry* p = c.AddPending(RouteKey::Lid(1, 50), 3, 77);
  p->waiters.push_back(100);
  // A second request for the same key finds the pending entry and waits.
  RouteEntry* again = c.Find(RouteKey::Lid(1, 50), 0);
  POINTERS_EQUAL(p, again);
  again->waiters.push_back(101);
  AddValid(&c, 1);
  AddValid(&c, 2);  // the bound applies to completed entries only
  LONGS_EQUAL(1, c.completed());
  RouteEntry* still = c.Peek(RouteKey::Lid(1, 50));
  POINTERS_EQUAL(p, still);
  CHECK(still->state == RouteState::kPending);
  LONGS_EQUAL(3, still->generation);
  LONGS_EQUAL(77, still->query_token);
  LONGS_EQUAL(2, still->waiters.size());
  // Pending entries never expire.
  CHECK(c.Find(RouteKey::Lid(1, 50), UINT64_MAX - 1) != nullptr);
}

TEST(SaProviderCache, ZeroCapacityKeepsNothingCompleted) {
  RouteCache c(0);
  RouteEntry* e = c.AddPending(RouteKey::Lid(1, 4), 1, 1);
  CHECK(c.Find(RouteKey::Lid(1, 4), 0) != nullptr);  // pending: kept while it waits
  c.CompleteValid(e, PathTo(4), kNeverExpires);
  LONGS_EQUAL(0, c.size());
  CHECK(c.Find(RouteKey::Lid(1, 4), 0) == nullptr);
}

TEST(SaProviderCache, PutReplacesCompletedButLeavesPendingAlone) {
  RouteCache c(10);
  CHECK_TRUE(c.Put(RouteKey::Lid(1, 3), PathTo(3), kNeverExpires, 1));
  ibv_path_record other = PathTo(3);
  other.mtu = 0x84;
  CHECK_TRUE(c.Put(RouteKey::Lid(1, 3), other, kNeverExpires, 1));
  LONGS_EQUAL(1, c.size());
  LONGS_EQUAL(0x84, c.Find(RouteKey::Lid(1, 3), 0)->path.mtu);
  c.AddPending(RouteKey::Lid(1, 6), 1, 9);
  CHECK_FALSE(c.Put(RouteKey::Lid(1, 6), PathTo(6), kNeverExpires, 1));
  CHECK(c.Peek(RouteKey::Lid(1, 6))->state == RouteState::kPending);
}

TEST(SaProviderCache, EraseIfHandsOverWaitersBeforeFreeing) {
  RouteCache c(10);
  AddValid(&c, 1);
  RouteEntry* p = c.AddPending(RouteKey::Lid(2, 5), 1, 1);
  p->waiters = {7, 8};
  AddValid(&c, 3);
  std::vector<uint64_t> taken;
  size_t n = c.EraseIf([](const RouteEntry& e) { return e.key.endpoint == 2; },
                       [&](RouteEntry& e) { taken = std::move(e.waiters); });
  LONGS_EQUAL(1, n);
  LONGS_EQUAL(2, taken.size());
  LONGS_EQUAL(2, c.size());
  n = c.EraseIf([](const RouteEntry&) { return true; });
  LONGS_EQUAL(2, n);
  LONGS_EQUAL(0, c.size());
  LONGS_EQUAL(0, c.completed());
}

TEST(SaProviderCache, ManyEntriesStayFindableAsTheSetGrows) {
  RouteCache c(20000);
  for (uint16_t lid = 1; lid <= 10000; ++lid) AddValid(&c, lid);
  LONGS_EQUAL(10000, c.size());
  for (uint16_t lid = 1; lid <= 10000; ++lid) {
    RouteEntry* e = c.Find(RouteKey::Lid(1, lid), 0);
    CHECK(e != nullptr);
    LONGS_EQUAL(lid, ssa::FromBe16(e->path.dlid));
  }
  c.Erase(c.Peek(RouteKey::Lid(1, 5000)));
  CHECK(c.Find(RouteKey::Lid(1, 5000), 0) == nullptr);
  LONGS_EQUAL(9999, c.completed());
}
