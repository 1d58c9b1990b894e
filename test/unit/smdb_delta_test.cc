// smdb_delta_test.cc: deltas reproduce the new version byte for byte, carry
// only changed tables, refuse the wrong base and any corruption; BumpEpochs
// follows its rules.
#include "common/smdb/smdb_delta.h"

#include <random>
#include <string>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_prdb.h"
#include "test/support/check_ok.h"
#include "test/unit/smdb_test_util.h"

// Last: CppUTest redefines operator new for what follows it.
#include <CppUTest/TestHarness.h>

using namespace ssa::smdb;
using smdb_test::GetU32;
using smdb_test::Serialized;

namespace {

template <class Db>
ssa::Status Apply(const Db& base, const std::string& delta, Db* out) {
  return ApplyDelta(base, reinterpret_cast<const uint8_t*>(delta.data()), delta.size(), out);
}

template <class Db>
std::string Delta(const Db& a, const Db& b) {
  std::string d;
  ssa::Status s = MakeDelta(a, b, &d);
  CHECK_OK(s);
  return d;
}

// Trial `i` of the random-edit tests: a random SMDB and an edited copy
// (edited twice every third trial) with the epochs moved on.
void RandomEditedPair(std::mt19937* rng, int i, Smdb* base, Smdb* next) {
  *base = smdb_test::RandomSmdb(rng, 25);
  *next = *base;
  smdb_test::RandomEdits(rng, next);
  if (i % 3 == 0) smdb_test::RandomEdits(rng, next);
  BumpEpochs(*base, next);
}

}  // namespace

TEST_GROUP(SmdbDelta) { std::mt19937 rng{11}; };

TEST(SmdbDelta, RandomEditsRoundTripByteForByte) {
  for (int i = 0; i < 150; ++i) {
    Smdb base, next;
    RandomEditedPair(&rng, i, &base, &next);
    std::string delta = Delta(base, next);
    Smdb out;
    ssa::Status s = Apply(base, delta, &out);
    CHECK_OK(s);
    CHECK_TRUE(Serialized(out) == Serialized(next));
    CHECK_TRUE(out == next);
  }
}

// A member keeps the serialization too: SpliceDelta makes the new one from
// the old bytes and the delta, equal to serializing ApplyDeltaKnown's result
// (replacements in place, inserts and removals merged, untouched tables
// copied).
TEST(SmdbDelta, SpliceEqualsSerializingTheAppliedDatabase) {
  for (int i = 0; i < 150; ++i) {
    Smdb base, next;
    RandomEditedPair(&rng, i, &base, &next);
    std::string delta = Delta(base, next);
    std::string old_bytes = Serialized(base);
    DbCrcs crcs;
    CHECK_OK(DbCrcsOf(reinterpret_cast<const uint8_t*>(old_bytes.data()), old_bytes.size(), &crcs));
    crcs.digest = Crc32(reinterpret_cast<const uint8_t*>(old_bytes.data()), old_bytes.size());
    Smdb out;
    DbCrcs out_crcs;
    const uint8_t* d = reinterpret_cast<const uint8_t*>(delta.data());
    ssa::Status s = ApplyDeltaKnown(base, crcs, d, delta.size(), &out, &out_crcs);
    CHECK_OK(s);
    std::string spliced;
    s = SpliceDelta(Smdb::Schema(), old_bytes, d, delta.size(), &spliced);
    CHECK_OK(s);
    CHECK_TRUE(spliced == Serialized(next));
    CHECK_EQUAL(out_crcs.digest,
                Crc32(reinterpret_cast<const uint8_t*>(spliced.data()), spliced.size()));
  }
  // Not our layout: refused, so the caller serializes instead.
  std::string junk(100, 'x'), out;
  Smdb a = smdb_test::RandomSmdb(&rng, 5), b = a;
  smdb_test::RandomEdits(&rng, &b);
  BumpEpochs(a, &b);
  std::string delta = Delta(a, b);
  CHECK_FALSE(SpliceDelta(Smdb::Schema(), junk, reinterpret_cast<const uint8_t*>(delta.data()),
                          delta.size(), &out)
                  .ok());
}

TEST(SmdbDelta, PrdbRandomEditsRoundTrip) {
  for (int i = 0; i < 50; ++i) {
    Prdb base = smdb_test::RandomPrdb(&rng, 50);
    Prdb next = base;
    smdb_test::RandomEdits(&rng, &next);
    BumpEpochs(base, &next);
    Prdb out;
    CHECK_OK(Apply(base, Delta(base, next), &out));
    CHECK_TRUE(Serialized(out) == Serialized(next));
  }
}

TEST(SmdbDelta, CarriesOnlyTheChangedRecords) {
  Smdb base = smdb_test::RandomSmdb(&rng, 200);
  Smdb next = base;
  ++next.ports.records[1].neighbor_mtu;                  // a change
  next.links.records.push_back({0x1234, 1, 0x5678, 2});  // an addition
  next.nodes.records.erase(next.nodes.records.begin());  // a removal
  next.SortRecords();
  BumpEpochs(base, &next);
  std::string delta = Delta(base, next);
  UNSIGNED_LONGS_EQUAL(3, GetU32(delta, 12));  // sections: nodes, ports, links
  // Header + 3 section headers + 1 removed key (8) + 2 puts (38 + 18).
  LONGS_EQUAL(48 + 3 * 64 + 8 + 38 + 18, delta.size());
  CHECK(delta.size() * 20 < Serialized(next).size());
  Smdb out;
  CHECK_OK(Apply(base, delta, &out));
  CHECK_TRUE(out == next);
}

TEST(SmdbDelta, IdenticalDatabasesGiveAnEmptyDelta) {
  Smdb db = smdb_test::SampleSmdb();
  std::string delta = Delta(db, db);
  LONGS_EQUAL(48, delta.size());
  // The result may be written over the base.
  CHECK_OK(Apply(db, delta, &db));
  CHECK_TRUE(db == smdb_test::SampleSmdb());
}

TEST(SmdbDelta, EpochOnlyChangeIsCarried) {
  Smdb base = smdb_test::SampleSmdb();
  Smdb next = base;
  next.global_epoch = 9;
  next.switches.epoch = 8;
  std::string delta = Delta(base, next);
  UNSIGNED_LONGS_EQUAL(1, GetU32(delta, 12));
  Smdb out;
  CHECK_OK(Apply(base, delta, &out));
  CHECK_TRUE(out == next);
}

TEST(SmdbDelta, WrongBaseIsRejected) {
  Smdb base = smdb_test::SampleSmdb();
  Smdb next = base;
  next.nodes.records[0].description[0] = 'X';
  BumpEpochs(base, &next);
  std::string delta = Delta(base, next);
  Smdb out = base;
  // Applying twice: the base is now the newer version.
  ssa::Status s = Apply(next, delta, &out);
  LONGS_EQUAL(-ESTALE, s.code());
  STRCMP_CONTAINS("smdb delta: wrong base: the delta applies to global epoch 3",
                  s.message().c_str());
  STRCMP_CONTAINS("this database is epoch 4", s.message().c_str());
  // Same epoch, different content.
  Smdb other = base;
  other.ports.records[0].rate = 2;
  s = Apply(other, delta, &out);
  LONGS_EQUAL(-ESTALE, s.code());
  STRCMP_CONTAINS("wrong base", s.message().c_str());
  CHECK_TRUE(out == base);  // untouched
  // A PRDB delta is not an SMDB delta.
  Prdb p = smdb_test::SamplePrdb();
  s = Apply(base, Delta(p, p), &out);
  LONGS_EQUAL(-EBADMSG, s.code());
  STRCMP_CONTAINS("smdb delta: the delta is for db_type 2 (prdb)", s.message().c_str());
}

TEST(SmdbDelta, EveryCorruptionAndTruncationIsRejected) {
  Smdb base = smdb_test::SampleSmdb();
  Smdb next = base;
  smdb_test::RandomEdits(&rng, &next);
  smdb_test::RandomEdits(&rng, &next);
  BumpEpochs(base, &next);
  std::string delta = Delta(base, next);
  Smdb out;
  for (size_t i = 0; i < delta.size(); ++i) {
    for (uint8_t flip : {0x01, 0x80}) {
      std::string bad = delta;
      bad[i] = static_cast<char>(bad[i] ^ flip);
      CHECK_FALSE(Apply(base, bad, &out).ok());
    }
    CHECK_FALSE(Apply(base, delta.substr(0, i), &out).ok());
  }
  CHECK_FALSE(Apply(base, delta + "x", &out).ok());
  ssa::Status s = Apply(base, delta.substr(0, 20), &out);
  STRCMP_CONTAINS("smdb delta: truncated in the header (20 of 48 bytes)", s.message().c_str());
  std::string other_major = delta;
  smdb_test::PutU16(&other_major, 4, 2);
  LONGS_EQUAL(-EPROTONOSUPPORT, Apply(base, other_major, &out).code());
  std::string other_minor = delta;
  smdb_test::PutU16(&other_minor, 6, ssa::smdb::kFormatMinor + 1);
  s = Apply(base, other_minor, &out);
  LONGS_EQUAL(-EPROTONOSUPPORT, s.code());
  STRCMP_CONTAINS("fetch the full database", s.message().c_str());
  CHECK_OK(Apply(base, delta, &out));
}

// A well-formed delta (all CRCs right) whose changes do not fit the base.
TEST(SmdbDelta, InconsistentChangesAreRejected) {
  Smdb base = smdb_test::SampleSmdb();
  Smdb next = base;
  next.nodes.records.erase(next.nodes.records.begin());
  BumpEpochs(base, &next);
  std::string delta = Delta(base, next);
  // Rewrite the removed key (first 8 bytes after the section header) to a
  // GUID absent from the base, then fix every CRC.
  std::string bad = delta;
  const size_t section = 48, key = section + 64;
  bad[key + 7] = '\x77';
  uint32_t ops_crc = Crc32(reinterpret_cast<const uint8_t*>(bad.data()) + key, 8);
  smdb_test::PutU32(&bad, section + 52, ops_crc);
  SealHeader(reinterpret_cast<uint8_t*>(&bad[section]), 64, 60);
  Smdb out;
  ssa::Status s = Apply(base, bad, &out);
  LONGS_EQUAL(-EBADMSG, s.code());
  STRCMP_CONTAINS("smdb delta: table 'nodes' (id 3): removes a key that is not in the base table",
                  s.message().c_str());
}

TEST(SmdbDelta, BumpEpochsKeepsUnchangedTables) {
  Smdb prev = smdb_test::SampleSmdb();  // global epoch 3
  Smdb next = prev;
  next.global_epoch = 0;
  next.nodes.epoch = 0;
  BumpEpochs(prev, &next);
  CHECK_TRUE(next == prev);  // nothing changed: epochs copied, global kept

  next.nodes.records[1].num_ports = 2;
  next.lft_blocks.records[0].ports[9] = 1;
  BumpEpochs(prev, &next);
  LONGS_EQUAL(4, next.global_epoch);
  LONGS_EQUAL(4, next.nodes.epoch);
  LONGS_EQUAL(4, next.lft_blocks.epoch);
  LONGS_EQUAL(prev.ports.epoch, next.ports.epoch);
  LONGS_EQUAL(prev.subnet.epoch, next.subnet.epoch);

  Smdb after = next;
  after.ports.records.pop_back();
  BumpEpochs(next, &after);
  LONGS_EQUAL(5, after.global_epoch);
  LONGS_EQUAL(5, after.ports.epoch);
  LONGS_EQUAL(4, after.nodes.epoch);
}
