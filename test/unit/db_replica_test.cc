// db_replica_test.cc: a child's replica of one database (db_version.h):
// full and delta transfers are verified by digest before they replace what
// is held, a delta from another epoch or a wrong digest changes nothing,
// and a replica that keeps no serialization (consumers) holds the same
// database.
#include <memory>
#include <string>

#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/db_version.h"

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
  CHECK(p.Serialize(b.get()).ok());
  return b;
}

Bytes DeltaOf(const Prdb& a, const Prdb& b) {
  auto d = std::make_shared<std::string>();
  CHECK(ssa::smdb::MakeDelta(a, b, d.get()).ok());
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
          seen = a.version.bytes;  // the callback always sees them
        },
        keep);
    CHECK(r.ApplyFull(b1, 1, DigestOf(*b1)).ok());
    CHECK_EQUAL(1u, r.epoch());
    CHECK(*r.db() == v1);
    CHECK(seen && *seen == *b1);
    CHECK_EQUAL(keep, r.version().bytes != nullptr);
    CHECK(r.ApplyDelta(d12, 1, 2, DigestOf(*b2)).ok());
    CHECK_EQUAL(2u, r.epoch());
    CHECK_EQUAL(DigestOf(*b2), r.digest());
    CHECK(*r.db() == v2);
    CHECK(seen && *seen == *b2);
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
  CHECK(r.ApplyFull(b1, 1, DigestOf(*b1)).ok());
  CHECK_EQUAL(-EILSEQ, r.ApplyDelta(DeltaOf(v1, v2), 1, 2, DigestOf(*b2) ^ 1).code());
  CHECK_EQUAL(-ESTALE, r.ApplyDelta(DeltaOf(v2, v3), 2, 3, DigestOf(*Serialized(v3))).code());
  CHECK_EQUAL(1u, r.epoch());
  CHECK(*r.db() == v1);
}
