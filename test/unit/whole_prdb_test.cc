// whole_prdb_test.cc: whole PRDBs (common/smdb/whole_prdb.h) hold, for
// every port of a fabric, exactly the records ComputePrdb gives pair by
// pair on an engine without the route-suffix table (hop by hop), in key
// order: BuildPrdb as a Prdb and WritePrdbImage as the bytes Serialize
// writes. On the path engine's test fabric (loops, missing routes, a down
// port, parallel links, LMC 1, limited P_Key members, switch
// destinations), on hundreds of random changes to its routes, ports,
// links and P_Key tables, and with each subnet flag that turns the fold
// off (the records are then solved pair by pair).
#include <memory>
#include <random>
#include <string>

#include "common/smdb/path_engine.h"
#include "common/smdb/whole_prdb.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"

#include "CppUTest/TestHarness.h"

using namespace path_engine_test;

namespace {

// The definition: every (source LID, destination LID) pair solved alone,
// in key order (destinations by GUID then LID, source LIDs ascending).
Prdb PairByPair(const PathEngine& e, uint32_t src, uint64_t epoch) {
  const SmdbIndex& x = e.index();
  const SmdbIndex::Port& s = x.port(src);
  Prdb db;
  db.global_epoch = epoch;
  PrdbSource& so = db.source.records[0];
  so.port_guid = s.port_guid;
  so.subnet_prefix = x.subnet().subnet_prefix;
  so.base_lid = s.base_lid;
  so.lmc = s.lmc;
  so.smdb_epoch = epoch;
  for (uint16_t dlid : x.lids_by_guid()) {
    for (uint32_t k = 0; k < (1u << s.lmc); ++k) {
      PrdbPath p;
      if (e.ComputePrdb(static_cast<uint16_t>(s.base_lid + k), dlid, &p) == PathStatus::kOk)
        db.paths.records.push_back(p);
    }
  }
  return db;
}

// Every endpoint port of `x`: both whole forms against PairByPair on a
// plain engine. Returns the records compared.
size_t CompareEveryPort(const SmdbIndex& x, const std::string& what, bool expect_plan) {
  PathEngine plain(&x, PathEngineOptions::ForPrdb());
  PathEngineOptions o = PathEngineOptions::ForPrdb();
  o.route_suffix_max_entries = 1u << 20;
  PathEngine folding(&x, o);
  if (expect_plan) CHECK_TEXT(folding.whole_prdb_plan() != nullptr, what.c_str());
  size_t records = 0;
  std::string image;
  for (uint32_t port : x.endpoints()) {
    const uint64_t guid = x.port(port).port_guid;
    const std::string msg = what + ": port " + std::to_string(x.port(port).base_lid);
    Prdb want = PairByPair(plain, port, 7), built;
    CHECK_OK(BuildPrdb(folding, guid, 7, &built));
    CHECK_TEXT(want == built, msg.c_str());
    std::string want_bytes;
    CHECK_OK(want.Serialize(&want_bytes));
    size_t paths = 0;
    uint32_t digest = 0;
    image.assign(3, 'x');  // reused memory with something in it
    CHECK_OK(WritePrdbImage(folding, guid, 7, &image, &paths, &digest));
    CHECK_TEXT(want_bytes == image, msg.c_str());
    CHECK_EQUAL_TEXT(Crc32(reinterpret_cast<const uint8_t*>(image.data()), image.size()), digest,
                     msg.c_str());
    CHECK_EQUAL_TEXT(want.paths.records.size(), paths, msg.c_str());
    records += paths;
  }
  return records;
}

// One random change to the ports' P_Key tables, the partitions' SLs, or
// a port's rate among the 2x and HDR ones with the capabilities the SA's
// last rate fix-up reads; returns what it did.
std::string MutatePkeysOrRates(std::mt19937* rng, Smdb* db) {
  auto pick = [rng](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(*rng); };
  if (pick(3) == 0) {
    auto& p = db->ports.records[pick(db->ports.records.size())];
    p.rate = static_cast<uint8_t>(15 + pick(8));  // 25 .. 600 Gb/s codes
    p.capability_mask |= pick(2) ? kCapHasCapMask2 : 0;
    p.capability_mask2 =
        static_cast<uint16_t>((pick(2) ? kCap2Width2x : 0) | (pick(2) ? kCap2SpeedHdr : 0));
    return "2x/HDR rate of port " + std::to_string(p.port_num);
  }
  if (pick(3) == 0) {
    auto& parts = db->partitions.records;
    parts[pick(parts.size())].sl = static_cast<uint8_t>(pick(16));
    return "partition sl";
  }
  auto& p = db->ports.records[pick(db->ports.records.size())];
  if (p.port_guid == 0) return "nothing";
  p.pkey_table_id = pick(6) == 0 ? kNoPkeyTable : static_cast<uint32_t>(1 + pick(4));
  return "pkey table of port " + std::to_string(p.base_lid);
}

}  // namespace

TEST_GROUP(WholePrdb){};

TEST(WholePrdb, EveryPortOfTheTestFabricHasItsPairByPairRecords) {
  Smdb db = WithoutQuirks(TwoSwitchFabric());
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  CHECK(CompareEveryPort(*x, "test fabric", true) > 100);
  // Original SA rates, another default SL: still folded.
  Smdb r = db;
  r.subnet.records[0].flags |= kSubnetOriginalSaRates;
  r.subnet.records[0].default_sl = 3;
  std::unique_ptr<SmdbIndex> y = SortedIndex(&r);
  CHECK(y != nullptr);
  CHECK(CompareEveryPort(*y, "original rates", true) > 100);
}

// S1's LFT sends its own LID out of port 1, to A, whose two rates differ:
// rated by port 0's capability (no extended speeds here) QDR, by its own
// EDR, as A is. The SA's walk from A to LID 1 ends at that port and reads
// only its own rate; a fold through A's first step would read the other.
TEST(WholePrdb, ASwitchLidRoutedOutOfAPortIsSolved) {
  Smdb db = WithoutQuirks(TwoSwitchFabric());
  for (SmdbPort& p : db.ports.records) {
    if (p.node_guid == S1 && p.port_num == 0) p.capability_mask &= ~kCapHasExtSpeeds;
    const bool s1p1 = p.node_guid == S1 && p.port_num == 1, a = p.node_guid == A;
    if (!s1p1 && !a) continue;
    p.link_speed_ext_active = kEdr;
    p.capability_mask = kCapExt;
    p.rate = ComputePortRate(p.link_width_active, p.link_speed_active, kEdr, a);
  }
  for (SmdbLftBlock& b : db.lft_blocks.records)
    if (b.node_guid == S1 && b.block == 0) b.ports[1] = 1;
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  const SmdbIndex::Port& s1p1 = x->port(x->PortOf(x->port(x->PortByLid(1)).node, 1));
  CHECK(CompareRates(s1p1.rate, s1p1.rate_own) < 0);
  CHECK(CompareEveryPort(*x, "S1 LID out of port 1", true) > 100);
}

TEST(WholePrdb, WhatTurnsTheFoldOffIsSolvedPairByPair) {
  const uint32_t off[] = {kSubnetEnableQuirks, kSubnetRoutingSl, kSubnetQos | kSubnetRoutingSl};
  for (uint32_t flags : off) {
    Smdb db = TwoSwitchFabric();
    db.subnet.records[0].flags = flags;
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    CHECK(x != nullptr);
    PathEngineOptions o = PathEngineOptions::ForPrdb();
    o.route_suffix_max_entries = 1u << 20;
    CHECK(PathEngine(x.get(), o).whole_prdb_plan() == nullptr);
    CHECK(CompareEveryPort(*x, "flags " + std::to_string(flags), false) > 50);
  }
  // Another query than the PRDB's, or no table: no plan.
  Smdb db = WithoutQuirks(TwoSwitchFabric());
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  PathEngineOptions o;
  o.route_suffix_max_entries = 1u << 20;
  CHECK(PathEngine(x.get(), o).whole_prdb_plan() == nullptr);
  CHECK(PathEngine(x.get(), PathEngineOptions::ForPrdb()).whole_prdb_plan() == nullptr);
}

TEST(WholePrdb, RandomChangesKeepThePairByPairRecords) {
  std::mt19937 rng(2811);
  int fabrics = 0;
  size_t records = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Smdb db = WithoutQuirks(TwoSwitchFabric());
    std::string what = "trial " + std::to_string(trial) + ":";
    int changes = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < changes; ++i)
      what +=
          " " + (rng() % 3 == 0 ? MutatePkeysOrRates(&rng, &db) : MutateFabric(&rng, &db)) + ";";
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    if (!x) continue;  // e.g. an inconsistent link
    records += CompareEveryPort(*x, what, true);
    ++fabrics;
  }
  CHECK(fabrics > 200);
  CHECK(records > 10000);
}

// Every port at a 2x or HDR rate, with random capabilities at the ends:
// the SA's last fix-up of the rate reads both ends' (ib_path_rate_2x_hdr_fixups).
TEST(WholePrdb, TwoXAndHdrRatesAreFixedUpAsPairByPair) {
  std::mt19937 rng(19);
  for (int trial = 0; trial < 40; ++trial) {
    Smdb db = WithoutQuirks(TwoSwitchFabric());
    for (SmdbPort& p : db.ports.records) {
      p.rate = static_cast<uint8_t>(19 + rng() % 4);  // 28, 50, 400, 600 Gb/s codes
      p.capability_mask |= (rng() % 4) ? kCapHasCapMask2 : 0;
      p.capability_mask2 =
          static_cast<uint16_t>((rng() % 2 ? kCap2Width2x : 0) | (rng() % 2 ? kCap2SpeedHdr : 0));
    }
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    CHECK(x != nullptr);
    CHECK(CompareEveryPort(*x, "rates " + std::to_string(trial), true) > 50);
  }
}

// A ring of 70 switches routing every LID one way round: the walks from a
// CA to the next switch's CA are short, those back go round the ring, past
// OpenSM's 64 switches: no path one way, not reversible the other. Both
// ways round: routed towards the higher GUIDs, the table's fill walks
// whole chains; towards the lower, most switches' entries are one step
// on from the switch filled just before (the fill's short way), and cross
// the limit there.
TEST(WholePrdb, WalksPastTheHopLimitAreCutAsPairByPair) {
  constexpr int kSwitches = 70;
  auto sw = [](int i) { return uint64_t{0x10000} + static_cast<uint64_t>(i) * 0x100; };
  for (bool up : {true, false}) {
    FabricBuilder f;
    for (int i = 0; i < kSwitches; ++i) {
      f.Switch(sw(i), static_cast<uint16_t>(1 + i), 3, 200);
      f.SwitchPort(sw(i), 1, 4, k4x, kQdr, 0);
      f.SwitchPort(sw(i), 2, 4, k4x, kQdr, 0);
      f.SwitchPort(sw(i), 3, 4, k4x, kQdr, 0);
    }
    for (int i = 0; i < kSwitches; ++i) f.Link(sw(i), 1, sw((i + 1) % kSwitches), 2);
    const int ca_at[] = {0, 1, 2, 40};
    for (int i = 0; i < 4; ++i) {
      uint64_t g = 0xC00 + static_cast<uint64_t>(i) * 0x10;
      f.Ca(g, static_cast<uint16_t>(100 + i), 0, 4, k4x, kQdr, 0, 1);
      f.Link(g, 1, sw(ca_at[i]), 3);
    }
    const uint8_t round = up ? 1 : 2;
    for (int i = 0; i < kSwitches; ++i) {
      for (int j = 0; j < kSwitches; ++j)
        f.Route(sw(i), static_cast<uint16_t>(1 + j), i == j ? 0 : round);
      for (int c = 0; c < 4; ++c)
        f.Route(sw(i), static_cast<uint16_t>(100 + c), ca_at[c] == i ? 3 : round);
    }
    f.Pkeys(1, {0xffff});
    f.db().SortRecords();
    Smdb db = f.db();
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    CHECK(x != nullptr);
    CHECK(CompareEveryPort(*x, up ? "ring up" : "ring down", true) > 100);
    // The cases named above are in it (LID 100 at switch 0, 101 at 1, 103
    // at 40).
    PathEngine e(x.get(), PathEngineOptions::ForPrdb());
    PrdbPath p;
    const uint16_t near = up ? 100 : 101, far = up ? 101 : 100;
    CHECK(e.ComputePrdb(near, far, &p) == PathStatus::kOk);
    CHECK_EQUAL(0, p.flags & kPathReversible);
    CHECK(e.ComputePrdb(far, near, &p) == PathStatus::kNoRoute);
    CHECK(e.ComputePrdb(100, 103, &p) == PathStatus::kOk);
    CHECK(p.flags & kPathReversible);
  }
}

TEST(WholePrdb, AnUnknownPortIsRefusedAndTheOutputCleared) {
  Smdb db = WithoutQuirks(TwoSwitchFabric());
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  PathEngineOptions o = PathEngineOptions::ForPrdb();
  o.route_suffix_max_entries = 1u << 20;
  PathEngine e(x.get(), o);
  std::string image = "old";
  size_t paths = 0;
  CHECK_EQUAL(-ENOENT, WritePrdbImage(e, 0xbad, 1, &image, &paths).code());
  CHECK(image.empty());
  Prdb p;
  CHECK_EQUAL(-ENOENT, BuildPrdb(e, 0xbad, 1, &p).code());
}
