// fed_soak_test.cc: the chaos soak's federated mode in the test suite
// (doc/soak.md, "Federated mode"):
//   - its schedule: the same seed gives the same events; the first five
//     cover the menu; a peer's hosts file always has its moving address
//     on a node it names;
//   - its judge: an answer allowed within the settle time or held within
//     a break's hold, a withdrawn entry served, a wrong GID, an error once
//     settled;
//   - a short federated soak (35 s of events on two subnets;
//     FED_SOAK_SECONDS, FED_SOAK_SEED and FED_SOAK_PEERS override), every
//     invariant checked.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "test/soak/fed_schedule.h"
#include "test/soak/fed_soak.h"

#include "CppUTest/TestHarness.h"

using ssa::soak::FedAnswer;
using ssa::soak::FedEvent;
using ssa::soak::FedVerdict;
using ssa::soak::PeerHistory;

namespace {

std::vector<FedEvent> Make(uint64_t seed, double seconds, int peers = 2) {
  ssa::soak::FedScheduleOptions o;
  o.seed = seed;
  o.duration_s = seconds;
  o.peers = peers;
  return ssa::soak::MakeFedSchedule(o);
}

}  // namespace

TEST_GROUP(FedSoakSchedule){};

TEST(FedSoakSchedule, TheSameSeedReplaysTheSameEventsAndTheFirstFiveCoverTheMenu) {
  std::string a, b, c;
  for (const FedEvent& e : Make(7, 600)) a += e.Describe() + "@" + std::to_string(e.at_s) + "\n";
  for (const FedEvent& e : Make(7, 600)) b += e.Describe() + "@" + std::to_string(e.at_s) + "\n";
  for (const FedEvent& e : Make(8, 600)) c += e.Describe() + "@" + std::to_string(e.at_s) + "\n";
  STRCMP_EQUAL(a.c_str(), b.c_str());
  CHECK(a != c);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::vector<FedEvent> events = Make(seed, 600);
    CHECK(events.size() > 20);
    std::set<int> kinds;
    for (size_t i = 0; i < 5; ++i) kinds.insert(static_cast<int>(events[i].kind));
    LONGS_EQUAL(ssa::soak::kFedEventKinds, kinds.size());
    double last = 0;
    for (const FedEvent& e : events) {
      CHECK(e.at_s > last);
      last = e.at_s;
      CHECK(e.peer == 0 || e.peer == 1);
      const auto& n = e.hosts.nodes;
      CHECK(!n.empty());
      CHECK(std::find(n.begin(), n.end(), e.hosts.moving_on) != n.end());
      if (e.kind == ssa::soak::FedEventKind::kLinkCut)
        CHECK(e.past_hold ? e.for_s > 3 + 10 : e.for_s < 3);
    }
  }
}

TEST_GROUP(FedSoakJudge) {
  PeerHistory h;
  const double hold = 3, settle = 10;
  void setup() override {
    h.versions.push_back({0, {{"bnode1", "g1"}, {"bnode2", "g2"}}});
    h.versions.push_back({50, {{"bnode1", "g1"}}});  // bnode2 leaves at 50 s
  }
  FedVerdict Judge(double t, const char* key, const char* gid,
                   const std::vector<ssa::soak::Interval>& ibacm_down = {}) {
    FedAnswer a;
    a.asked_s = t;
    a.answered_s = t + 0.1;
    a.key = key;
    a.error = gid == nullptr;
    if (gid) a.gid = gid;
    return ssa::soak::JudgeFedAnswer(h, ibacm_down, hold, settle, a);
  }
};

TEST(FedSoakJudge, AChangeIsAllowedItsSettleTimeThenRequired) {
  CHECK(FedVerdict::kFresh == Judge(40, "bnode2", "g2"));
  CHECK(FedVerdict::kHeld == Judge(55, "bnode2", "g2"));   // settling
  CHECK(FedVerdict::kWrong == Judge(65, "bnode2", "g2"));  // B withdrew it 15 s ago
  CHECK(FedVerdict::kWrong == Judge(40, "bnode2", "g1"));  // never B's
  CHECK(FedVerdict::kFresh == Judge(65, "bnode2", nullptr));
  CHECK(FedVerdict::kExcusedError == Judge(55, "bnode1", nullptr));
  CHECK(FedVerdict::kMissingSettled == Judge(65, "bnode1", nullptr));
  CHECK(FedVerdict::kExcusedError == Judge(65, "bnode1", nullptr, {{58, 59}}));
}

TEST(FedSoakJudge, ABreakHoldsTheSetThenRequiresItsWithdrawal) {
  h.breaks.push_back({45, 80});  // cut at 45 s, bnode2 leaves at 50 s meanwhile
  CHECK(FedVerdict::kHeld == Judge(56, "bnode2", "g2"));  // held since the break
  CHECK(FedVerdict::kExcusedError == Judge(56, "bnode1", nullptr));
  // hold_s + settle after the break, still cut: nothing of B may be served.
  CHECK(FedVerdict::kServedWithdrawn == Judge(59, "bnode1", "g1"));
  CHECK(FedVerdict::kFresh == Judge(59, "bnode1", nullptr));
  // Back at 80 s: settled again 10 s later, bnode2 must not come back.
  CHECK(FedVerdict::kExcusedError == Judge(85, "bnode1", nullptr));
  CHECK(FedVerdict::kWrong == Judge(91, "bnode2", "g2"));
  CHECK(FedVerdict::kMissingSettled == Judge(91, "bnode1", nullptr));
}

TEST_GROUP(FedSoak){};

TEST(FedSoak, AShortFederatedSoakHoldsEveryInvariant) {
  ssa::soak::FedSoakOptions o;
  const char* seconds = getenv("FED_SOAK_SECONDS");
  const char* seed = getenv("FED_SOAK_SEED");
  const char* peers = getenv("FED_SOAK_PEERS");
  o.duration_s = seconds ? atof(seconds) : 35;
  o.seed = seed ? strtoull(seed, nullptr, 0) : 1;
  o.peers = peers ? atoi(peers) : 1;
  o.progress = stdout;
  ssa::soak::FedSoakResult r;
  ssa::Status st = ssa::soak::RunFederatedSoak(o, &r);
  CHECK_TEXT(st.ok(), st.ToString().c_str());
  std::string summary = r.Summary();
  printf("\n%s", summary.c_str());
  if (!r.passed) printf("\nevents as executed:\n%s", r.event_log.c_str());
  CHECK_TEXT(r.passed, summary.c_str());
  CHECK_TEXT(r.verdicts["fresh"] > 50, summary.c_str());
  CHECK_TEXT(r.events >= ssa::soak::kFedEventKinds, summary.c_str());
}
