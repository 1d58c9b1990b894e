// core_confirmation_test.cc: when the core's answers confirm a consumer's
// PRDB as current (common/tree/core_confirmation.h).
#include "common/tree/core_confirmation.h"

#include "CppUTest/TestHarness.h"

using ssa::tree::CoreConfirmation;
using namespace std::chrono_literals;

namespace {
const CoreConfirmation::Time t0{std::chrono::seconds(1000)};
}

TEST_GROUP(CoreConfirmation){};

TEST(CoreConfirmation, NothingIsConfirmedBeforeTheCoreAnswers) {
  CoreConfirmation c;
  CHECK_FALSE(c.confirmed());
  CHECK(c.AgeSeconds(t0) > 1e6);
  c.OnHeld(5);  // a PRDB alone vouches for nothing
  CHECK_FALSE(c.confirmed());
}

TEST(CoreConfirmation, AnAnswerWithTheEpochHeldConfirmsItThen) {
  CoreConfirmation c;
  c.OnCoreAnswer(t0, 5, 5);
  CHECK(c.confirmed());
  CHECK(c.confirmed_at() == t0);
  DOUBLES_EQUAL(7.0, c.AgeSeconds(t0 + 7s), 1e-9);
  c.OnCoreAnswer(t0 + 10s, 5, 5);  // a renewal
  CHECK(c.confirmed_at() == t0 + 10s);
}

TEST(CoreConfirmation, ANewerCoreEpochConfirmsAsOfTheAnswerOnceThePrdbArrives) {
  CoreConfirmation c;
  c.OnCoreAnswer(t0, 5, 5);
  c.OnCoreAnswer(t0 + 10s, 6, 5);  // the core moved on; the PRDB follows
  CHECK(c.confirmed_at() == t0);
  c.OnHeld(5);  // not yet
  CHECK(c.confirmed_at() == t0);
  c.OnHeld(6);
  CHECK(c.confirmed_at() == t0 + 10s);  // current as of the answer, not of its arrival
  // A PRDB beyond the epoch named confirms it too (the core moved on again).
  c.OnCoreAnswer(t0 + 20s, 7, 6);
  c.OnHeld(8);
  CHECK(c.confirmed_at() == t0 + 20s);
  // Nothing pending: a later PRDB alone confirms nothing more.
  c.OnHeld(9);
  CHECK(c.confirmed_at() == t0 + 20s);
}

TEST(CoreConfirmation, TheSmLidOfTheConfirmingAnswerIsKept) {
  CoreConfirmation c;
  c.OnCoreAnswer(t0, 5, 5, 1);
  LONGS_EQUAL(1, c.confirmed_sm_lid());
  c.OnCoreAnswer(t0 + 10s, 6, 5, 12);  // a new master's core, catching up
  LONGS_EQUAL(1, c.confirmed_sm_lid());
  c.OnHeld(6);
  LONGS_EQUAL(12, c.confirmed_sm_lid());
}

TEST(CoreConfirmation, ACoreBehindWhatIsHeldIsAnotherLineageAndConfirmsNothing) {
  CoreConfirmation c;
  c.OnCoreAnswer(t0, 7, 7);
  // A new master's core from nothing, before it renumbers above us.
  c.OnCoreAnswer(t0 + 10s, 2, 7);
  CHECK(c.confirmed_at() == t0);
  // A promise of the old lineage is void once such a core answered.
  CoreConfirmation d;
  d.OnCoreAnswer(t0, 8, 7);
  d.OnCoreAnswer(t0 + 1s, 2, 7);
  d.OnHeld(8);
  CHECK_FALSE(d.confirmed());
  // It renumbers above ours (8); that version confirms once it arrives.
  d.OnCoreAnswer(t0 + 2s, 8, 7);
  d.OnHeld(8);
  CHECK(d.confirmed());
  CHECK(d.confirmed_at() == t0 + 2s);
}

TEST(CoreConfirmation, ACoreWithoutAnSmdbOrAConsumerWithoutAPrdbConfirmsNothing) {
  CoreConfirmation c;
  c.OnCoreAnswer(t0, 0, 0);
  c.OnCoreAnswer(t0, 0, 3);
  CHECK_FALSE(c.confirmed());
  c.OnCoreAnswer(t0 + 1s, 3, 0);  // pending: the first PRDB confirms as of then
  CHECK_FALSE(c.confirmed());
  c.OnHeld(3);
  CHECK(c.confirmed_at() == t0 + 1s);
}
