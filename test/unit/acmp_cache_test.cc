// acmp_cache_test.cc: the acmp destination cache (states, lifetimes,
// bounded size), the request tracker (resolve_depth, retries with one TID,
// timeouts) with a hand-fired reactor, and the options with upstream's names.
#include <cstring>
#include <map>

#include "common/base/option_set.h"
#include "providers/acmp/acmp_dest.h"
#include "providers/acmp/acmp_options.h"
#include "providers/acmp/acmp_requests.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/shared/provider_options.h"
#include "test/support/check_ok.h"
#include "test/unit/manual_reactor.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acmp;
using ssa::provider_shared::ConfigFormat;

namespace {

const uint8_t* Name(const char* n) {
  static uint8_t buf[8][64];
  static int next = 0;
  uint8_t* b = buf[next++ % 8];
  memset(b, 0, 64);
  strncpy(reinterpret_cast<char*>(b), n, 63);
  return b;
}

}  // namespace

TEST_GROUP(AcmpCache){};

TEST(AcmpCache, NamesAreFoundCaseInsensitivelyAndEntriesStartInInit) {
  DestCache c(16);
  bool created = false;
  Dest* d = c.Acquire(kAddrName, Name("Node2"), &created);
  CHECK_TRUE(created);
  CHECK(d->state == DestState::kInit);
  CHECK(c.Acquire(kAddrName, Name("node2"), &created) == d);
  CHECK_FALSE(created);
  CHECK(c.Find(kAddrName, Name("NODE2")) == d);
  CHECK(c.Find(kAddrIp, Name("node2")) == nullptr);
  STRCMP_EQUAL("Node2", d->Name().c_str());
}

TEST(AcmpCache, LifetimesTakeAReadyEntryBackStepByStep) {
  DestCache c(16);
  Dest* d = c.Acquire(kAddrName, Name("n"));
  DestCache::MakeReady(d, 1000, 60000, 5000);
  CHECK_FALSE(DestCache::Refresh(d, 5999));
  CHECK(d->state == DestState::kReady);
  CHECK_TRUE(DestCache::Refresh(d, 6000));  // the route expired, the address not
  CHECK(d->state == DestState::kAddrResolved);
  DestCache::MakeReady(d, 1000, 60000, 5000);
  CHECK_TRUE(DestCache::Refresh(d, 61000));  // the address expired
  CHECK(d->state == DestState::kInit);
  // -1 minutes: never.
  DestCache::MakeReady(d, 1000, kNever, kNever);
  CHECK_FALSE(DestCache::Refresh(d, UINT64_MAX - 1));
  AcmpOptions o;
  CHECK(o.RouteLifetimeMs() == kNever);
  LONGS_EQUAL(1440ULL * 60000, o.AddrLifetimeMs());
}

TEST(AcmpCache, AFullCacheEvictsIdleEntriesButNeverOnesWithWaiters) {
  DestCache c(2);
  Dest* a = c.Acquire(kAddrName, Name("a"));
  Dest* b = c.Acquire(kAddrName, Name("b"));
  a->waiters.push_back(Waiter());
  b->state = DestState::kQueryAddr;
  CHECK(c.Acquire(kAddrName, Name("c")) == nullptr);  // nothing may go
  b->state = DestState::kReady;
  Dest* d = c.Acquire(kAddrName, Name("c"));
  CHECK(d != nullptr);
  LONGS_EQUAL(2, c.size());
  CHECK(c.Find(kAddrName, Name("b")) == nullptr);
  CHECK(c.Find(kAddrName, Name("a")) != nullptr);
  LONGS_EQUAL(1, c.evictions());
  size_t taken = 0;
  LONGS_EQUAL(
      2, c.EraseIf([](const Dest&) { return true; }, [&](Dest& e) { taken += e.waiters.size(); }));
  LONGS_EQUAL(1, taken);
  LONGS_EQUAL(0, c.size());
}

TEST_GROUP(AcmpRequests) {
  ManualReactor sched;
  std::vector<std::vector<uint8_t>> sent;
  std::vector<std::pair<std::string, int>> timed_out;
  std::unique_ptr<RequestTracker> tracker;

  void Make(int depth, int retries) {
    RequestTracker::Callbacks cb;
    cb.send = [this](const uint8_t* m, size_t len) {
      sent.emplace_back(m, m + len);
      return true;
    };
    cb.timed_out = [this](const std::string& key, uint64_t, int tries) {
      timed_out.emplace_back(key, tries);
    };
    tracker = std::make_unique<RequestTracker>(&sched, cb, depth, retries, 1000);
    tracker->set_try_timeout_ms(1524);
  }
  uint64_t TidOf(size_t i) {
    AcmMessage m;
    DecodeError why;
    CHECK_OK(DecodeAcmMessage(sent[i].data(), sent[i].size(), &m, &why));
    return m.tid;
  }
  AcmMessage Request() {
    AcmMessage m;
    m.src.type = kAddrName;
    memcpy(m.src.data, Name("me"), 64);
    m.dest.type = kAddrName;
    memcpy(m.dest.data, Name("you"), 64);
    return m;
  }
};

TEST(AcmpRequests, EachTryReusesTheTidAndTheLastOneTimesOut) {
  Make(1, 2);
  uint64_t tid = tracker->Start("k1", Request());
  LONGS_EQUAL(1, sent.size());
  CHECK(TidOf(0) == tid);
  LONGS_EQUAL(1524, sched.last_delay_ms);  // subnet timeout + timeout, per try
  sched.FireOne();
  sched.FireOne();
  LONGS_EQUAL(3, sent.size());  // retries + 1 tries
  CHECK(TidOf(2) == tid);
  CHECK(timed_out.empty());
  sched.FireOne();
  LONGS_EQUAL(1, timed_out.size());
  STRCMP_EQUAL("k1", timed_out[0].first.c_str());
  LONGS_EQUAL(3, timed_out[0].second);
  LONGS_EQUAL(0, tracker->outstanding());
  LONGS_EQUAL(1, tracker->timeouts());
  CHECK(sched.timers.empty());
}

TEST(AcmpRequests, ResolveDepthQueuesTheRestAndAResponseLetsTheNextGo) {
  Make(2, 0);
  uint64_t t1 = tracker->Start("a", Request());
  uint64_t t2 = tracker->Start("b", Request());
  uint64_t t3 = tracker->Start("c", Request());
  CHECK(t1 != t2 && t2 != t3);
  LONGS_EQUAL(2, sent.size());
  LONGS_EQUAL(1, tracker->queued());
  std::string key;
  CHECK_FALSE(tracker->TakeResponse(t3, &key));  // not out yet
  CHECK_TRUE(tracker->TakeResponse(t2, &key));
  STRCMP_EQUAL("b", key.c_str());
  LONGS_EQUAL(3, sent.size());  // "c" went out
  CHECK(TidOf(2) == t3);
  CHECK_FALSE(tracker->TakeResponse(t2, &key));  // answered once only
  // A timeout frees the slot too.
  sched.FireOne();  // t1's only try
  LONGS_EQUAL(1, timed_out.size());
  tracker->Clear();
  LONGS_EQUAL(0, tracker->outstanding());
  CHECK(sched.timers.empty());
}

TEST_GROUP(AcmpOptions) {
  AcmpOptions o;
  // The acmp provider's read (providers/shared/provider_options.h).
  std::vector<ssa::OptionNote> Read(const std::vector<ssa::provider_shared::RawOption>& entries,
                                    ConfigFormat format = ConfigFormat::kIni) {
    ssa::OptionSet set;
    o.Bind(&set);
    return ssa::provider_shared::ReadOptions(entries, format, "acmp", set);
  }
};

TEST(AcmpOptions, UpstreamNamesAndValues) {
  std::vector<ssa::OptionNote> notes = Read({
      {"route_prot", "acm", "f", 1},
      {"loopback_prot", "none", "f", 2},
      {"addr_timeout", "-1", "f", 3},
      {"route_timeout", "30", "f", 4},
      {"timeout", "500", "f", 5},
      {"retries", "4", "f", 6},
      {"resolve_depth", "8", "f", 7},
      {"send_depth", "2", "f", 8},
      {"min_mtu", "1024", "f", 9},
      {"min_rate", "2.5", "f", 10},
      {"addr_preload", "acm_hosts", "f", 11},
      {"route_preload", "opensm_full_v1", "f", 12},
      {"extra_groups", "20:2048 40:4096", "f", 13},
      {"transport", "SIM", "f", 14},
      {"addr_prot", "ACM", "f", 15},
      {"stats_interval", "0", "f", 16},
  });
  LONGS_EQUAL(0, notes.size());
  CHECK(o.route_prot == AcmpOptions::RouteProt::kAcm);
  CHECK(o.loopback_prot == AcmpOptions::LoopbackProt::kNone);
  CHECK(o.AddrLifetimeMs() == kNever);
  LONGS_EQUAL(30 * 60000, o.RouteLifetimeMs());
  LONGS_EQUAL(500, o.timeout_ms);
  LONGS_EQUAL(4, o.retries);
  LONGS_EQUAL(8, o.resolve_depth);
  LONGS_EQUAL(3, o.min_mtu);
  LONGS_EQUAL(2, o.min_rate);
  CHECK_TRUE(o.addr_preload);
  CHECK_TRUE(o.route_preload);
  LONGS_EQUAL(2, o.extra_groups.size());
  LONGS_EQUAL(7, o.extra_groups[1].rate);
  LONGS_EQUAL(5, o.extra_groups[1].mtu);
  CHECK(o.transport == AcmpOptions::Transport::kSim);  // any case, as upstream
  LONGS_EQUAL(0, o.stats_interval_s);
  LONGS_EQUAL(600, AcmpOptions().stats_interval_s);
}

TEST(AcmpOptions, BadValuesKeepTheDefaultAndSaySo) {
  std::vector<ssa::OptionNote> notes = Read({
      {"route_prot", "carrier-pigeon", "f", 1},
      {"timeout", "0", "f", 2},
      {"min_mtu", "3000", "f", 3},
      {"extra_groups", "40", "f", 4},
      {"nonsense", "1", "f", 5},
      {"sa_depth", "4", "f", 6},
  });
  LONGS_EQUAL(6, notes.size());
  for (const auto& n : notes) CHECK_TRUE(n.error());
  STRCMP_EQUAL("f:1: bad value for 'route_prot': 'carrier-pigeon' is not one of acm|sa",
               notes[0].ToString().c_str());
  STRCMP_CONTAINS("unknown option 'nonsense'", notes[4].text.c_str());
  STRCMP_CONTAINS("belongs in [core]", notes[5].text.c_str());
  LONGS_EQUAL(3, notes[2].line);
  CHECK(o.route_prot == AcmpOptions::RouteProt::kSa);
  LONGS_EQUAL(2000, o.timeout_ms);
  LONGS_EQUAL(4, o.min_mtu);
  // In an upstream-format file other readers' keys are not mistakes.
  notes = Read({{"sa_depth", "4", "f", 1}, {"log_level", "2", "f", 2}}, ConfigFormat::kUpstream);
  LONGS_EQUAL(2, notes.size());
  CHECK_FALSE(notes[0].error());
}
