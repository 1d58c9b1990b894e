// route_suffixes_test.cc: the route-suffix table (common/smdb/
// route_suffixes.h) changes nothing the engine answers: every (source,
// destination) pair of the path engine's test fabric (loops, missing
// routes, a down port, parallel links of different rates, a Tavor, LMC 1,
// switch destinations), and of hundreds of random changes to it, computes
// the same record, failure and marks with the table as hop by hop: with
// the Tavor MTU quirk on (walks start hop by hop) and off (a CA's first
// step folded, RouteSuffixes::FirstStep).
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "common/smdb/path_engine.h"
#include "common/smdb/route_suffixes.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"

#include "CppUTest/TestHarness.h"

using namespace path_engine_test;

namespace {

PathEngineOptions WithTable(PathEngineOptions o = PathEngineOptions::ForPrdb()) {
  o.route_suffix_max_entries = 1u << 20;
  return o;
}

// Every pair, both engines; returns the pairs compared.
int CompareAllPairs(const SmdbIndex& x, const PathEngineOptions& plain_options,
                    const std::string& what) {
  PathEngine plain(&x, plain_options), table(&x, WithTable(plain_options));
  CHECK_TEXT(table.has_route_suffixes(), what.c_str());
  int pairs = 0;
  for (uint16_t s : x.assigned_lids()) {
    for (uint16_t d : x.assigned_lids()) {
      PrdbPath a, b;
      PathStatus sa = plain.ComputePrdb(s, d, &a), sb = table.ComputePrdb(s, d, &b);
      std::string msg = what + ": path " + std::to_string(s) + "->" + std::to_string(d);
      CHECK_TEXT(sa == sb, msg.c_str());
      if (sa == PathStatus::kOk)
        CHECK_TEXT(memcmp(&a, &b, sizeof(a)) == 0 && a.flags == b.flags, msg.c_str());
      ++pairs;
    }
  }
  return pairs;
}

}  // namespace

TEST_GROUP(RouteSuffixes){};

TEST(RouteSuffixes, EveryPairOfTheTestFabricIsAnsweredAsHopByHop) {
  Smdb db = TwoSwitchFabric();
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  CHECK(CompareAllPairs(*x, PathEngineOptions::ForPrdb(), "prdb query") > 100);
  PathEngineOptions plain;
  CHECK(CompareAllPairs(*x, plain, "no P_Key in the query") > 100);
  PathEngineOptions reversible;
  reversible.require_reversible = true;
  CompareAllPairs(*x, reversible, "reversible required");
  Smdb plain_db = WithoutQuirks(TwoSwitchFabric());
  std::unique_ptr<SmdbIndex> y = SortedIndex(&plain_db);
  CHECK(y != nullptr);
  CHECK(CompareAllPairs(*y, PathEngineOptions::ForPrdb(), "no quirks, prdb query") > 100);
  CHECK(CompareAllPairs(*y, plain, "no quirks, no P_Key in the query") > 100);
  CompareAllPairs(*y, reversible, "no quirks, reversible required");
  // The loop (LID 40) and the missing routes are in the table as such.
  std::unique_ptr<RouteSuffixes> t = RouteSuffixes::Build(*x, 1u << 20);
  CHECK(t != nullptr);
  RouteSuffixes::Suffix sfx;
  uint32_t s1 = x->port(x->PortByLid(1)).node;
  CHECK(t->Get(s1, 40, &sfx) == RouteSuffixes::Lookup::kNoRoute);
  CHECK(t->Get(s1, 20, &sfx) == RouteSuffixes::Lookup::kNoRoute);
  CHECK(t->Get(s1, 10, &sfx) == RouteSuffixes::Lookup::kReached);
  CHECK_EQUAL(1, sfx.hops);
  CHECK(t->Get(s1, 18, &sfx) == RouteSuffixes::Lookup::kReached);
  CHECK_EQUAL(2, sfx.hops);
}

TEST(RouteSuffixes, RandomChangesToTheFabricAreAnsweredAsHopByHop) {
  std::mt19937 rng(2026);
  int fabrics = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Smdb db = TwoSwitchFabric();
    std::string what = "trial " + std::to_string(trial) + ":";
    int changes = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < changes; ++i) what += " " + MutateFabric(&rng, &db) + ";";
    Smdb plain_db = WithoutQuirks(db);
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    if (!x) continue;  // e.g. an inconsistent link
    CompareAllPairs(*x, PathEngineOptions::ForPrdb(), what);
    std::unique_ptr<SmdbIndex> y = SortedIndex(&plain_db);
    CHECK(y != nullptr);
    CompareAllPairs(*y, PathEngineOptions::ForPrdb(), what + " no quirks");
    ++fabrics;
  }
  CHECK(fabrics > 200);
}

// S1's LFT sends its own LID out of port 5, to S2, and port 5's two rates
// differ (rated by port 0's capability for extended speeds, and by its
// own): the walks there end at that port and read its own rate, both where
// it is the egress (from S1's CAs) and where it is the peer (from S2's),
// with the own rate lower and higher than the other. Every other link runs
// EDR and port 5 is 1x, so that the end's rates are the walk's lowest.
TEST(RouteSuffixes, ASwitchLidRoutedOutOfAPortOfTwoRatesIsAnsweredAsHopByHop) {
  for (bool port0_ext : {false, true}) {
    Smdb db = WithoutQuirks(TwoSwitchFabric());
    for (SmdbPort& p : db.ports.records) {
      const bool s1 = p.node_guid == S1;
      if (s1 && p.port_num == 0) {
        p.capability_mask = port0_ext ? (p.capability_mask | kCapHasExtSpeeds)
                                      : (p.capability_mask & ~kCapHasExtSpeeds);
        continue;
      }
      const bool s1p5 = s1 && p.port_num == 5;
      if (s1p5) p.link_width_active = k1x;  // narrower than the way in
      p.link_speed_ext_active = kEdr;
      p.capability_mask = s1p5 && port0_ext ? 0x48 : kCapExt;
      p.rate = ComputePortRate(p.link_width_active, p.link_speed_active, kEdr, !s1 || port0_ext);
    }
    for (SmdbLftBlock& b : db.lft_blocks.records)
      if (b.node_guid == S1 && b.block == 0) b.ports[1] = 5;
    std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
    CHECK(x != nullptr);
    const SmdbIndex::Port& s1p5 = x->port(x->PortOf(x->port(x->PortByLid(1)).node, 5));
    CHECK(CompareRates(s1p5.rate, s1p5.rate_own) == (port0_ext ? 1 : -1));
    const std::string what = port0_ext ? "own rate lower" : "own rate higher";
    CHECK(CompareAllPairs(*x, PathEngineOptions::ForPrdb(), what) > 100);
  }
}

TEST(RouteSuffixes, TooLargeOrPerHopDropsMeanNoTable) {
  Smdb db = TwoSwitchFabric();
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  // Two switches by LIDs 1 .. 40.
  CHECK(RouteSuffixes::Build(*x, 2 * 41) != nullptr);
  CHECK(RouteSuffixes::Build(*x, 2 * 41 - 1) == nullptr);
  PathEngineOptions small = PathEngineOptions::ForPrdb();
  small.route_suffix_max_entries = 10;
  CHECK_FALSE(PathEngine(x.get(), small).has_route_suffixes());
  // QoS with an SL2VL table that drops an SL on one hop: per ingress port.
  Smdb q = TwoSwitchFabric();
  q.subnet.records[0].flags |=
      kSubnetQos | kSubnetQosReported | kSubnetSl2VlDrops | kSubnetSl2VlTables;
  SmdbSl2VlDrop drop;
  drop.node_guid = S1;
  drop.in_port = 1;
  drop.out_port = 5;
  drop.mask = 1u << 3;
  q.sl2vl_drops.records.push_back(drop);
  std::unique_ptr<SmdbIndex> qx = SortedIndex(&q);
  CHECK(qx != nullptr);
  CHECK(qx->has_sl2vl_drops());
  CHECK_FALSE(PathEngine(qx.get(), WithTable()).has_route_suffixes());
}
