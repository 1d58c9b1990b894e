// prefix_rows_test.cc: the PRDB's rows for other subnets' prefixes
// (common/smdb/prefix_rows.h) as BuildPrdb and WritePrdbImage write them,
// and a consumer's answers from them (providers/ssa/prdb_view.h): the
// SA's record through the router its prefix routes choose, equal to
// PathEngine::ComputeByGid; on path_engine_fabric.h's two-router fabric.
#include <endian.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/mad/mad_wire.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/prefix_rows.h"
#include "common/smdb/route_diff.h"
#include "common/smdb/whole_prdb.h"
#include "providers/ssa/prdb_view.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"
#include "util/smdb_tool/path_text.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;
using namespace path_engine_test;

namespace {

std::array<uint8_t, 16> Gid(uint64_t prefix, uint64_t guid) {
  std::array<uint8_t, 16> g;
  ssa::mad::PutGid(prefix, guid, g.data());
  return g;
}

// 2001:db8::/64 to R1, 3000:: to R1's node GUID (no router port: the SA
// refuses it), then the wildcard (R2, OpenSM's first router), then a
// route the wildcard hides.
constexpr uint64_t kDb8 = 0x20010db800000000, k3000 = 0x3000000000000000;
Smdb Routed() {
  return TwoRouterFabric({{kDb8, R1 + 1}, {k3000, R1}, {0, 0}, {0x5000000000000000, R1 + 1}});
}

struct Built {
  Smdb db;
  std::unique_ptr<SmdbIndex> x;
  std::unique_ptr<PathEngine> engine;
  std::shared_ptr<Prdb> prdb;
  explicit Built(Smdb d, uint64_t source = A + 1,
                 PathEngineOptions o = PathEngineOptions::ForPrdb())
      : db(std::move(d)) {
    CHECK_OK(SmdbIndex::Build(db, &x));
    engine = std::make_unique<PathEngine>(x.get(), o);
    prdb = std::make_shared<Prdb>();
    CHECK_OK(BuildPrdb(*engine, source, 3, prdb.get()));
  }
};

}  // namespace

TEST_GROUP(PrefixRows){};

TEST(PrefixRows, OneRowPerPrefixTheSaCanRouteInKeyOrderAndTheImageIsTheSame) {
  Built b(Routed());
  std::vector<PrdbPath> rows;
  for (const PrdbPath& p : b.prdb->paths.records)
    if (IsPrefixRow(p)) rows.push_back(p);
  // The wildcard (::), 2001:db8::, 3000:: (refused: DLID 0); 5000:: none.
  LONGS_EQUAL(3, rows.size());
  LONGS_EQUAL(0, GidPrefix(rows[0].dgid.data()));
  LONGS_EQUAL(kR2Lid, rows[0].dlid);
  LONGS_EQUAL(255, rows[0].hop_limit);
  LONGS_EQUAL(kDb8, GidPrefix(rows[1].dgid.data()));
  LONGS_EQUAL(kR1Lid, rows[1].dlid);
  LONGS_EQUAL(k3000, GidPrefix(rows[2].dgid.data()));
  LONGS_EQUAL(0, rows[2].dlid);
  // Keys ascend over the whole table (the prefix rows around the local
  // ones), and the image written straight is the same PRDB.
  std::string want;
  CHECK_OK(b.prdb->Serialize(&want));
  std::string image;
  size_t paths = 0;
  CHECK_OK(WritePrdbImage(*b.engine, A + 1, 3, &image, &paths));
  LONGS_EQUAL(b.prdb->paths.records.size(), paths);
  CHECK(want == image);
  // No prefix routes: no rows.
  Built none(TwoRouterFabric({}));
  for (const PrdbPath& p : none.prdb->paths.records) CHECK(!IsPrefixRow(p));
}

TEST(PrefixRows, AConsumerAnswersOtherSubnetsDgidsAsTheSaDoes) {
  Built b(Routed());
  ssa::ssa_provider::PrdbView view(b.prdb);
  auto sgid = Gid(kPrefix, A + 1);
  for (uint64_t prefix : std::vector<uint64_t>{kDb8, k3000, 0x4000000000000000, 0x5000000000000000,
                                               0xfec0000000000000}) {
    auto dgid = Gid(prefix, 0x77);
    CHECK(view.IsRemote(dgid.data()));
    ibv_path_record want;
    PathStatus st = b.engine->ComputeByGid(sgid.data(), dgid.data(), &want);
    const PrdbPath* found = view.ByGid(dgid.data());
    std::string what = ssa::mad::GidToString(dgid.data());
    if (st != PathStatus::kOk) {
      CHECK_TEXT(found == nullptr, what.c_str());
      continue;
    }
    CHECK_TEXT(found != nullptr, what.c_str());
    ibv_path_record got;
    FromPrdbPath(*found, &got);
    RouteThroughRouter(dgid.data(), &got);
    STRCMP_EQUAL_TEXT(
        "", ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(got, want)).c_str(),
        what.c_str());
  }
  // Local answers are as before, and the prefix rows are no destination of
  // their own (by LID or among the GIDs the tables list).
  CHECK(!view.IsRemote(Gid(kPrefix, R1 + 1).data()));
  const PrdbPath* r1 = view.ByLid(kR1Lid);
  CHECK(r1 != nullptr);
  CHECK(!IsPrefixRow(*r1));
  view.ForEachDgid([](const uint8_t* g) { CHECK(GidGuid(g) != 0); });
}

TEST(PrefixRows, WithoutPrefixRowsAConsumerDoesNotAnswer) {
  // An older access node's PRDB, or a subnet without prefix routes: the
  // consumer cannot tell, so it does not answer (the SA does).
  Built b(TwoRouterFabric({}));
  ssa::ssa_provider::PrdbView view(b.prdb);
  CHECK(view.ByGid(Gid(kDb8, 1).data()) == nullptr);
}

TEST(PrefixRows, AnEngineWithoutPrefixRowsBuildsPrdbsAsBeforeThem) {
  // ibssa's prefix_rows = no: the same PRDB less the prefix rows, whole
  // and as an image; a consumer then leaves remote DGIDs to the SA.
  PathEngineOptions o = PathEngineOptions::ForPrdb();
  o.prefix_rows = false;
  Built with(Routed()), without(Routed(), A + 1, o);
  size_t rows = 0;
  for (const PrdbPath& p : with.prdb->paths.records) rows += IsPrefixRow(p);
  CHECK(rows > 0);
  LONGS_EQUAL(with.prdb->paths.records.size() - rows, without.prdb->paths.records.size());
  for (const PrdbPath& p : without.prdb->paths.records) CHECK(!IsPrefixRow(p));
  std::string want, image;
  CHECK_OK(without.prdb->Serialize(&want));
  size_t paths = 0;
  CHECK_OK(WritePrdbImage(*without.engine, A + 1, 3, &image, &paths));
  CHECK(want == image);
  CHECK(ssa::ssa_provider::PrdbView(with.prdb).ByGid(Gid(kDb8, 1).data()) != nullptr);
  CHECK(ssa::ssa_provider::PrdbView(without.prdb).ByGid(Gid(kDb8, 1).data()) == nullptr);
}

TEST(PrefixRows, AChangeOfRouterPortsRecomputesEverything) {
  Smdb a = Routed();
  Smdb moved = Routed();
  for (SmdbPort& p : moved.ports.records)
    if (p.port_guid == R2 + 1) p.base_lid = 52;
  for (SmdbGuidLid& g : moved.guid_lids.records)
    if (g.port_guid == R2 + 1) g.base_lid = 52;
  ++moved.ports.epoch;
  ++moved.guid_lids.epoch;
  CHECK(!RouterPortsDiffer(a, a));
  CHECK(RouterPortsDiffer(a, moved));
  std::unique_ptr<SmdbIndex> xa, xm;
  CHECK_OK(SmdbIndex::Build(a, &xa));
  CHECK_OK(SmdbIndex::Build(moved, &xm));
  CHECK(DiffRoutes(a, *xa, moved, *xm).all);
}
