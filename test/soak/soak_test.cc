// soak_test.cc: the chaos soak in the test suite (issue 30, doc/soak.md):
//   - the schedule: the same seed gives the same events; the first ones
//     cover the whole menu; the constraints hold (one uplink down at a
//     time, one event per target at a time, every disruption undone);
//   - the oracle: fresh, stale, wrong, errors and missing answers judged
//     by the SA states recorded around them;
//   - a short soak (60 s of events; SOAK_SECONDS and SOAK_SEED override)
//     on the simulated fabric, every invariant checked.

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "common/base/big_endian.h"
#include "test/soak/soak_oracle.h"
#include "test/soak/soak_run.h"
#include "test/soak/soak_schedule.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::soak::Action;
using ssa::soak::ActionKind;
using ssa::soak::DaemonAnswer;
using ssa::soak::Excuse;
using ssa::soak::Oracle;
using ssa::soak::SaAnswer;
using ssa::soak::SaAnswers;
using ssa::soak::Schedule;
using ssa::soak::Time;

namespace {

Schedule Make(uint64_t seed, double seconds) {
  ssa::soak::ScheduleOptions o;
  o.seed = seed;
  o.duration_s = seconds;
  return ssa::soak::MakeSchedule(o, ssa::soak::SoakLayout());
}

}  // namespace

TEST_GROUP(SoakSchedule){};

TEST(SoakSchedule, TheSameSeedReplaysTheSameEvents) {
  STRCMP_EQUAL(Make(7, 600).Describe().c_str(), Make(7, 600).Describe().c_str());
  CHECK(Make(7, 600).Describe() != Make(8, 600).Describe());
  // A longer run starts with the same events as a shorter one.
  std::string shorter = Make(7, 60).Describe();
  std::string longer = Make(7, 600).Describe();
  std::string first = shorter.substr(0, shorter.find("\n", shorter.size() / 2));
  STRCMP_EQUAL(first.c_str(), longer.substr(0, first.size()).c_str());
}

TEST(SoakSchedule, TheFirstDozenEventsCoverTheMenu) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Schedule s = Make(seed, 60);
    std::set<ssa::soak::EventKind> kinds;
    for (size_t i = 0; i < s.events.size() && i < 12; ++i) kinds.insert(s.events[i].kind);
    LONGS_EQUAL_TEXT(ssa::soak::kEventKinds, kinds.size(), s.Describe().c_str());
  }
}

TEST(SoakSchedule, LongOutagesOutlastTheStalenessBound) {
  ssa::soak::ScheduleOptions o;
  o.seed = 3;
  o.duration_s = 600;
  o.long_outages = true;
  Schedule s = ssa::soak::MakeSchedule(o, ssa::soak::SoakLayout());
  int hca_outages = 0;
  for (const ssa::soak::Event& e : s.events) {
    if (e.kind != ssa::soak::EventKind::kLinkDownUp || e.target.find(':') != std::string::npos)
      continue;
    ++hca_outages;
    CHECK_TEXT(e.end_s - e.at_s >= 40, e.detail.c_str());
  }
  CHECK(hca_outages > 0);
}

TEST(SoakSchedule, ConstraintsHold) {
  ssa::soak::SoakLayout layout;
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Schedule s = Make(seed, 1800);
    int uplinks_down = 0, masters_killed = 0;
    std::map<std::string, int> down, killed, stopped, bursts;
    for (const Action& a : s.actions) {
      bool uplink = a.target.find(':') != std::string::npos;
      // (CppUTest's macros evaluate their arguments more than once.)
      int before = 0;
      switch (a.kind) {
        case ActionKind::kLinkDown:
          before = down[a.target]++;
          CHECK_EQUAL(0, before);
          if (uplink) {
            before = uplinks_down++;
            CHECK_EQUAL_TEXT(0, before, s.Describe().c_str());
          }
          break;
        case ActionKind::kLinkUp:
          before = down[a.target]--;
          CHECK_EQUAL(1, before);
          if (uplink) --uplinks_down;
          break;
        case ActionKind::kKill:
        case ActionKind::kRestartFaulty:
          before = killed[a.target]++ + stopped[a.target];
          CHECK_EQUAL(0, before);
          CHECK(a.target != "Hca10");  // long-lived
          break;
        case ActionKind::kRestart:
          before = killed[a.target]--;
          CHECK_EQUAL(1, before);
          break;
        case ActionKind::kStop:
          before = stopped[a.target]++ + killed[a.target];
          CHECK_EQUAL(0, before);
          break;
        case ActionKind::kCont:
          before = stopped[a.target]--;
          CHECK_EQUAL(1, before);
          break;
        case ActionKind::kKillMaster:
          before = masters_killed++;
          CHECK_EQUAL(0, before);
          break;
        case ActionKind::kStartStandby: --masters_killed; break;
        case ActionKind::kBurstStart:
          before = bursts[a.target]++;
          CHECK_EQUAL(0, before);
          break;
        case ActionKind::kBurstEnd: --bursts[a.target]; break;
      }
    }
    int failovers = 0;
    for (const ssa::soak::Event& e : s.events)
      failovers += e.kind == ssa::soak::EventKind::kFailover;
    CHECK(failovers <= 20);  // the SM priorities a new standby can take
    // Every disruption is undone by the end.
    for (auto* m : {&down, &killed, &stopped, &bursts})
      for (auto& kv : *m) CHECK_EQUAL_TEXT(0, kv.second, kv.first.c_str());
    CHECK_EQUAL(0, masters_killed);
  }
}

namespace {

SaAnswer PathTo(uint16_t dlid, uint8_t sl) {
  SaAnswer a;
  a.path = true;
  a.record.slid = ssa::ToBe16(5);
  a.record.dlid = ssa::ToBe16(dlid);
  a.record.qosclass_sl = ssa::ToBe16(sl);
  a.record.pkey = ssa::ToBe16(0xffff);
  return a;
}

DaemonAnswer Answer(const SaAnswer& a, Time sent, Time received) {
  DaemonAnswer d;
  d.slid = 5;
  d.dlid = ssa::FromBe16(a.record.dlid) ? ssa::FromBe16(a.record.dlid) : 9;
  d.kind = a.path ? DaemonAnswer::kPath : DaemonAnswer::kNoPath;
  d.record = a.record;
  d.sent = sent;
  d.received = received;
  return d;
}

}  // namespace

TEST_GROUP(SoakOracle) {
  Time t0 = ssa::soak::Clock::now();
  Oracle oracle{30s};
  Excuse excuse;
  ssa::soak::ExcuseFn fn = [this](int, Time, Time) { return excuse; };

  // States: SL 0 until 10 s, SL 1 from a change at 10 s recorded at 11 s,
  // no path from a change at 50 s recorded at 51 s.
  void SetUp3() {
    SaAnswers s1, s2, s3;
    s1[ssa::soak::PairKey(5, 9)] = PathTo(9, 0);
    s2[ssa::soak::PairKey(5, 9)] = PathTo(9, 1);
    s3[ssa::soak::PairKey(5, 9)] = SaAnswer();
    CHECK(oracle.AddSnapshot(t0, t0, "1", s1));
    CHECK(!oracle.AddSnapshot(t0 + 5s, t0 + 5s, "1 again", s1));
    CHECK(oracle.AddSnapshot(t0 + 10s, t0 + 11s, "2", s2));
    CHECK(oracle.AddSnapshot(t0 + 50s, t0 + 51s, "3", s3));
  }
  void Judge(const DaemonAnswer& a) {
    oracle.Submit(a);
    oracle.SetCompleteUntil(a.received);
    oracle.CheckReady(fn);
  }
};

TEST(SoakOracle, FreshStaleAndWrongByTheStatesAroundTheAnswer) {
  SetUp3();
  Judge(Answer(PathTo(9, 0), t0 + 1s, t0 + 1s));            // fresh
  Judge(Answer(PathTo(9, 0), t0 + 10500ms, t0 + 10600ms));  // old state still current
  Judge(Answer(PathTo(9, 1), t0 + 10500ms, t0 + 10600ms));  // the new one already
  LONGS_EQUAL(3, oracle.counts().fresh);
  Judge(Answer(PathTo(9, 0), t0 + 20s, t0 + 20s));  // 9 s late: stale
  LONGS_EQUAL(1, oracle.counts().stale);
  DOUBLES_EQUAL(9.0, oracle.counts().max_stale_s, 0.01);
  Judge(Answer(PathTo(9, 0), t0 + 45s, t0 + 45s));  // 34 s late: wrong
  Judge(Answer(PathTo(9, 7), t0 + 20s, t0 + 20s));  // never the SA's: wrong
  LONGS_EQUAL(2, oracle.counts().wrong);
  LONGS_EQUAL(2, oracle.problems().size());
  // "No path" equals the SA's no record; a path the SA no longer has is
  // stale within the bound.
  Judge(Answer(SaAnswer(), t0 + 60s, t0 + 60s));
  Judge(Answer(PathTo(9, 1), t0 + 60s, t0 + 60s));
  LONGS_EQUAL(4, oracle.counts().fresh);
  LONGS_EQUAL(2, oracle.counts().stale);
  LONGS_EQUAL(8, oracle.counts().checked);
}

TEST(SoakOracle, ErrorsAndMissingAnswersAreExcusedOnlyWhenTheDaemonWas) {
  SetUp3();
  DaemonAnswer e = Answer(SaAnswer(), t0 + 20s, t0 + 20s);  // ENODATA, the SA has a path
  excuse.starting = true;
  Judge(e);
  LONGS_EQUAL(1, oracle.counts().errors_startup);
  excuse.starting = false;
  Judge(e);
  LONGS_EQUAL(1, oracle.counts().errors_known);
  DaemonAnswer lost = e;
  lost.kind = DaemonAnswer::kNoAnswer;
  excuse.disrupted = true;
  Judge(lost);
  LONGS_EQUAL(1, oracle.counts().unanswered_excused);
  excuse.disrupted = false;
  Judge(lost);
  LONGS_EQUAL(1, oracle.counts().unanswered);
}

// A daemon that will not vouch (ENOTCONN: its core has not confirmed its
// PRDB past stale_after_s) is counted apart, never as an error or wrong,
// whatever the SA held; any other error status is still an error.
TEST(SoakOracle, ARefusalForAnUnconfirmedPrdbIsCountedApart) {
  SetUp3();
  DaemonAnswer r = Answer(PathTo(9, 1), t0 + 20s, t0 + 20s);
  r.kind = DaemonAnswer::kRefused;
  Judge(r);
  LONGS_EQUAL(1, oracle.counts().refused_unconfirmed);
  LONGS_EQUAL(0, oracle.counts().errors_known);
  LONGS_EQUAL(0, oracle.counts().wrong);
  LONGS_EQUAL(0, oracle.problems().size());
  r.kind = DaemonAnswer::kError;
  Judge(r);
  LONGS_EQUAL(1, oracle.counts().errors_known);
  LONGS_EQUAL(1, oracle.counts().refused_unconfirmed);
}

// A state the SA held between two recorded ones and no snapshot saw (the
// master swept twice before the snapshot was read): an answer within that
// interval matching no recorded state is unjudged; before or after it,
// and an error status anywhere, are judged as ever.
TEST(SoakOracle, AnswersWhileAStateWentUnrecordedAreNotJudged) {
  SetUp3();
  SaAnswers s4;
  s4[ssa::soak::PairKey(5, 9)] = PathTo(9, 2);
  CHECK(oracle.AddSnapshot(t0 + 70s, t0 + 71s, "4", s4, /*unrecorded=*/true));
  LONGS_EQUAL(1, oracle.counts().unrecorded_gaps);
  Judge(Answer(PathTo(9, 3), t0 + 70500ms, t0 + 70500ms));  // SL 3: the unseen state's?
  LONGS_EQUAL(1, oracle.counts().unjudged);
  LONGS_EQUAL(0, oracle.counts().wrong);
  Judge(Answer(PathTo(9, 3), t0 + 69s, t0 + 69s));  // before the change: wrong
  Judge(Answer(PathTo(9, 3), t0 + 72s, t0 + 72s));  // after the snapshot: wrong
  LONGS_EQUAL(2, oracle.counts().wrong);
  DaemonAnswer err = Answer(PathTo(9, 3), t0 + 70500ms, t0 + 70500ms);
  err.kind = DaemonAnswer::kError;
  Judge(err);
  LONGS_EQUAL(1, oracle.counts().errors_known);
  // A recorded state that equals the current one still marks its gap.
  CHECK(!oracle.AddSnapshot(t0 + 80s, t0 + 81s, "4 again", s4, true));
  Judge(Answer(PathTo(9, 3), t0 + 80500ms, t0 + 80500ms));
  LONGS_EQUAL(2, oracle.counts().unjudged);
}

TEST(SoakOracle, AStartingDaemonsNoPathIsNotStale) {
  SetUp3();
  // At 60 s the SA has no path (state 3, fresh) ...
  excuse.starting = true;
  Judge(Answer(SaAnswer(), t0 + 60s, t0 + 60s));
  LONGS_EQUAL(1, oracle.counts().fresh);
  // ... at 20 s it had one, but "no path" once more recently (never:
  // state 1 and 2 both had a path) -> a startup error; and against a
  // state where the last "no path" is 9 s old, still not stale.
  Judge(Answer(SaAnswer(), t0 + 20s, t0 + 20s));
  SaAnswers s4;
  s4[ssa::soak::PairKey(5, 9)] = PathTo(9, 1);
  CHECK(oracle.AddSnapshot(t0 + 70s, t0 + 71s, "4", s4));
  Judge(Answer(SaAnswer(), t0 + 80s, t0 + 80s));
  LONGS_EQUAL(2, oracle.counts().errors_startup);
  LONGS_EQUAL(0, oracle.counts().stale);
}

TEST(SoakOracle, AnAnswerWaitsUntilTheOracleIsCompleteForItsTime) {
  SetUp3();
  oracle.Submit(Answer(PathTo(9, 1), t0 + 60s, t0 + 60s));
  oracle.SetCompleteUntil(t0 + 59s);
  oracle.CheckReady(fn);
  LONGS_EQUAL(1, oracle.pending());
  oracle.SetCompleteUntil(t0 + 61s);
  oracle.CheckReady(fn);
  LONGS_EQUAL(0, oracle.pending());
  LONGS_EQUAL(1, oracle.counts().stale);
}

TEST_GROUP(Soak){};

TEST(Soak, AShortChaosSoakHoldsEveryInvariant) {
  ssa::soak::SoakOptions o;
  const char* seconds = getenv("SOAK_SECONDS");
  const char* seed = getenv("SOAK_SEED");
  o.duration_s = seconds ? atof(seconds) : 60;
  o.seed = seed ? strtoull(seed, nullptr, 0) : 1;
  o.progress = stdout;
  ssa::soak::SoakResult r;
  ssa::Status st = ssa::soak::RunSoak(o, &r);
  CHECK_TEXT(st.ok(), st.ToString().c_str());
  std::string summary = r.Summary();
  printf("\n%s", summary.c_str());
  if (!r.passed) printf("\nevents as executed:\n%s", r.event_log.c_str());
  CHECK_TEXT(r.passed, summary.c_str());
  CHECK_TEXT(r.oracle.checked > 1000, summary.c_str());
  // The shared-memory tables answered, and were judged, through the faults.
  CHECK_TEXT(r.table_answers > 100, summary.c_str());
  CHECK_TEXT(r.events >= ssa::soak::kEventKinds, summary.c_str());
}
