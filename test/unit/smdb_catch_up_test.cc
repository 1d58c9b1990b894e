// smdb_catch_up_test.cc: a member's SMDB replica that builds each version
// in the recycled one two before it, writing only what the two deltas
// since then name (DbReplica, ApplyDeltaKnown's made_old,
// SpliceDeltaCatchUp), holds exactly the database, serialization and
// digest a whole build holds: over random chains of versions with records
// replaced, inserted and removed, flaps back to the layout two before,
// readers holding versions (so the recycled one is older), and full
// transfers between (another core's content under the same epoch); and it
// catches up only when the recycled version is the one the held version
// was made from.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_delta_read.h"
#include "common/tree/db_version.h"
#include "test/support/check_ok.h"
#include "test/unit/smdb_test_util.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;
using ssa::tree::Bytes;
using ssa::tree::DbReplica;
using ssa::tree::DigestOf;

namespace {

Bytes Shared(const Smdb& db) {
  return std::make_shared<const std::string>(smdb_test::Serialized(db));
}

// A few records' non-key fields changed: every table keeps its layout.
void ReplaceOnly(std::mt19937* rng, Smdb* db) {
  for (int i = 0, n = 1 + static_cast<int>((*rng)() % 4); i < n; ++i) {
    switch ((*rng)() % 3) {
      case 0:
        if (!db->lft_blocks.records.empty())
          db->lft_blocks.records[(*rng)() % db->lft_blocks.records.size()].ports[(*rng)() % 64] =
              static_cast<uint8_t>((*rng)());
        break;
      case 1:
        if (!db->ports.records.empty())
          db->ports.records[(*rng)() % db->ports.records.size()].port_state =
              static_cast<uint8_t>(1 + (*rng)() % 4);
        break;
      default:
        if (!db->nodes.records.empty())
          db->nodes.records[(*rng)() % db->nodes.records.size()].description[0] =
              static_cast<char>('a' + (*rng)() % 26);
    }
  }
}

// The next version: random edits (layouts change), a flap back to the
// records of the version two before (the layout two before), or values
// replaced in place; epochs bumped as a producer bumps them.
Smdb NextVersion(std::mt19937* rng, const std::vector<Smdb>& chain) {
  const Smdb& prev = chain.back();
  Smdb next = prev;
  const unsigned kind = (*rng)() % 4;
  if (kind == 0 && chain.size() >= 2)
    next = chain[chain.size() - 2];
  else if (kind == 1)
    smdb_test::RandomEdits(rng, &next);
  else
    ReplaceOnly(rng, &next);
  if (kind == 0 && (*rng)() % 2) ReplaceOnly(rng, &next);  // a flap and a reroute
  while (next == prev) ReplaceOnly(rng, &next);
  BumpEpochs(prev, &next);
  return next;
}

// The replica holds `want` exactly: records, serialization and digest.
void CheckHolds(const DbReplica<Smdb>& r, const Smdb& want) {
  const std::string bytes = smdb_test::Serialized(want);
  CHECK(*r.db() == want);
  CHECK(r.version().bytes && *r.version().bytes == bytes);
  CHECK_EQUAL(DigestOf(bytes), r.digest());
  CHECK_EQUAL(want.global_epoch, r.epoch());
}

ssa::Status ApplyNext(DbReplica<Smdb>* r, const Smdb& from, const Smdb& to) {
  auto d = std::make_shared<std::string>();
  ssa::Status st = MakeDelta(from, to, d.get());
  if (!st.ok()) return st;
  return r->ApplyDelta(d, from.global_epoch, to.global_epoch, DigestOf(smdb_test::Serialized(to)));
}

}  // namespace

TEST_GROUP(SmdbCatchUp){};

// Random chains: every version equal to a whole build, and the catch-ups
// (parsed and serialized) happen along the way.
TEST(SmdbCatchUp, RandomChainsEqualWholeBuilds) {
  size_t caught_up = 0, bytes_caught_up = 0, recycled = 0;
  for (unsigned seed = 1; seed <= 12; ++seed) {
    std::mt19937 rng(seed);
    std::vector<Smdb> chain{smdb_test::RandomSmdb(&rng, 12)};
    DbReplica<Smdb> r;
    r.RecycleVersions();
    CHECK_OK(r.ApplyFull(Shared(chain[0]), chain[0].global_epoch, DigestOf(*Shared(chain[0]))));
    std::vector<std::shared_ptr<const Smdb>> readers;
    for (int step = 0; step < 40; ++step) {
      chain.push_back(NextVersion(&rng, chain));
      CHECK_OK(ApplyNext(&r, chain[chain.size() - 2], chain.back()));
      CheckHolds(r, chain.back());
      // A reader now and then keeps a version a while (the access node's
      // index): the recycled one is then older, or none is kept.
      if (rng() % 5 == 0) readers.push_back(r.db());
      if (!readers.empty() && rng() % 3 == 0) readers.erase(readers.begin());
    }
    for (size_t i = 0; i < readers.size(); ++i) CHECK(readers[i]->global_epoch > 0);
    caught_up += r.caught_up();
    bytes_caught_up += r.bytes_caught_up();
    recycled += r.recycled();
  }
  CHECK(caught_up > 100);
  CHECK(bytes_caught_up > 20);
  CHECK(caught_up <= recycled);
}

// A flap (down, up, down): the third version is caught up in place, the
// serialization too (the layout is the one two before).
TEST(SmdbCatchUp, AFlapCatchesUpInPlace) {
  std::mt19937 rng(7);
  Smdb up = smdb_test::RandomSmdb(&rng, 20), down = up;
  smdb_test::RandomEdits(&rng, &down);
  BumpEpochs(up, &down);
  std::vector<Smdb> chain{up, down};
  for (int i = 0; i < 4; ++i) {
    Smdb next = chain[chain.size() - 2];
    do ReplaceOnly(&rng, &next);
    while (next == chain.back());
    BumpEpochs(chain.back(), &next);
    chain.push_back(next);
  }
  DbReplica<Smdb> r;
  r.RecycleVersions();
  CHECK_OK(r.ApplyFull(Shared(up), up.global_epoch, DigestOf(*Shared(up))));
  for (size_t i = 1; i < chain.size(); ++i) {
    CHECK_OK(ApplyNext(&r, chain[i - 1], chain[i]));
    CheckHolds(r, chain[i]);
  }
  // The first delta built in new memory; each after in the version two
  // before (the full transfer's object counts: a delta made from it).
  CHECK_EQUAL(chain.size() - 2, r.recycled());
  CHECK_EQUAL(chain.size() - 2, r.caught_up());
  CHECK_EQUAL(chain.size() - 3, r.bytes_caught_up());
}

// A full transfer ends the chain: another core's content under the same
// epoch numbers is never caught up from the versions before it, not even
// from the very version the full transfer replaced.
TEST(SmdbCatchUp, AFullTransferEndsTheChain) {
  std::mt19937 rng(11);
  std::vector<Smdb> ours{smdb_test::RandomSmdb(&rng, 15)};
  for (int i = 0; i < 4; ++i) ours.push_back(NextVersion(&rng, ours));
  // The other core: other records, numbered from the same epoch as our
  // third version.
  std::vector<Smdb> theirs{smdb_test::RandomSmdb(&rng, 15)};
  theirs[0].global_epoch = ours[2].global_epoch;
  for (int i = 0; i < 3; ++i) theirs.push_back(NextVersion(&rng, theirs));
  DbReplica<Smdb> r;
  r.RecycleVersions();
  CHECK_OK(r.ApplyFull(Shared(ours[0]), ours[0].global_epoch, DigestOf(*Shared(ours[0]))));
  std::shared_ptr<const Smdb> reader;
  for (size_t i = 1; i < ours.size(); ++i) {
    // A reader holds the version before the last one, so that the last
    // one, released by the full transfer, is the one recycled next.
    if (i == ours.size() - 1) reader = r.db();
    CHECK_OK(ApplyNext(&r, ours[i - 1], ours[i]));
    CheckHolds(r, ours[i]);
  }
  const size_t before = r.caught_up();
  CHECK_OK(r.ApplyFull(Shared(theirs[0]), theirs[0].global_epoch, DigestOf(*Shared(theirs[0]))));
  CHECK_OK(ApplyNext(&r, theirs[0], theirs[1]));
  CheckHolds(r, theirs[1]);
  CHECK_EQUAL(before, r.caught_up());  // built whole: the recycled one is ours
  for (size_t i = 2; i < theirs.size(); ++i) {
    CHECK_OK(ApplyNext(&r, theirs[i - 1], theirs[i]));
    CheckHolds(r, theirs[i]);
  }
  CHECK_EQUAL(before + 2, r.caught_up());  // from theirs[0]'s object on
  CHECK(*reader == ours[ours.size() - 2]);
}

// SpliceDeltaCatchUp refuses a buffer whose layout is not the result's
// (the replica then splices whole), and one that is not a serialization.
TEST(SmdbCatchUp, SpliceCatchUpRefusesAnotherLayout) {
  std::mt19937 rng(3);
  Smdb a = smdb_test::RandomSmdb(&rng, 10), b = a, c = a;
  b.links.records.pop_back();  // b: one link fewer
  BumpEpochs(a, &b);
  ReplaceOnly(&rng, &c);
  BumpEpochs(b, &c);           // c: a's layout
  c.links.records.pop_back();  // ... but one link fewer, as b
  std::string ab, bc;
  CHECK_OK(MakeDelta(a, b, &ab));
  CHECK_OK(MakeDelta(b, c, &bc));
  const std::string bytes_b = smdb_test::Serialized(b);
  std::string out = smdb_test::Serialized(a);
  const uint8_t* d = reinterpret_cast<const uint8_t*>(bc.data());
  CHECK(!SpliceDeltaCatchUp(Smdb::Schema(), bytes_b, ab, d, bc.size(), &out).ok());
  std::string junk = "not an smdb";
  CHECK(!SpliceDeltaCatchUp(Smdb::Schema(), bytes_b, ab, d, bc.size(), &junk).ok());
}

// The search the in-place replacements use: std::lower_bound's answer
// from any start below it, on runs of equal values and at both ends.
TEST(SmdbCatchUp, LowerBoundFromIsLowerBound) {
  std::mt19937 rng(5);
  for (int round = 0; round < 2000; ++round) {
    std::vector<int> v(rng() % 40);
    for (int& x : v) x = static_cast<int>(rng() % 30);
    std::sort(v.begin(), v.end());
    const int key = static_cast<int>(rng() % 32) - 1;
    const size_t want = static_cast<size_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
    const size_t from = want == 0 ? 0 : rng() % (want + 1);
    CHECK_EQUAL(want, LowerBoundFrom(from, v.size(), [&](size_t i) { return v[i] < key; }));
  }
}
