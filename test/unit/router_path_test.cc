// router_path_test.cc: path records to DGIDs of other subnets
// (PathEngine::ComputeByGid, common/smdb/off_subnet.h): the router port
// OpenSM's prefix routes choose, and the record the SA writes for it, on
// path_engine_fabric.h's fabric with two routers on S1.

#include <cstring>
#include <string>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb_index.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"
#include "util/smdb_tool/path_text.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;
using namespace path_engine_test;

namespace {

// TwoSwitchFabric with routers R1 and R2 on S1 (path_engine_fabric.h).
std::unique_ptr<SmdbIndex> RouterFabric(std::initializer_list<PrefixRouteSpec> routes,
                                        uint64_t subnet_prefix = kPrefix) {
  Smdb db = TwoRouterFabric(routes, subnet_prefix);
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  return x;
}

std::array<uint8_t, 16> Gid(uint64_t prefix, uint64_t guid) {
  std::array<uint8_t, 16> g;
  ssa::mad::PutGid(prefix, guid, g.data());
  return g;
}

std::string Diff(const ibv_path_record& got, const ibv_path_record& want) {
  return ssa::smdb_tool::DescribeDiffs(ssa::smdb_tool::DiffPathRecords(got, want));
}

// What the SA answers A -> remote DGID `dgid` through the router port
// `router` (node GUID) at `lid`: the local path to that port, with the
// GIDs asked for and HopLimit 255.
ibv_path_record ThroughRouter(uint64_t router, uint16_t lid, const std::array<uint8_t, 16>& sgid,
                              const std::array<uint8_t, 16>& dgid) {
  // A and the router share 0xffff and 0x8002; the first in OpenSM's map
  // order is 0x8002 (partition 0x0002, SL 5); 4K MTU, 4x QDR all the way.
  ibv_path_record want = Expected(A, 10, router, lid, 0x8002, 5, 5, 7, 18, true);
  memcpy(want.sgid.raw, sgid.data(), 16);
  memcpy(want.dgid.raw, dgid.data(), 16);
  want.flowlabel_hoplimit = ssa::ToBe32(0xFF);
  return want;
}

}  // namespace

TEST_GROUP(RouterPath){};

TEST(RouterPath, WithoutPrefixRoutesTheSaRefusesEveryOffSubnetDgid) {
  auto x = RouterFabric({});
  PathEngine e(x.get());
  ibv_path_record got;
  auto sgid = Gid(kPrefix, A + 1);
  auto remote = Gid(0x20010db800000000, 0x12);
  CHECK(e.ComputeByGid(sgid.data(), remote.data(), &got) == PathStatus::kNoRouter);
  STRCMP_EQUAL("no-router", PathStatusName(PathStatus::kNoRouter));
  // A router port of this subnet is a destination like any other.
  auto r1 = Gid(kPrefix, R1 + 1);
  CHECK(e.ComputeByGid(sgid.data(), r1.data(), &got) == PathStatus::kOk);
  ibv_path_record want = Expected(A, 10, R1, kR1Lid, 0x8002, 5, 5, 7, 18, true);
  STRCMP_EQUAL("", Diff(got, want).c_str());
}

TEST(RouterPath, TheWildcardRouteTakesOpenSmsFirstRouterInItsKeyOrder) {
  auto x = RouterFabric({{0, 0}});
  LONGS_EQUAL(R2 + 1, FirstRouterPort(*x));
  PathEngine e(x.get());
  ibv_path_record got;
  auto sgid = Gid(kPrefix, A + 1);
  for (uint64_t prefix :
       {0x20010db800000000ULL, 0x3000000000000000ULL, 0xfec0000000000000ULL, 0x0ULL}) {
    auto dgid = Gid(prefix, 0x1234);
    CHECK(e.ComputeByGid(sgid.data(), dgid.data(), &got) == PathStatus::kOk);
    STRCMP_EQUAL("", Diff(got, ThroughRouter(R2, kR2Lid, sgid, dgid)).c_str());
  }
  // fe80::/10 is this subnet's whatever the prefix route: no such port.
  auto link_local = Gid(0xfe80000000000000ULL, 0x1234);
  CHECK(e.ComputeByGid(sgid.data(), link_local.data(), &got) == PathStatus::kUnknownDlid);
  auto ula_link_local = Gid(0xfebf000000000000ULL, A + 1);
  CHECK(e.ComputeByGid(sgid.data(), ula_link_local.data(), &got) == PathStatus::kOk);
  LONGS_EQUAL(0, ssa::FromBe32(got.flowlabel_hoplimit));
  // A multicast DGID is looked up as a local port GUID too.
  auto mc = Gid(0xff12401bffff0000ULL, 0x1);
  CHECK(e.ComputeByGid(sgid.data(), mc.data(), &got) == PathStatus::kUnknownDlid);
}

TEST(RouterPath, TheFirstRouterFollowsTheSmHostsByteOrder) {
  // R1's port GUID is the smaller number, R2's the smaller byte-swapped:
  // an OpenSM on a big-endian host heads its router table with R1.
  Smdb db = TwoRouterFabric({{0, 0}});
  db.subnet.records[0].flags |= kSubnetSmBigEndian;
  std::unique_ptr<SmdbIndex> x = SortedIndex(&db);
  CHECK(x != nullptr);
  LONGS_EQUAL(R1 + 1, FirstRouterPort(*x));
  PathEngine e(x.get());
  ibv_path_record got;
  auto sgid = Gid(kPrefix, A + 1);
  auto dgid = Gid(0x20010db800000000ULL, 0x1234);
  CHECK(e.ComputeByGid(sgid.data(), dgid.data(), &got) == PathStatus::kOk);
  STRCMP_EQUAL("", Diff(got, ThroughRouter(R1, kR1Lid, sgid, dgid)).c_str());
}

TEST(RouterPath, AnSmMapOrdersAKeysWireBytesAsItsHostReadsThem) {
  // R2's port GUID on the wire, read as each SM host reads it (spelt out
  // here, not taken from this host).
  const uint8_t wire[8] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x01};
  uint64_t little = 0, big = 0;
  for (int i = 0; i < 8; ++i) {
    little |= static_cast<uint64_t>(wire[i]) << (8 * i);
    big = big << 8 | wire[i];
  }
  CHECK_EQUAL(R2 + 1, big);
  CHECK_EQUAL(little, SmMapOrder64(R2 + 1, 0));
  CHECK_EQUAL(big, SmMapOrder64(R2 + 1, kSubnetSmBigEndian));
  LONGS_EQUAL(0x0180, SmMapOrder16(0x8001, 0));
  LONGS_EQUAL(0x8001, SmMapOrder16(0x8001, kSubnetSmBigEndian));
}

TEST(RouterPath, TheFirstMatchingRouteDecidesEvenWhenItNamesNoRouter) {
  auto x = RouterFabric({{0x20010db800000000, R1 + 1},
                         {0x3000000000000000, R1},  // R1's node GUID: no router port
                         {0x3000000000000000, R2 + 1},
                         {0x4000000000000000, A + 1},  // a CA port: no router
                         {0, R1 + 1},
                         {0x5000000000000000, R2 + 1}});  // after "*": never used
  PathEngine e(x.get());
  ibv_path_record got;
  auto sgid = Gid(kPrefix, B + 1);
  auto via = [&](uint64_t prefix) {
    auto dgid = Gid(prefix, 7);
    PathStatus st = e.ComputeByGid(sgid.data(), dgid.data(), &got);
    return st == PathStatus::kOk ? ssa::FromBe16(got.dlid) : -static_cast<int>(st);
  };
  LONGS_EQUAL(kR1Lid, via(0x20010db800000000));
  LONGS_EQUAL(-static_cast<int>(PathStatus::kNoRouter), via(0x3000000000000000));
  LONGS_EQUAL(-static_cast<int>(PathStatus::kNoRouter), via(0x4000000000000000));
  LONGS_EQUAL(kR1Lid, via(0x5000000000000000));
  LONGS_EQUAL(kR1Lid, via(0x6000000000000000));
  LONGS_EQUAL(R1 + 1, RouterPortFor(*x, 0x20010db800000000));
  LONGS_EQUAL(0, RouterPortFor(*x, 0x3000000000000000));
}

TEST(RouterPath, TheSgidAskedForIsCopiedAndAForeignOneRefused) {
  // A subnet whose prefix is not fe80::: link-local SGIDs and DGIDs are
  // its own; the SA copies the SGID asked for and writes its own prefix
  // into a local DGID.
  const uint64_t site = 0x20010db8000000aaULL;
  auto x = RouterFabric({{0, 0}}, site);
  PathEngine e(x.get());
  ibv_path_record got;
  auto ll_sgid = Gid(0xfe80000000000000ULL, A + 1);
  auto ll_dgid = Gid(0xfe80000000000000ULL, B + 1);
  CHECK(e.ComputeByGid(ll_sgid.data(), ll_dgid.data(), &got) == PathStatus::kOk);
  CHECK(memcmp(got.sgid.raw, ll_sgid.data(), 16) == 0);
  auto b = Gid(site, B + 1);
  CHECK(memcmp(got.dgid.raw, b.data(), 16) == 0);
  LONGS_EQUAL(0, ssa::FromBe32(got.flowlabel_hoplimit));
  // fe80:: is local here; a DGID with fe80::'s neighbour prefix is not.
  auto remote = Gid(0xfe00000000000000ULL, 9);
  CHECK(e.ComputeByGid(ll_sgid.data(), remote.data(), &got) == PathStatus::kOk);
  STRCMP_EQUAL("", Diff(got, ThroughRouter(R2, kR2Lid, ll_sgid, remote)).c_str());
  auto foreign = Gid(0x3000000000000000ULL, A + 1);
  CHECK(e.ComputeByGid(foreign.data(), b.data(), &got) == PathStatus::kUnknownSlid);
  auto nobody = Gid(site, 0x4242);
  CHECK(e.ComputeByGid(nobody.data(), remote.data(), &got) == PathStatus::kUnknownSlid);
}

TEST(RouterPath, ARouterPathIsTheLocalPathToTheRouterWithItsMarks) {
  // Whatever decides the local half decides the router path: here S1 has
  // no route to R2, so the wildcard's router has no path (the SA's
  // ERR_NO_RECORDS), and another source's path to R1 is that pair's.
  auto x = RouterFabric({{0x20010db800000000, R1 + 1}, {0, 0}});
  PathEngine e(x.get());
  ibv_path_record got, local;
  auto dgid = Gid(0x20010db800000000ULL, 5);
  auto c = Gid(kPrefix, C + 1);
  CHECK(e.ComputeByGid(c.data(), dgid.data(), &got) == PathStatus::kOk);
  CHECK(e.ComputeByGuid(C + 1, R1 + 1, &local) == PathStatus::kOk);
  memcpy(local.dgid.raw, dgid.data(), 16);
  local.flowlabel_hoplimit = ssa::ToBe32(0xFF);
  STRCMP_EQUAL("", Diff(got, local).c_str());
  LONGS_EQUAL(e.InexactFlags(ssa::FromBe16(got.slid), ssa::FromBe16(got.dlid)), 0);

  Smdb db;
  {
    FabricBuilder g;
    g.db() = TwoSwitchFabric();
    g.Router(R2, kR2Lid, 5, k4x, kQdr, 1);
    g.SwitchPort(S1, 8, 5, k4x, kQdr, 0);
    g.Link(R2, 1, S1, 8);
    g.PrefixRoute(0, 0);  // no LFT entry for LID 51 anywhere
    db = g.db();
  }
  auto y = SortedIndex(&db);
  CHECK(y != nullptr);
  PathEngine e2(y.get());
  auto a = Gid(kPrefix, A + 1);
  CHECK(e2.ComputeByGid(a.data(), dgid.data(), &got) == PathStatus::kNoRoute);
}
