// sa_provider_abi_test.cc: the built sa provider driven through its ops
// table by a fake core (sa_provider_fake_core.h): one SA query per
// destination then cache hits, GID and LID query shapes, coalescing,
// NODELAY, negative caching, send failures and bad destinations, and the
// exactly-once rule for answers.
#include "test/unit/sa_provider_fake_core.h"

#include "common/base/big_endian.h"

TEST_GROUP_BASE(SaProviderAbi, sa_provider_test::SaProviderFixture){};

using namespace sa_provider_test;

TEST(SaProviderAbi, TableIsCompleteAndOnlyForMajorOne) {
  auto entry = reinterpret_cast<ssa_provider_entry_fn>(dlsym(handle, SSA_PROVIDER_ENTRY_SYMBOL));
  POINTERS_EQUAL(nullptr, entry(SSA_PROV_ABI_MAJOR + 1, 0));
  STRCMP_EQUAL("sa", prov->name);
  LONGS_EQUAL(sizeof(ssa_provider), prov->size);
  CHECK(prov->query != nullptr);
  CHECK(prov->port_changed != nullptr);
  CHECK(prov->query_perf != nullptr);
  // Nothing else is exported.
  POINTERS_EQUAL(
      nullptr,
      dlsym(handle,
            "_ZN3ssa6Status8FromErrnoERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"));
  // A core table too small for the 1.0 ops is refused.
  ssa_core_ops small = kFakeOps;
  small.size = offsetof(ssa_core_ops, counter_add);
  void* ctx = nullptr;
  LONGS_EQUAL(-EPROTO, prov->init(&small, core.handle(), &ctx));
}

TEST(SaProviderAbi, ALidIsAskedOnceThenServedFromTheCache) {
  Open();
  uint64_t first = Resolve(Lid(7));
  LONGS_EQUAL(1, core.sent.size());
  CHECK_FALSE(Answered(first));
  uint64_t mask = 0;
  mad::PathRecord q = Asked(0, &mask);
  LONGS_EQUAL(5, q.slid);
  LONGS_EQUAL(7, q.dlid);
  LONGS_EQUAL(0xffff, q.pkey);
  CHECK(mask == (mad::kPrCompSlid | mad::kPrCompDlid | mad::kPrCompPkey | mad::kPrCompReversible |
                 mad::kPrCompNumbPath));
  Reply(0);
  const auto& a = AnswerOf(first);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, a.status);
  CHECK_TRUE(a.has_path);
  LONGS_EQUAL(7, ssa::FromBe16(a.path.dlid));
  LONGS_EQUAL(0x84, a.path.mtu);
  MEMCMP_EQUAL(last_reply + mad::kSaDataOffset, &a.path, sizeof(a.path));  // as the SA sent it

  uint64_t second = Resolve(Lid(7));
  LONGS_EQUAL(1, core.sent.size());  // no second SA query
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(second).status);
  MEMCMP_EQUAL(&a.path, &AnswerOf(second).path, sizeof(a.path));
  LONGS_EQUAL(2, EpCounter(ep_ctx, ACM_CNTR_RESOLVE));
  LONGS_EQUAL(1, EpCounter(ep_ctx, ACM_CNTR_ROUTE_QUERY));
  LONGS_EQUAL(1, EpCounter(ep_ctx, ACM_CNTR_ROUTE_CACHE));
  LONGS_EQUAL(0, EpCounter(ep_ctx, ACM_CNTR_ERROR));
  // Daemon-wide: route counters only (the core counts resolves itself).
  LONGS_EQUAL(1, core.counters[ACM_CNTR_ROUTE_QUERY]);
  LONGS_EQUAL(1, core.counters[ACM_CNTR_ROUTE_CACHE]);
  LONGS_EQUAL(0, core.counters[ACM_CNTR_RESOLVE]);
}

TEST(SaProviderAbi, AGidIsAskedForBySgidAndDgid) {
  Open();
  uint64_t id = Resolve(GidAddr(0x100009));
  uint64_t mask = 0;
  mad::PathRecord q = Asked(0, &mask);
  uint8_t sgid[16], dgid[16];
  GidOf(kGuid, sgid);
  GidOf(0x100009, dgid);
  MEMCMP_EQUAL(sgid, q.sgid, 16);
  MEMCMP_EQUAL(dgid, q.dgid, 16);
  CHECK(mask == (mad::kPrCompSgid | mad::kPrCompDgid | mad::kPrCompPkey | mad::kPrCompReversible |
                 mad::kPrCompNumbPath));
  Reply(0);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(id).status);
  // A path request naming that DGID shares the entry.
  ssa_resolve_request req = {};
  req.size = sizeof(req);
  req.has_path = 1;
  memcpy(req.path.dgid.raw, dgid, 16);
  LONGS_EQUAL(0, prov->resolve(addr_ctx, &req, 100));
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(100).status);
  LONGS_EQUAL(1, core.sent.size());
}

TEST(SaProviderAbi, ConcurrentRequestsForOneDestinationShareOneQuery) {
  Open();
  uint64_t a = Resolve(Lid(9)), b = Resolve(Lid(9)), c = Resolve(Lid(9));
  LONGS_EQUAL(1, core.sent.size());
  void* other_ep = OpenEndpoint(0x8001);  // another P_Key is another endpoint
  void* other_addr = nullptr;
  ssa_address n = Name("node5-b");
  LONGS_EQUAL(0, prov->add_address(other_ep, &n, &other_addr));
  uint64_t d = Resolve(Lid(9), 0, other_addr);
  LONGS_EQUAL(2, core.sent.size());
  LONGS_EQUAL(0x8001, Asked(1).pkey);
  Reply(0);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(a).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(b).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(c).status);
  CHECK_FALSE(Answered(d));
  Reply(1);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(d).status);
  LONGS_EQUAL(0x8001, ssa::FromBe16(AnswerOf(d).path.pkey));
  LONGS_EQUAL(1, EpCounter(ep_ctx, ACM_CNTR_ROUTE_QUERY));
  LONGS_EQUAL(0, EpCounter(ep_ctx, ACM_CNTR_ROUTE_CACHE));  // joined, not cached
  prov->remove_address(other_addr);
  prov->close_endpoint(other_ep);
}

TEST(SaProviderAbi, NodelayAnswersFromTheCacheOnlyAndWarmsIt) {
  Open();
  uint64_t cold = Resolve(Lid(11), ACM_FLAGS_NODELAY);
  LONGS_EQUAL(ACM_STATUS_ENODATA, AnswerOf(cold).status);  // at once
  LONGS_EQUAL(1, core.sent.size());                        // and the query went out
  uint64_t still_cold = Resolve(Lid(11), ACM_FLAGS_NODELAY);
  LONGS_EQUAL(ACM_STATUS_ENODATA, AnswerOf(still_cold).status);
  LONGS_EQUAL(1, core.sent.size());
  Reply(0);
  uint64_t warm = Resolve(Lid(11), ACM_FLAGS_NODELAY);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(warm).status);
  LONGS_EQUAL(11, ssa::FromBe16(AnswerOf(warm).path.dlid));
  LONGS_EQUAL(2, EpCounter(ep_ctx, ACM_CNTR_NODATA));
}

TEST(SaProviderAbi, AMissingLidFailsClearlyAndIsNegativeCached) {
  Open();
  uint64_t id = Resolve(Lid(999));
  Reply(0, mad::kSaStatusNoRecords);
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(id).status);
  CHECK_FALSE(AnswerOf(id).has_path);
  uint64_t again = Resolve(Lid(999));
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(again).status);
  LONGS_EQUAL(1, core.sent.size());  // no second SA query
  LONGS_EQUAL(2, EpCounter(ep_ctx, ACM_CNTR_ERROR));
  LONGS_EQUAL(1, EpCounter(ep_ctx, ACM_CNTR_ROUTE_QUERY));
}

TEST(SaProviderAbi, WithoutANegativeCacheFailuresAreAskedAgain) {
  Options({{"negative_timeout_ms", "0"}});
  Open();
  Resolve(Lid(999));
  Reply(0, mad::kSaStatusNoRecords);
  Resolve(Lid(999));
  LONGS_EQUAL(2, core.sent.size());
}

TEST(SaProviderAbi, TimeoutsAreNegativeCachedCancellationsAreNot) {
  Open();
  uint64_t t = Resolve(Lid(20));
  Done(0, -ETIMEDOUT);
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, AnswerOf(t).status);
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, AnswerOf(Resolve(Lid(20))).status);
  LONGS_EQUAL(1, core.sent.size());
  uint64_t c = Resolve(Lid(21));
  Done(1, -ECANCELED);
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, AnswerOf(c).status);
  Resolve(Lid(21));
  LONGS_EQUAL(3, core.sent.size());
}

TEST(SaProviderAbi, ASendFailureAnswersAtOnceAndCachesNothing) {
  Open();
  core.sa_send_rc = -ENOTCONN;
  uint64_t id = Resolve(Lid(30));
  LONGS_EQUAL(ACM_STATUS_ENOTCONN, AnswerOf(id).status);
  core.sa_send_rc = 0;
  Resolve(Lid(30));
  LONGS_EQUAL(1, core.sent.size());
  LONGS_EQUAL(1, EpCounter(ep_ctx, ACM_CNTR_ROUTE_QUERY));  // the one really sent
}

TEST(SaProviderAbi, BadDestinationsAreAnsweredWithoutAQuery) {
  Open();
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(Resolve(Lid(0))).status);
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(Resolve(Lid(0xc001))).status);
  ssa_address zero = {};
  zero.size = sizeof(zero);
  zero.type = SSA_ADDR_GID;
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(Resolve(zero)).status);
  ssa_address weird = {};
  weird.size = sizeof(weird);
  weird.type = 42;
  LONGS_EQUAL(ACM_STATUS_EDESTTYPE, AnswerOf(Resolve(weird)).status);
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, AnswerOf(Resolve(Name("nobody"))).status);
  LONGS_EQUAL(0, core.sent.size());
}

TEST(SaProviderAbi, ZeroRouteTimeoutCachesNothingButStillCoalesces) {
  Options({{"route_timeout", "0"}});
  Open();
  uint64_t a = Resolve(Lid(14)), b = Resolve(Lid(14));
  LONGS_EQUAL(1, core.sent.size());
  Reply(0);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(a).status);
  LONGS_EQUAL(ACM_STATUS_SUCCESS, AnswerOf(b).status);
  Resolve(Lid(14));
  LONGS_EQUAL(2, core.sent.size());
}
