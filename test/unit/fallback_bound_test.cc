// fallback_bound_test.cc: the bound on the SA load of the ssa provider's
// fallback (issue 46, finding 8; ibacm_ssa(7) fallback_sa_rate,
// fallback_jitter_s): a burst of requests the PRDB cannot answer sends at
// most the bucket's worth of SA queries in the first second, and the rest
// as tokens come; what cannot be sent within fallback_wait_ms is answered
// ETIMEDOUT and counted, never dropped; the moment ports stop answering
// after the core stops confirming is spread over the jitter window.
//
// The ssa provider runs in this process on the fake core
// (test/support/fake_core.h), on a fake clock; its port is not active, so
// it never joins a tree: no PRDB, every request is a fallback, as on a
// node whose tree went away.
#include <arpa/inet.h>
#include <infiniband/acm.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/big_endian.h"
#include "providers/ssa/fallback_jitter.h"
#include "providers/ssa/ssa_provider.h"
#include "test/support/fake_core.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace {

using ssa::sa::SaAddress;
using ssa::sa::SaDevice;
using ssa::sa::SaEndpoint;
using ssa::sa::SaPort;
using ssa::ssa_provider::FallbackJitter;
using ssa::ssa_provider::SsaProvider;
using ssa::test::FakeCore;

}  // namespace

TEST_GROUP(FallbackBound) {
  FakeCore core;
  std::unique_ptr<SsaProvider> prov;
  uint64_t now_ms = 1000000;
  SaDevice* dev = nullptr;
  SaPort* port = nullptr;
  SaEndpoint* ep = nullptr;
  SaAddress* addr = nullptr;
  uint16_t pkeys[1] = {0xffff};
  uint64_t next_id = 1;

  void teardown() override {
    if (!prov) return;
    prov->RemoveAddress(addr);
    prov->CloseEndpoint(ep);
    prov->ClosePort(port);
    prov->CloseDevice(dev);
    prov.reset();
  }
  // The provider with `kv` in its section, on the fake clock; one port
  // (LID 5, not active: no tree), one endpoint, one address.
  void Open(const std::vector<std::pair<std::string, std::string>>& kv = {}) {
    core.SetOptions("opts.cfg", 2, kv);
    prov = std::make_unique<SsaProvider>(&FakeCore::kOps, core.handle());
    prov->sa()->set_clock([this] { return now_ms; });
    LONGS_EQUAL(0, prov->Init());
    ssa_device_info d = {sizeof(d), "fake0", 0x0002c90300001230ULL, 1};
    LONGS_EQUAL(0, prov->OpenDevice(&d, &dev));
    ssa_port_info info{};
    info.size = sizeof(info);
    info.ca_name = "fake0";
    info.port_num = 1;
    info.state = 2;  // INIT: no tree is joined, every request falls back
    info.lid = 5;
    info.sm_lid = 1;
    info.gid_prefix = 0xfe80000000000000ULL;
    info.port_guid = 0x0002c90300001231ULL;
    info.pkey_count = 1;
    info.pkeys = pkeys;
    LONGS_EQUAL(0, prov->OpenPort(dev, &info, reinterpret_cast<ssa_core_port_t*>(&core), &port));
    ssa_endpoint_info e = {sizeof(e), 0xffff, 0};
    LONGS_EQUAL(0, prov->OpenEndpoint(port, &e, &ep));
    ssa_address self = {};
    self.size = sizeof(self);
    self.type = SSA_ADDR_NAME;
    strcpy(reinterpret_cast<char*>(self.data), "node5");
    LONGS_EQUAL(0, prov->AddAddress(ep, &self, &addr));
  }
  uint64_t Resolve(uint16_t lid) {
    ssa_resolve_request req = {};
    req.size = sizeof(req);
    req.dst.size = sizeof(req.dst);
    req.dst.type = SSA_ADDR_LID;
    uint16_t be = ssa::ToBe16(lid);
    memcpy(req.dst.data, &be, 2);
    uint64_t id = next_id++;
    LONGS_EQUAL(0, prov->Resolve(addr, &req, id));
    return id;
  }
  // Advances the fake clock by `ms`, a millisecond at a time, firing the
  // timers asked for meanwhile (the fake core records no delays: every
  // live one fires; the provider's are idempotent).
  void Advance(uint64_t ms) {
    for (uint64_t i = 0; i < ms; ++i) {
      ++now_ms;
      size_t n = core.timers.size();
      for (size_t t = 0; t < n; ++t) {
        if (!core.timers[t].live) continue;
        core.timers[t].live = false;
        core.timers[t].fn(core.timers[t].arg);
      }
    }
  }
  size_t AnsweredWith(uint8_t status) {
    size_t n = 0;
    for (const auto& a : core.answers) n += a.second.status == status;
    return n;
  }
};

// Without a bound (fallback_sa_rate = 0, the behaviour before it): every
// distinct destination is an SA query at once.
TEST(FallbackBound, UnboundedSendsEveryQueryAtOnce) {
  Open({{"fallback_sa_rate", "0"}});
  for (int i = 0; i < 200; ++i) Resolve(static_cast<uint16_t>(100 + i));
  LONGS_EQUAL(200, core.sent.size());
}

// The defaults (2/s after a burst of 10, 5 s wait): 200 distinct requests
// at once send at most the bucket's worth in the first second.
TEST(FallbackBound, BurstSendsAtMostTheBucketInTheFirstSecond) {
  Open();
  std::vector<uint64_t> ids;
  for (int i = 0; i < 200; ++i) ids.push_back(Resolve(static_cast<uint16_t>(100 + i)));
  LONGS_EQUAL(10, core.sent.size());
  Advance(999);
  CHECK(core.sent.size() <= 10 + 2);
  // Nothing is dropped: every request is in flight, waiting, or answered
  // ETIMEDOUT (rate x wait = 10 may wait; the rest find the queue full).
  ssa::sa::SaProvider::BudgetStats s = prov->sa()->budget_stats();
  LONGS_EQUAL(10, s.delayed);
  LONGS_EQUAL(180, s.refused);
  LONGS_EQUAL(180, AnsweredWith(ACM_STATUS_ETIMEDOUT));
  LONGS_EQUAL(200, core.sent.size() + s.waiting + core.answers.size());
  // The waiting ones go out at the rate: 2 a second, all 10 within 5 s.
  Advance(4001);
  LONGS_EQUAL(20, core.sent.size());
  LONGS_EQUAL(0, prov->sa()->budget_stats().waiting);
  LONGS_EQUAL(20, core.counters[ACM_CNTR_ROUTE_QUERY]);
}

// A request for a destination already waiting joins its query; one that
// finds rate x fallback_wait_ms queries waiting is answered ETIMEDOUT at
// once; one that waited past fallback_wait_ms (the loop was held up) is
// answered ETIMEDOUT rather than sent late. Each is counted and logged.
TEST(FallbackBound, ThrottledRequestsAreAnsweredAndCounted) {
  Open({{"fallback_sa_rate", "1"}, {"fallback_sa_burst", "1"}, {"fallback_wait_ms", "3000"}});
  Resolve(100);               // the burst's one token
  uint64_t a = Resolve(101);  // waits: the next token is due in 1 s
  uint64_t b = Resolve(101);  // joins it
  uint64_t c = Resolve(102);  // waits behind it
  uint64_t d = Resolve(103);  // waits too (1/s x 3 s may wait)
  uint64_t e = Resolve(104);  // the queue is full: answered at once
  LONGS_EQUAL(1, core.sent.size());
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, core.answers.at(e).status);
  Advance(1000);
  LONGS_EQUAL(2, core.sent.size());  // 101, for both a and b
  CHECK(core.answers.count(a) == 0 && core.answers.count(b) == 0);
  Advance(1000);
  LONGS_EQUAL(3, core.sent.size());  // 102
  CHECK(core.answers.count(c) == 0);
  // The loop is held up for 2.5 s: 103 has then waited 4.5 s.
  now_ms += 2500;
  Advance(1);
  LONGS_EQUAL(3, core.sent.size());
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, core.answers.at(d).status);
  ssa::sa::SaProvider::BudgetStats s = prov->sa()->budget_stats();
  LONGS_EQUAL(3, s.delayed);
  LONGS_EQUAL(1, s.timed_out);
  LONGS_EQUAL(1, s.refused);
  LONGS_EQUAL(0, s.waiting);
  size_t logged = 0;
  for (const std::string& line : core.logs)
    logged += line.find("answered ETIMEDOUT") != std::string::npos;
  LONGS_EQUAL(2, logged);
}

// A port's misses are counted once, on the port; when it closes they are
// kept for the exit line, which counts the closed ports' too.
TEST(FallbackBound, AClosedPortsMissesStayInTheExitLine) {
  Open({{"fallback_sa_rate", "0"}});
  for (int i = 0; i < 3; ++i) Resolve(static_cast<uint16_t>(100 + i));
  teardown();  // the port closes before the provider stops
  size_t found = 0;
  for (const std::string& line : core.logs)
    found += line.find("not from a PRDB: 3 before the first") != std::string::npos;
  LONGS_EQUAL(1, found);
}

// Without jitter every port falls back in the same second, at the bound;
// with it, a thousand ports (nodes) whose core stopped confirming at the
// same moment spread their first fallback over the last window before the
// bound, about evenly, and none answers past the bound.
TEST(FallbackBound, JitterSpreadsTheFirstFallbackBeforeTheBound) {
  constexpr int kPorts = 1000;
  constexpr int kWindowS = 15;
  constexpr double kBoundS = 60;
  std::vector<FallbackJitter::PortState> none(kPorts), spread(kPorts);
  FallbackJitter at_once(std::chrono::milliseconds(0), 1);
  int immediate = 0, early = 0;
  for (auto& p : none) {
    early += at_once.FallsBack(&p, kBoundS, kBoundS);
    immediate += at_once.FallsBack(&p, kBoundS + 0.5, kBoundS);
  }
  LONGS_EQUAL(0, early);
  LONGS_EQUAL(kPorts, immediate);

  FallbackJitter jitter(std::chrono::seconds(kWindowS), 42);
  std::vector<int> per_second(kWindowS + 1, 0);
  std::vector<bool> fell(kPorts, false);
  // As Confirmation::Check asks: once a second, every port, from the bound
  // less the window up to the bound itself.
  for (int s = 0; s <= kWindowS; ++s)
    for (int i = 0; i < kPorts; ++i)
      if (!fell[i] && jitter.FallsBack(&spread[i], kBoundS - kWindowS + s, kBoundS)) {
        fell[i] = true;
        ++per_second[s];
      }
  int total = 0, busiest = 0;
  for (int n : per_second) {
    total += n;
    busiest = std::max(busiest, n);
  }
  // All by the bound, but one that drew 0 ms exactly: it falls just past.
  CHECK(total >= kPorts - 1);
  for (int i = 0; i < kPorts; ++i)
    CHECK(fell[i] || jitter.FallsBack(&spread[i], kBoundS + 1e-3, kBoundS));
  LONGS_EQUAL(0, per_second[0]);            // none before the window
  CHECK(busiest <= 2 * kPorts / kWindowS);  // no second holds much more than its share
  // The draw never takes more than half a short bound.
  FallbackJitter wide(std::chrono::seconds(100), 7);
  FallbackJitter::PortState p;
  CHECK(!wide.FallsBack(&p, 4.9, 10));
  CHECK(wide.FallsBack(&p, 10.1, 10));
  CHECK(!wide.FallsBack(&p, -1, 10));  // not timed
  CHECK(!wide.FallsBack(&p, 1e9, 0));  // no bound
}
