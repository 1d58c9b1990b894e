// db_replica_test.cc: a child's replica of one database (db_version.h):
// full and delta transfers are verified by digest before they replace what
// is held, a delta from another epoch or a wrong digest changes nothing,
// and a replica that keeps no serialization (consumers) holds the same
// database.
#include <memory>
#include <string>
#include <vector>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/db_version.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using ssa::smdb::Prdb;
using ssa::smdb::PrdbPath;
using ssa::tree::Applied;
using ssa::tree::Bytes;
using ssa::tree::DbReplica;
using ssa::tree::DigestOf;

namespace {

Prdb MakePrdb(uint64_t epoch, int paths, uint8_t sl) {
  Prdb p;
  p.global_epoch = epoch;
  p.source.records[0].port_guid = 0x1234;
  p.source.records[0].base_lid = 3;
  p.source.records[0].smdb_epoch = epoch;
  for (int i = 0; i < paths; ++i) {
    PrdbPath r;
    r.dlid = static_cast<uint16_t>(10 + i);
    r.slid = 3;
    r.pkey = 0xffff;
    r.sl = sl;
    r.mtu = 4;
    r.rate = 3;
    p.paths.records.push_back(r);
  }
  p.SortRecords();
  return p;
}

Bytes Serialized(const Prdb& p) {
  auto b = std::make_shared<std::string>();
  CHECK_OK(p.Serialize(b.get()));
  return b;
}

Bytes DeltaOf(const Prdb& a, const Prdb& b) {
  auto d = std::make_shared<std::string>();
  CHECK_OK(ssa::smdb::MakeDelta(a, b, d.get()));
  return d;
}

}  // namespace

TEST_GROUP(DbReplica){};

TEST(DbReplica, FullThenDeltaWithAndWithoutTheSerialization) {
  Prdb v1 = MakePrdb(1, 50, 0), v2 = MakePrdb(2, 50, 0);
  v2.paths.records[7].sl = 5;  // one path changed
  Bytes b1 = Serialized(v1), b2 = Serialized(v2), d12 = DeltaOf(v1, v2);
  for (bool keep : {true, false}) {
    int applied = 0;
    Bytes seen;
    DbReplica<Prdb> r(
        [&](const Applied<Prdb>& a) {
          ++applied;
          seen = a.version.bytes;  // a full transfer's, and a delta's when kept
        },
        keep);
    CHECK_OK(r.ApplyFull(b1, 1, DigestOf(*b1)));
    CHECK_EQUAL(1u, r.epoch());
    CHECK(*r.db() == v1);
    CHECK(seen && *seen == *b1);
    CHECK_EQUAL(keep, r.version().bytes != nullptr);
    CHECK_OK(r.ApplyDelta(d12, 1, 2, DigestOf(*b2)));
    CHECK_EQUAL(2u, r.epoch());
    CHECK_EQUAL(DigestOf(*b2), r.digest());
    CHECK(*r.db() == v2);
    // Without the serialization the delta is applied by CRC arithmetic
    // (smdb::ApplyDeltaKnown): no bytes are made.
    if (keep) CHECK(seen && *seen == *b2);
    if (!keep) CHECK(seen == nullptr);
    CHECK_EQUAL(keep, r.version().bytes != nullptr);
    CHECK_EQUAL(2, applied);
  }
}

TEST(DbReplica, AWrongDigestOrBaseChangesNothing) {
  Prdb v1 = MakePrdb(1, 20, 0), v2 = MakePrdb(2, 20, 1), v3 = MakePrdb(3, 20, 2);
  Bytes b1 = Serialized(v1), b2 = Serialized(v2);
  DbReplica<Prdb> r(nullptr, false);
  CHECK_EQUAL(-EILSEQ, r.ApplyFull(b1, 1, DigestOf(*b1) ^ 1).code());
  CHECK(r.db() == nullptr);
  CHECK_EQUAL(-ESTALE, r.ApplyDelta(DeltaOf(v1, v2), 1, 2, DigestOf(*b2)).code());
  CHECK_OK(r.ApplyFull(b1, 1, DigestOf(*b1)));
  CHECK_EQUAL(-EILSEQ, r.ApplyDelta(DeltaOf(v1, v2), 1, 2, DigestOf(*b2) ^ 1).code());
  CHECK_EQUAL(-ESTALE, r.ApplyDelta(DeltaOf(v2, v3), 2, 3, DigestOf(*Serialized(v3))).code());
  CHECK_EQUAL(1u, r.epoch());
  CHECK(*r.db() == v1);
}

// The consumer's path (no serialization kept): a chain of deltas that
// replace, insert and remove paths gives the same database and digest as
// applying them the slow way, and a delta whose result CRC lies is refused.
TEST(DbReplica, DeltasWithoutTheSerializationFollowTheDigest) {
  DbReplica<Prdb> fast(nullptr, false), slow(nullptr, true);
  Prdb cur = MakePrdb(1, 40, 0);
  Bytes b = Serialized(cur);
  CHECK_OK(fast.ApplyFull(b, 1, DigestOf(*b)));
  CHECK_OK(slow.ApplyFull(b, 1, DigestOf(*b)));
  for (uint64_t e = 2; e < 12; ++e) {
    Prdb next = cur;
    next.global_epoch = e;
    next.source.records[0].smdb_epoch = e;
    auto& paths = next.paths.records;
    paths[e % paths.size()].sl = static_cast<uint8_t>(e);  // replaced
    paths[(3 * e) % paths.size()].mtu = static_cast<uint8_t>(e % 5 + 1);
    if (e % 3 == 0) paths.erase(paths.begin() + static_cast<long>(e % paths.size()));  // removed
    if (e % 4 == 0) {                                                                  // inserted
      PrdbPath r;
      r.dlid = static_cast<uint16_t>(200 + e);
      r.slid = 3;
      paths.push_back(r);
      next.SortRecords();
    }
    Bytes nb = Serialized(next), d = DeltaOf(cur, next);
    CHECK_OK(fast.ApplyDelta(d, e - 1, e, DigestOf(*nb)));
    CHECK_OK(slow.ApplyDelta(d, e - 1, e, DigestOf(*nb)));
    CHECK(*fast.db() == next);
    CHECK_EQUAL(DigestOf(*nb), fast.digest());
    cur = next;
  }
  // A put whose section claims a wrong result CRC (header resealed, so
  // only the arithmetic can notice).
  Prdb next = cur;
  next.global_epoch = 12;
  next.paths.records[1].sl = 9;
  std::string d = *DeltaOf(cur, next);
  size_t section = ssa::smdb::kDeltaHeaderSize;
  // The first section is the source table only if it changed; here it did not.
  uint8_t* h = reinterpret_cast<uint8_t*>(&d[section]);
  ssa::PutBe32(h + 48, ssa::GetBe32(h + 48) ^ 1);
  ssa::smdb::SealHeader(h, ssa::smdb::kDeltaSectionHeaderSize, 60);
  CHECK(
      !fast.ApplyDelta(std::make_shared<std::string>(d), 11, 12, DigestOf(*Serialized(next))).ok());
  CHECK(*fast.db() == cur);
}

// RecycleVersions: each delta is built in the version released before it;
// the results are the same databases and bytes as without, a version
// someone still holds is never written over, and versions of other sizes
// (records added and removed) come out whole.
TEST(DbReplica, RecycledVersionsAreExactAndNeverOverwriteAHeldOne) {
  std::vector<Prdb> v;
  for (int e = 1; e <= 8; ++e) {
    // Sizes up and down; one SL changed in each.
    Prdb p = MakePrdb(static_cast<uint64_t>(e), 40 + (e % 3) * 25, 0);
    p.paths.records[static_cast<size_t>(e) % p.paths.records.size()].sl = static_cast<uint8_t>(e);
    v.push_back(p);
  }
  DbReplica<Prdb> r;
  r.RecycleVersions();
  CHECK_OK(r.ApplyFull(Serialized(v[0]), 1, DigestOf(*Serialized(v[0]))));
  std::shared_ptr<const Prdb> held;
  for (size_t i = 1; i < v.size(); ++i) {
    Bytes want = Serialized(v[i]);
    CHECK_OK(r.ApplyDelta(DeltaOf(v[i - 1], v[i]), i, i + 1, DigestOf(*want)));
    CHECK(*r.db() == v[i]);
    CHECK(*r.version().bytes == *want);
    if (i == 2) held = r.db();  // kept by a reader through the rest
  }
  CHECK(*held == v[2]);
  // Versions 1 and 2 (and the others not held) were released and reused.
  CHECK(r.recycled() >= 4);
}
