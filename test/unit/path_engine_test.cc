// path_engine_test.cc: the path-record engine (common/smdb/path_engine.h,
// common/smdb/smdb_index.h) on hand-built SMDBs, each expected record derived
// by hand from OpenSM's rules (smdb_records.h, path_engine.h); plus the
// text pieces of ssa-smdb (util/smdb_tool/path_text.h).
// The fabric is drawn in path_engine_fabric.h.
#include "common/smdb/path_engine.h"
#include "common/base/big_endian.h"
#include "common/smdb/whole_prdb.h"

#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "common/mad/mad_wire.h"
#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_index.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"
#include "test/unit/smdb_test_util.h"
#include "util/smdb_tool/path_text.h"

// Last: CppUTest redefines operator new for what follows it.
#include "test/unit/path_engine_checks.h"

using namespace ssa::smdb;
using namespace path_engine_test;

namespace {

struct Fixture {
  Smdb db = TwoSwitchFabric();
  std::unique_ptr<SmdbIndex> index;
  Fixture() {
    ssa::Status st = SmdbIndex::Build(db, &index);
    CHECK_OK(st);
  }
};

}  // namespace

TEST_GROUP(PathEngine){};

TEST(PathEngine, RatesFollowOpenSmsOrderNotTheCodes) {
  // 2.5 < 5 < 10 < 14 < 20 < 30 < 25(31.25) < 28 < 40 < 60 < 50 < 56 < 80
  // < 120 < 100 < 112 < 168 < 200 < 300 < 400 < 600, by code:
  const uint8_t order[] = {2,  5, 3,  11, 6,  4,  15, 19, 7,  8, 20,
                           12, 9, 10, 16, 13, 14, 17, 18, 21, 22};
  for (size_t i = 0; i + 1 < sizeof(order); ++i) {
    CHECK_EQUAL(-1, CompareRates(order[i], order[i + 1]));
    CHECK_EQUAL(1, CompareRates(order[i + 1], order[i]));
    CHECK_EQUAL(0, CompareRates(order[i], order[i]));
  }
  CHECK_EQUAL(-1, CompareRates(0, 2));  // invalid codes rank lowest
  CHECK_EQUAL(0, CompareRates(23, 1));
}

TEST(PathEngine, PortRatesAsOpenSmComputesThem) {
  CHECK_EQUAL(3, ComputePortRate(k4x, kSdr, 0, false));     // 10
  CHECK_EQUAL(4, ComputePortRate(k12x, kSdr, 0, true));     // 30
  CHECK_EQUAL(7, ComputePortRate(k4x, kQdr, kEdr, false));  // 40: extended ignored
  CHECK_EQUAL(16, ComputePortRate(k4x, kQdr, kEdr, true));  // 100
  CHECK_EQUAL(15, ComputePortRate(k1x, kQdr, kEdr, true));  // 25
  CHECK_EQUAL(12, ComputePortRate(k4x, kQdr, 1, true));     // FDR 56
  CHECK_EQUAL(21, ComputePortRate(4, kQdr, 4, true));       // 8x HDR 400
  CHECK_EQUAL(19, ComputePortRate(16, kQdr, 1, true));      // 2x FDR 28
  CHECK_EQUAL(2, ComputePortRate(k4x, 0, 0, false));        // unknown speed
}

TEST(PathEngine, IndexesLidsLftsAndPeers) {
  Fixture fx;
  const SmdbIndex& x = *fx.index;
  CHECK_EQUAL(14u, x.assigned_lids().size());  // 10 CAs (2 with LMC 1), 2 switches
  uint32_t a = x.PortByLid(10);
  CHECK(a != SmdbIndex::kNone);
  CHECK_EQUAL(a, x.PortByLid(11));
  CHECK_EQUAL(a, x.PortByGuid(A + 1));
  CHECK_EQUAL(SmdbIndex::kNone, x.PortByLid(15));
  CHECK_EQUAL(SmdbIndex::kNone, x.PortByLid(9999));
  CHECK_EQUAL(10, x.port(a).base_lid);
  CHECK_EQUAL(1, x.port(a).lmc);
  uint32_t s1_1 = x.port(a).peer;
  CHECK_EQUAL(1, x.port(s1_1).port_num);
  CHECK_EQUAL(a, x.port(s1_1).peer);
  uint32_t s1 = x.port(s1_1).node;
  CHECK_EQUAL(6, x.LftPort(s1, 17));
  CHECK_EQUAL(kLftNoPath, x.LftPort(s1, 20));
  CHECK_EQUAL(kLftNoPath, x.LftPort(s1, 0));
  CHECK_EQUAL(kLftNoPath, x.LftPort(s1, 64));  // above LinearFDBTop
  CHECK_EQUAL(4u, x.pkey_table_count());
}

TEST(PathEngine, LidsAboveTheSwitchTopAreUnrouted) {
  Smdb db = TwoSwitchFabric();
  for (SmdbSwitch& s : db.switches.records)
    if (s.node_guid == S1) s.lin_fdb_top = 29;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  PathEngine e(idx.get());
  CheckNoPath(e, 10, 30, PathStatus::kNoRoute);
  ibv_path_record r;
  CHECK_EQUAL(static_cast<int>(PathStatus::kOk), static_cast<int>(e.Compute(10, 18, &r)));
}

TEST(PathEngine, MinimumMtuAndOrderedRateAlongTheLftRoute) {
  Fixture fx;
  PathEngine e(fx.index.get());
  // A -> B on one switch: MTU 4096 everywhere, 4x QDR.
  CheckPath(e, 10, 12, Expected(A, 10, B, 12, 0x8002, 5, 5, 7, 18, true));
  // A -> C's LID 16 over the fast p5 link: MTU 2048, 12x SDR 30 Gb/s last.
  CheckPath(e, 10, 16, Expected(A, 10, C, 16, 0x8002, 5, 4, 4, 18, true));
  // ... and LID 17 over the 1x SDR, 512-byte p6 link.
  CheckPath(e, 10, 17, Expected(A, 10, C, 17, 0x8002, 5, 2, 2, 18, true));
  // C -> D: 30 Gb/s (code 4) then 5 Gb/s (code 5): the slower, not the
  // lower code.
  CheckPath(e, 16, 18, Expected(C, 16, D, 18, 0x8002, 5, 4, 5, 18, true));
  // D -> C the same way round, D's limited 0x0002 entry is the answer.
  CheckPath(e, 18, 16, Expected(D, 18, C, 16, 0x0002, 5, 4, 5, 18, true));
}

TEST(PathEngine, TavorEndsGet1kMtuWithQuirks) {
  Fixture fx;
  PathEngine e(fx.index.get());
  CheckPath(e, 10, 13, Expected(A, 10, T, 13, 0x8002, 5, 3, 7, 18, true));
  CheckPath(e, 13, 10, Expected(T, 13, A, 10, 0x8002, 5, 3, 7, 18, true));
  // Without enable_quirks, the ports' 4096.
  fx.db.subnet.records[0].flags = 0;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine plain(idx.get());
  CheckPath(plain, 10, 13, Expected(A, 10, T, 13, 0x8002, 5, 5, 7, 18, true));
}

TEST(PathEngine, SwitchEndsAndLoopback) {
  Fixture fx;
  PathEngine e(fx.index.get());
  // Switch S1 as the source: port 0 (1K, 4x SDR) then out of p5; the
  // egress port of the source switch itself is not read.
  CheckPath(e, 1, 16, Expected(S1, 1, C, 16, 0x8002, 5, 3, 3, 18, true));
  // To switch S2: ends at its port 0 through its own LFT entry.
  CheckPath(e, 10, 2, Expected(A, 10, S2, 2, 0x8002, 5, 3, 3, 18, true));
  // A port to itself: PacketLifeTime 0, the port's own MTU and rate.
  CheckPath(e, 10, 10, Expected(A, 10, A, 10, 0x8002, 5, 5, 7, 0, true));
  CheckPath(e, 10, 11, Expected(A, 10, A, 11, 0x8002, 5, 5, 7, 0, true));
  CheckPath(e, 1, 1, Expected(S1, 1, S1, 1, 0x8002, 5, 3, 3, 0, true));
}

TEST(PathEngine, UnreachableAndUnknownLidsAreReportedAsSuch) {
  Fixture fx;
  PathEngine e(fx.index.get());
  CheckNoPath(e, 10, 20, PathStatus::kNoRoute);  // S1's LFT: no path
  CheckNoPath(e, 10, 22, PathStatus::kNoRoute);  // out of a down port
  CheckNoPath(e, 10, 40, PathStatus::kNoRoute);  // a routing loop
  CheckNoPath(e, 16, 40, PathStatus::kNoRoute);
  CheckNoPath(e, 16, 11, PathStatus::kNoRoute);  // S2 has no entry for 11
  CheckNoPath(e, 10, 15, PathStatus::kUnknownDlid);
  CheckNoPath(e, 15, 10, PathStatus::kUnknownSlid);
  // F is reachable from its own switch.
  CheckPath(e, 16, 20, Expected(C, 16, F, 20, 0x8002, 5, 4, 4, 18, true));
  // ComputeAll reports every assigned LID, reachable or not.
  std::vector<PathEngine::Result> all;
  e.ComputeAll(10, &all);
  CHECK_EQUAL(fx.index->assigned_lids().size(), all.size());
  size_t bad = 0;
  for (const auto& r : all) bad += r.status != PathStatus::kOk;
  CHECK_EQUAL(3u, bad);  // 20, 22, 40
}

TEST(PathEngine, ReversibilityFollowsTheWayBackPerLid) {
  Fixture fx;
  PathEngine e(fx.index.get());
  // A's LID 11 is not routed on S2: from 11 the way back fails.
  CheckPath(e, 11, 16, Expected(A, 11, C, 16, 0x8002, 5, 4, 4, 18, false));
  CheckPath(e, 10, 16, Expected(A, 10, C, 16, 0x8002, 5, 4, 4, 18, true));
  PathEngineOptions o;
  o.require_reversible = true;
  PathEngine strict(fx.index.get(), o);
  CheckNoPath(strict, 11, 16, PathStatus::kNotReversible);
  CheckPath(strict, 10, 16, Expected(A, 10, C, 16, 0x8002, 5, 4, 4, 18, true));
}

TEST(PathEngine, ByGuidTheSaAnswersTheFirstLidPairWithAPath) {
  // S1 loses its route for C's base LID 16: (10,16) fails, (11,17) works
  // but is not reversible (S2 has no route for 11), (10,17) works both ways.
  Smdb db = TwoSwitchFabric();
  for (SmdbLftBlock& b : db.lft_blocks.records)
    if (b.node_guid == S1) b.ports[16] = kLftNoPath;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  PathEngine e(idx.get());
  ibv_path_record got;
  CHECK(e.ComputeByGuid(A + 1, C + 1, &got) == PathStatus::kOk);
  ibv_path_record want = Expected(A, 11, C, 17, 0x8002, 5, 2, 2, 18, false);
  CHECK(memcmp(&got, &want, sizeof(got)) == 0);
  PathEngineOptions o;
  o.require_reversible = true;
  PathEngine strict(idx.get(), o);
  CHECK(strict.ComputeByGuid(A + 1, C + 1, &got) == PathStatus::kOk);
  want = Expected(A, 10, C, 17, 0x8002, 5, 2, 2, 18, true);
  want.preference = 2;  // not one of the "fully redundant" pairs
  STRCMP_EQUAL("",
               ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(got, want)).c_str());
  // The base pair when it works; the base pair's status when none does.
  CHECK(e.ComputeByGuid(A + 1, B + 1, &got) == PathStatus::kOk);
  want = Expected(A, 10, B, 12, 0x8002, 5, 5, 7, 18, true);
  CHECK(memcmp(&got, &want, sizeof(got)) == 0);
  CHECK(e.ComputeByGuid(A + 1, F + 1, &got) == PathStatus::kNoRoute);
  CHECK(e.ComputeByGuid(0x1234, F + 1, &got) == PathStatus::kUnknownSlid);
  CHECK(e.ComputeByGuid(A + 1, 0x1234, &got) == PathStatus::kUnknownDlid);
}

TEST(PathEngine, PkeyIsTheFirstSharedInOpenSmsMapOrderAndSetsTheSl) {
  Fixture fx;
  PathEngine e(fx.index.get());
  // {0xffff, 0x8002} against {0xffff}: 0x0002 sorts first (byte-swapped
  // keys) but is not shared; then the default partition, SL 1.
  CheckPath(e, 10, 30, Expected(A, 10, H, 30, 0xffff, 1, 4, 7, 18, true));
  CheckPath(e, 30, 10, Expected(H, 30, A, 10, 0xffff, 1, 4, 7, 18, true));
  // G is a limited member of 0x0002 only: fine with a full member...
  CheckPath(e, 14, 10, Expected(G, 14, A, 10, 0x0002, 5, 4, 7, 18, true));
  // ... no path to another limited member, nor to H.
  CheckNoPath(e, 14, 18, PathStatus::kNoSharedPkey);
  CheckNoPath(e, 14, 30, PathStatus::kNoSharedPkey);
  // Without a partition record, the subnet's default SL.
  fx.db.partitions.records.clear();
  fx.db.subnet.records[0].default_sl = 0;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine nopart(idx.get());
  CheckPath(nopart, 10, 30, Expected(A, 10, H, 30, 0xffff, 0, 4, 7, 18, true));
}

TEST(PathEngine, TheRequesterMustShareAPkeyWithBothEnds) {
  Fixture fx;
  PathEngineOptions o;
  o.requester_lid = 14;  // G: limited 0x0002 only
  PathEngine e(fx.index.get(), o);
  CheckPath(e, 10, 12, Expected(A, 10, B, 12, 0x8002, 5, 5, 7, 18, true));
  CheckNoPath(e, 10, 18, PathStatus::kNoSharedPkey);  // G and D share nothing
  o.requester_lid = 15;                               // no such port
  PathEngine nobody(fx.index.get(), o);
  CHECK(!nobody.Limitations().empty());
  CheckNoPath(nobody, 10, 12, PathStatus::kNoSharedPkey);
}

TEST(PathEngine, LimitationsNameWhatTheSmdbCannotPredict) {
  Fixture fx;
  STRCMP_EQUAL("", PathEngine(fx.index.get()).Limitations().c_str());
  fx.db.subnet.records[0].flags |= kSubnetQos | kSubnetRoutingSl;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  std::string l = PathEngine(idx.get()).Limitations();
  CHECK(l.find("opt.qos") != std::string::npos);
  CHECK(l.find("routing engine") != std::string::npos);
}

TEST(PathEngine, PrdbHoldsEveryPathOfEverySourceLid) {
  Fixture fx;
  PathEngine e(fx.index.get());
  Prdb prdb;
  CHECK_OK(BuildPrdb(e, A + 1, 7, &prdb));
  CHECK_EQUAL(7u, prdb.global_epoch);
  CHECK_EQUAL(10, prdb.source.records[0].base_lid);
  // 2 source LIDs x 14 LIDs, less the 3 unreachable ones from each.
  CHECK_EQUAL(22u, prdb.paths.records.size());
  std::string bytes;
  CHECK_OK(prdb.Serialize(&bytes));  // sorted, unique keys
  PrdbPath p;
  ibv_path_record r;
  CHECK(e.Compute(11, 16, &r) == PathStatus::kOk);
  ToPrdbPath(r, &p);
  CHECK_EQUAL(16, p.dlid);
  CHECK_EQUAL(11, p.slid);
  CHECK_EQUAL(4, p.mtu);
  CHECK_EQUAL(4, p.rate);
  CHECK_EQUAL(18, p.packet_life);
  CHECK_EQUAL(0x8002, p.pkey);
  CHECK_EQUAL(5, p.sl);
  CHECK_EQUAL(0, p.flags);  // not reversible
  CHECK_EQUAL(ENOENT, -BuildPrdb(e, 0x1234, 7, &prdb).code());
}

TEST(PathEngine, BadDatabasesAreRejectedWithTheReason) {
  Smdb db = TwoSwitchFabric();
  db.guid_lids.records[1].base_lid = db.guid_lids.records[0].base_lid;  // a LID owned twice
  std::unique_ptr<SmdbIndex> idx;
  ssa::Status st = SmdbIndex::Build(db, &idx);
  CHECK(!st.ok());
  CHECK(st.message().find("owned by two ports") != std::string::npos);
  db = TwoSwitchFabric();
  db.links.records.push_back({A, 9, B, 1});
  st = SmdbIndex::Build(db, &idx);
  CHECK(!st.ok());
  CHECK(st.message().find("not in table 'ports'") != std::string::npos);
}

// Scrambles fields of a valid database, keeping its tables' keys.
void Scramble(std::mt19937* rng, Smdb* db) {
  auto pick = [rng](size_t n) { return static_cast<size_t>((*rng)() % n); };
  for (int k = 0, n = 1 + static_cast<int>(pick(8)); k < n; ++k) {
    switch (pick(7)) {
      case 0:
        db->lft_blocks.records[pick(db->lft_blocks.records.size())].ports[pick(kLftBlockSize)] =
            static_cast<uint8_t>((*rng)());
        break;
      case 1: {
        SmdbPort& p = db->ports.records[pick(db->ports.records.size())];
        p.mtu_cap = static_cast<uint8_t>((*rng)());
        p.rate = static_cast<uint8_t>((*rng)());
        p.capability_mask = static_cast<uint32_t>((*rng)());
        break;
      }
      case 2: {
        SmdbLink& l = db->links.records[pick(db->links.records.size())];
        const SmdbPort& to = db->ports.records[pick(db->ports.records.size())];
        l.peer_node_guid = to.node_guid;
        l.peer_port_num = to.port_num;
        break;
      }
      case 3:
        db->nodes.records[pick(db->nodes.records.size())].node_type = static_cast<uint8_t>(pick(4));
        break;
      case 4:
        db->pkey_blocks.records[pick(db->pkey_blocks.records.size())].pkeys[pick(kPkeyBlockSize)] =
            static_cast<uint16_t>((*rng)());
        break;
      case 5: {
        SmdbGuidLid& g = db->guid_lids.records[pick(db->guid_lids.records.size())];
        g.lmc = static_cast<uint8_t>(pick(9));
        if (pick(2)) g.base_lid = static_cast<uint16_t>((*rng)());
        break;
      }
      default:
        db->switches.records[pick(db->switches.records.size())].lin_fdb_top =
            static_cast<uint16_t>((*rng)());
        break;
    }
  }
}

TEST(PathEngine, ArbitraryDatabasesNeverCrashTheIndexOrTheEngine) {
  // Scrambled fabrics and random records: Build() either refuses them with
  // a reason or yields an index every path of which can be computed.
  std::mt19937 rng(7);
  int built = 0;
  for (int i = 0; i < 400; ++i) {
    Smdb db = TwoSwitchFabric();
    if (i % 4 == 3)
      db = smdb_test::RandomSmdb(&rng, 20);
    else
      Scramble(&rng, &db);
    std::unique_ptr<SmdbIndex> idx;
    ssa::Status st = SmdbIndex::Build(db, &idx);
    if (!st.ok()) {
      CHECK(!st.message().empty());
      continue;
    }
    ++built;
    PathEngine e(idx.get());
    ibv_path_record r;
    for (uint16_t s : idx->assigned_lids())
      for (uint16_t d : idx->assigned_lids()) e.Compute(s, d, &r);
    e.Compute(0, 0, &r);
    e.Compute(0xffff, 0xbfff, &r);
  }
  CHECK(built > 100);  // most scrambles still make a usable index
}

// ComputePrdb writes its record directly (not through the 64-byte one):
// it must be ToPrdbPath of Compute()'s record with InexactFlags() added,
// for every pair of the test fabric, scrambled ones, and the subnets whose
// records are marked (the encodings compared, padding aside).
TEST(PathEngine, APrdbRecordIsTheSasRecordInPrdbForm) {
  std::mt19937 rng(11);
  const uint32_t flag_cases[] = {0, kSubnetEnableQuirks, kSubnetRoutingSl,
                                 kSubnetQos | kSubnetRoutingSl, kSubnetOriginalSaRates};
  int compared = 0;
  for (int i = 0; i < 120; ++i) {
    Smdb db = TwoSwitchFabric();
    if (i % 3 == 2) Scramble(&rng, &db);
    db.subnet.records[0].flags = flag_cases[i % 5];
    std::unique_ptr<SmdbIndex> idx;
    if (!SmdbIndex::Build(db, &idx).ok()) continue;
    for (const PathEngineOptions& o : {PathEngineOptions(), PathEngineOptions::ForPrdb()}) {
      PathEngine e(idx.get(), o);
      for (uint16_t s : idx->assigned_lids()) {
        for (uint16_t d : idx->assigned_lids()) {
          ibv_path_record r;
          PrdbPath direct, via;
          PathStatus a = e.ComputePrdb(s, d, &direct), b = e.Compute(s, d, &r);
          std::string what =
              "case " + std::to_string(i) + ": " + std::to_string(s) + "->" + std::to_string(d);
          CHECK_TEXT(a == b, what.c_str());
          if (a != PathStatus::kOk) continue;
          ToPrdbPath(r, &via);
          via.flags |= e.InexactFlags(s, d);
          CHECK_TEXT(EncodeRecords(std::vector<PrdbPath>{direct}) ==
                         EncodeRecords(std::vector<PrdbPath>{via}),
                     what.c_str());
          ++compared;
        }
      }
    }
  }
  CHECK(compared > 5000);
}

TEST(PathEngine, LidListsAndPathLines) {
  Fixture fx;
  using ssa::smdb_tool::ParseLidList;
  std::vector<uint16_t> lids;
  CHECK_OK(ParseLidList("10", *fx.index, false, &lids));
  CHECK((std::vector<uint16_t>{10}) == lids);
  lids.clear();
  CHECK_OK(ParseLidList("10,0x00000000000000c1,12-13,10", *fx.index, true, &lids));
  CHECK((std::vector<uint16_t>{10, 11, 16, 17, 12, 13}) == lids);
  lids.clear();
  CHECK_OK(ParseLidList("all", *fx.index, false, &lids));
  CHECK_EQUAL(12u, lids.size());  // every port with a LID, base LIDs
  CHECK(!ParseLidList("0x0000000000000bad", *fx.index, false, &lids).ok());
  CHECK(!ParseLidList("0xc000", *fx.index, false, &lids).ok());
  CHECK(!ParseLidList("x", *fx.index, false, &lids).ok());

  PathEngine e(fx.index.get());
  ibv_path_record r;
  PathStatus st = e.Compute(11, 16, &r);
  STRCMP_EQUAL(
      "path slid=11 dlid=16 status=ok sgid=fe80::a1 dgid=fe80::c1 pkey=0x8002 sl=5 mtu=4 rate=4 "
      "packet_life=18 hop_limit=0 tclass=0 flow_label=0x00000 reversible=0 preference=0",
      ssa::smdb_tool::FormatPathLine(11, 16, st, r).c_str());
  st = e.Compute(10, 20, &r);
  STRCMP_EQUAL("path slid=10 dlid=20 status=no-route",
               ssa::smdb_tool::FormatPathLine(10, 20, st, r).c_str());

  ibv_path_record a = Expected(A, 10, C, 16, 0x8002, 5, 4, 4, 18, true), b = a;
  b.mtu = 0x83;
  b.reversible_numpath = 0x81;
  STRCMP_EQUAL(
      "numb_path x=0 y=1; mtu x=4 y=3",
      ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(a, b), "x", "y").c_str());
  b = a;
  b.reserved[5] = 1;
  STRCMP_EQUAL(
      "reserved x=63:0x00 y=63:0x01",
      ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(a, b), "x", "y").c_str());
}

// Safety rule (issue 25, 1.): a subnet whose QoS levels or routing engine
// may change what the SA answers gets every record marked not exact, each
// with its reason, in the PRDB too; an exact subnet marks nothing.
TEST(PathEngine, RecordsTheSmdbCannotPredictAreMarkedNotExact) {
  Fixture fx;
  Prdb exact;
  CHECK_OK(BuildPrdb(PathEngine(fx.index.get()), A + 1, 7, &exact));
  for (const PrdbPath& p : exact.paths.records) CHECK_EQUAL(0, p.flags & kPathInexact);

  struct Case {
    uint32_t subnet_flags;
    uint8_t marks;
    const char* why;
  } cases[] = {{kSubnetQos, kPathInexactQos, "qos"},  // an older plugin: QoS unknown
               {kSubnetQos | kSubnetQosReported | kSubnetQosPolicy, kPathInexactQos, "qos"},
               {kSubnetQos | kSubnetQosReported | kSubnetSl2VlDrops, kPathInexactQos, "qos"},
               {kSubnetRoutingSl, kPathInexactRoutingSl, "routing-sl"},
               {kSubnetQos | kSubnetRoutingSl, kPathInexact, "qos,routing-sl"}};
  for (const Case& c : cases) {
    fx.db.subnet.records[0].flags = c.subnet_flags;
    std::unique_ptr<SmdbIndex> idx;
    CHECK_OK(SmdbIndex::Build(fx.db, &idx));
    PathEngine e(idx.get());
    CHECK_EQUAL(c.marks, e.InexactFlags(10, 12));
    STRCMP_EQUAL(c.why, InexactReasons(e.InexactFlags(10, 12)).c_str());
    Prdb prdb;
    CHECK_OK(BuildPrdb(e, A + 1, 7, &prdb));
    // The same paths as the exact subnet's, each marked.
    CHECK_EQUAL(exact.paths.records.size(), prdb.paths.records.size());
    for (size_t i = 0; i < prdb.paths.records.size(); ++i) {
      CHECK_EQUAL(c.marks, prdb.paths.records[i].flags & kPathInexact);
      CHECK_EQUAL(exact.paths.records[i].flags, prdb.paths.records[i].flags & ~kPathInexact);
    }
    // No path stays no path, unmarked.
    PrdbPath p;
    CHECK(e.ComputePrdb(10, 99, &p) == PathStatus::kUnknownDlid);
  }
  STRCMP_EQUAL("", InexactReasons(0).c_str());
  // QoS on, no policy, no SL on VL15: the SA answers as without QoS.
  fx.db.subnet.records[0].flags = kSubnetQos | kSubnetQosReported;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  CHECK_EQUAL(0, PathEngine(idx.get()).InexactFlags(10, 12));
  STRCMP_EQUAL("", PathEngine(idx.get()).Limitations().c_str());
}

// An engine that picks SLs, whose answers the SMDB carries (route_sls for
// the hints of route_sl_hints): the record gets the engine's SL for its
// hint, exact; a hint the SMDB does not cover leaves the record marked.
TEST(PathEngine, TheRoutingEnginesSlsFromTheSmdbFinishTheRecord) {
  Fixture fx;
  fx.db.subnet.records[0].flags |= kSubnetRoutingSl | kSubnetRouteSls;
  fx.db.route_sl_hints.records = {SmdbRouteSlHint{0}, SmdbRouteSlHint{5}};
  fx.db.route_sls.records = {SmdbRouteSl{10, 12, 5, 2}, SmdbRouteSl{10, 16, 0, 7}};
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine e(idx.get());
  STRCMP_EQUAL("", e.Limitations().c_str());
  // 10 -> 12: partition 0x0002's SL 5 is the hint; the engine says 2.
  CheckPath(e, 10, 12, Expected(A, 10, B, 12, 0x8002, 2, 5, 7, 18, true));
  CHECK_EQUAL(0, e.InexactFlags(10, 12));
  // 10 -> 16: hint 5, not listed: the engine answered 5 (the entry for
  // hint 0 is another question).
  CheckPath(e, 10, 16, Expected(A, 10, C, 16, 0x8002, 5, 4, 4, 18, true));
  CHECK_EQUAL(0, e.InexactFlags(10, 16));
  // A path whose hint is partition 0x7fff's SL 1, which nobody asked the
  // engine about: marked.
  PathEngine plain(idx.get());
  ibv_path_record r;
  bool found_sl1 = false;
  for (uint16_t d : idx->assigned_lids()) {
    if (plain.Compute(30, d, &r) != PathStatus::kOk) continue;  // H: 0xffff only
    found_sl1 = true;
    CHECK_EQUAL(kPathInexactRoutingSl, plain.InexactFlags(30, d));
  }
  CHECK(found_sl1);
  // Without the SMDB's answers, every record is marked.
  fx.db.subnet.records[0].flags &= ~kSubnetRouteSls;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  CHECK_EQUAL(kPathInexactRoutingSl, PathEngine(idx.get()).InexactFlags(10, 12));
}

// DFSSSP's balanced layers: the engine draws the SL among a range, which
// the SMDB carries as a span per row (and per hint for the pairs it does
// not list); the record has the range's first SL and the span in its
// flags, exact. A range past SL 15 is a bad stream.
TEST(PathEngine, AnSlTheEngineDrawsAmongARangeCarriesItsSpan) {
  Fixture fx;
  fx.db.subnet.records[0].flags |= kSubnetRoutingSl | kSubnetRouteSls;
  fx.db.route_sl_hints.records = {SmdbRouteSlHint{5, 3}};
  fx.db.route_sls.records = {SmdbRouteSl{10, 12, 5, 2, 2}, SmdbRouteSl{10, 16, 5, 5, 1}};
  std::unique_ptr<SmdbIndex> idx;
  CHECK(SmdbIndex::Build(fx.db, &idx).ok());
  PathEngine e(idx.get());
  // 10 -> 12 (hint 5, partition 0x0002's SL): SLs 2 and 3.
  CheckPath(e, 10, 12, Expected(A, 10, B, 12, 0x8002, 2, 5, 7, 18, true));
  CHECK_EQUAL(PathSlSpanBits(2), e.InexactFlags(10, 12));
  PrdbPath p;
  CHECK(e.ComputePrdb(10, 12, &p) == PathStatus::kOk);
  CHECK_EQUAL(2u, PathSlSpan(p.flags));
  CHECK_EQUAL(0, p.flags & kPathInexact);
  // 10 -> 16: listed with span 1 (a pair the engine does not know: the
  // hint itself, no draw).
  CHECK_EQUAL(0, e.InexactFlags(10, 16));
  uint8_t sl = 0, span = 0;
  CHECK(idx->RouteSl(10, 18, 5, &sl, &span));  // not listed: the hint's range
  CHECK_EQUAL(5, sl);
  CHECK_EQUAL(3, span);

  fx.db.route_sls.records = {SmdbRouteSl{10, 12, 5, 14, 3}};
  ssa::Status st = SmdbIndex::Build(fx.db, &idx);
  CHECK(!st.ok());
  STRCMP_CONTAINS("route_sls", st.ToString().c_str());
  fx.db.route_sls.records.clear();
  fx.db.route_sl_hints.records = {SmdbRouteSlHint{5, 0}};
  CHECK(!SmdbIndex::Build(fx.db, &idx).ok());
}

// SL2VL tables with QoS on: an SL sent to VL15 on the way drops the path
// (the SA's valid_sl_mask), per egress port and ingress port.
TEST(PathEngine, AnSlTheSl2VlTablesDropHasNoPath) {
  Fixture fx;
  fx.db.subnet.records[0].flags |=
      kSubnetQos | kSubnetQosReported | kSubnetSl2VlDrops | kSubnetSl2VlTables;
  // S1's port 2 (to B), for packets in on port 1 (from A): SL 5 to VL15.
  fx.db.sl2vl_drops.records = {SmdbSl2VlDrop{S1, 2, 1, 1u << 5}};
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine e(idx.get());
  CHECK_EQUAL(0, e.InexactFlags(10, 12));
  STRCMP_EQUAL("", e.Limitations().c_str());
  // A -> B gets partition 0x0002's SL 5, which S1 drops towards B.
  CheckNoPath(e, 10, 12, PathStatus::kNoRoute);
  // B -> A crosses S1 the other way (in 2, out 1): a path, but its reverse
  // is A -> B: not reversible.
  CheckPath(e, 12, 10, Expected(B, 12, A, 10, 0x8002, 5, 5, 7, 18, false));
  // Another SL on the same hop goes: the default partition's SL 1 (H has
  // only 0xffff) is not dropped anywhere.
  ibv_path_record r;
  CHECK(e.Compute(10, 30, &r) != PathStatus::kOk || (ssa::FromBe16(r.qosclass_sl) & 0xf) != 5);
  // Without the tables in the SMDB, marked instead.
  fx.db.subnet.records[0].flags &= ~kSubnetSl2VlTables;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  CHECK_EQUAL(kPathInexactQos, PathEngine(idx.get()).InexactFlags(10, 12));
}

// allow_both_pkeys: OpenSM's tables keep a P_Key's full and limited
// entries apart, and osm_physp_find_common_pkey walks them three times
// (all keys, then one side's full against the other's limited, then the
// reverse). The tables and the answers are those OpenSM's SA gave for two
// ports of a simulated fabric (D: full 0x0003, limited 0x0103 and
// 0x7fff; H: limited 0x0003 and 0x7fff); the first walk alone misses
// both pairs, and with D as the requester every path to H.
TEST(PathEngine, WithAllowBothPkeysTheLimitedAndFullEntriesAreMatchedAsTheSaDoes) {
  Fixture fx;
  fx.db.subnet.records[0].flags |= kSubnetAllowBothPkeys;
  for (SmdbPkeyBlock& b : fx.db.pkey_blocks.records) {
    if (b.block != 0 || (b.table_id != 2 && b.table_id != 4)) continue;
    b.pkeys.fill(0);
    if (b.table_id == 2) {  // D
      b.pkeys[0] = 0x8003;
      b.pkeys[1] = 0x0103;
      b.pkeys[2] = 0x7fff;
    } else {  // H
      b.pkeys[0] = 0x0003;
      b.pkeys[1] = 0x7fff;
    }
  }
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine e(idx.get());
  ibv_path_record rec;
  CHECK(e.Compute(18, 30, &rec) == PathStatus::kOk);
  CHECK_EQUAL(0x8003, ssa::FromBe16(rec.pkey));  // D's full entry, found in the second walk
  CHECK(e.Compute(30, 18, &rec) == PathStatus::kOk);
  CHECK_EQUAL(0x0003, ssa::FromBe16(rec.pkey));  // H's limited entry, found in the third
  PathEngineOptions o;
  o.requester_lid = 18;  // D asks for A -> H: it shares a P_Key with both
  PathEngine asked_by_d(idx.get(), o);
  CHECK(asked_by_d.Compute(10, 30, &rec) == PathStatus::kOk);
  CHECK_EQUAL(0xffff, ssa::FromBe16(rec.pkey));
  // Without allow_both_pkeys the maps merge each P_Key's entries: one walk.
  fx.db.subnet.records[0].flags &= ~kSubnetAllowBothPkeys;
  CHECK_OK(SmdbIndex::Build(fx.db, &idx));
  PathEngine merged(idx.get());
  CHECK(merged.Compute(18, 30, &rec) == PathStatus::kOk);
  CHECK_EQUAL(0x8003, ssa::FromBe16(rec.pkey));
}

// The SA's last word on the rate (pr_rcv_build_pr), code by code.
TEST(PathEngine, TheSasLastWordOnTheRate) {
  const uint8_t none = 0, ext = SmdbIndex::kRateCapExtSpeeds;
  const uint8_t mask2 = SmdbIndex::kRateCapMask2 | ext;
  const uint8_t w2x = mask2 | SmdbIndex::kRateCap2x, hdr = mask2 | SmdbIndex::kRateCapHdr;
  const uint8_t both = w2x | hdr;
  // use_original_extended_sa_rates_only: 28 -> 25, 50 -> 40, 400 and 600
  // -> 300 Gb/s, whatever the ports; the original codes stay.
  CHECK_EQUAL(15, SaFinalRate(19, true, both, both, true));
  CHECK_EQUAL(7, SaFinalRate(20, true, both, both, true));
  CHECK_EQUAL(18, SaFinalRate(21, true, both, both, true));
  CHECK_EQUAL(18, SaFinalRate(22, true, both, both, true));
  for (uint8_t r = 2; r <= 18; ++r) CHECK_EQUAL(r, SaFinalRate(r, true, none, none, true));
  // Otherwise the original codes pass untouched...
  for (uint8_t r = 2; r <= 18; ++r) CHECK_EQUAL(r, SaFinalRate(r, false, none, none, true));
  // ... and a 2x or HDR rate is what the source port can run: 28 Gb/s
  // (2x only) needs 2x width, else 25 (extended speeds) or 20 Gb/s...
  CHECK_EQUAL(19, SaFinalRate(19, false, w2x, both, true));
  CHECK_EQUAL(15, SaFinalRate(19, false, hdr, both, true));
  CHECK_EQUAL(6, SaFinalRate(19, false, none, both, true));
  // ... 50 Gb/s 2x or HDR, else 40; 400 and 600 Gb/s HDR, else 300...
  CHECK_EQUAL(20, SaFinalRate(20, false, w2x, both, true));
  CHECK_EQUAL(20, SaFinalRate(20, false, hdr, both, true));
  CHECK_EQUAL(7, SaFinalRate(20, false, ext, both, true));
  CHECK_EQUAL(21, SaFinalRate(21, false, hdr, both, true));
  CHECK_EQUAL(18, SaFinalRate(22, false, w2x, both, true));
  // ... without CapabilityMask2 the bits of a stale mask2 do not count...
  CHECK_EQUAL(7, SaFinalRate(20, false, ext | SmdbIndex::kRateCap2x, both, true));
  // ... and the destination's port too when the path is reversible.
  CHECK_EQUAL(18, SaFinalRate(21, false, hdr, w2x, true));
  CHECK_EQUAL(21, SaFinalRate(21, false, hdr, w2x, false));
}

// Without allow_both_pkeys OpenSM's keys map holds one entry per base
// P_Key, and of a table holding both forms it keeps the first (its
// cl_map_insert keeps what is there, though osm_pkey_tbl_set means the
// full one to win): D holding limited then full 0x0002 shares nothing
// with G, a limited member; full then limited, it does.
TEST(PathEngine, ATableHoldingBothFormsOfAPkeyKeepsItsFirstAsOpenSmsMapDoes) {
  for (bool limited_first : {true, false}) {
    Fixture fx;
    for (SmdbPkeyBlock& b : fx.db.pkey_blocks.records) {
      if (b.table_id != 2 || b.block != 0) continue;
      b.pkeys.fill(0);
      b.pkeys[0] = limited_first ? 0x0002 : 0x8002;
      b.pkeys[1] = limited_first ? 0x8002 : 0x0002;
    }
    std::unique_ptr<SmdbIndex> idx;
    CHECK_OK(SmdbIndex::Build(fx.db, &idx));
    PathEngine e(idx.get());
    ibv_path_record rec;
    PathStatus st = e.Compute(14, 18, &rec);  // G -> D
    if (limited_first) {
      CHECK(st == PathStatus::kNoSharedPkey);
    } else {
      CHECK(st == PathStatus::kOk);
      CHECK_EQUAL(0x0002, ssa::FromBe16(rec.pkey) & 0x7fff);
    }
  }
}
