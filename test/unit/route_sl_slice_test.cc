// route_sl_slice_test.cc: route-SL slices (route_sl_table.h,
// route_sl_slices.h): an SMDB that leaves the routing engine's SL rows out
// (kSubnetRouteSlSlices) gives exact records only from a slice of its own
// routing and only for the ports the slice covers; everything else stays
// marked. The access node's PRDB service makes a consumer's PRDB again
// when its slice comes, under the same epoch, and the data server's
// publication replaces that epoch whole.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/route_sl_table.h"
#include "common/smdb/smdb_index.h"
#include "common/tree/db_version.h"
#include "common/tree/membership.h"
#include "common/tree/route_sl_slices.h"
#include "distrib/prdb_service.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;
using namespace path_engine_test;

namespace {

// TwoSwitchFabric routed by an engine whose SLs went to slices: hints 0
// and 5 (the partitions' SLs are 1 and 5; 1 is not asked, so its records
// stay marked whatever the slice), generation 7.
Smdb SlicedFabric() {
  Smdb db = TwoSwitchFabric();
  db.global_epoch = 9;
  db.subnet.records[0].flags |= kSubnetRoutingSl | kSubnetRouteSlSlices;
  db.route_sl_hints.records = {SmdbRouteSlHint{0}, SmdbRouteSlHint{5}};
  db.route_sl_hints.epoch = 7;
  return db;
}

// What the core keeps: A (LIDs 10-11) -> B under hint 5 is SL 2, H (30)
// -> B under hint 5 is SL 3.
std::vector<SmdbRouteSl> Rows() {
  return {SmdbRouteSl{10, 12, 5, 2}, SmdbRouteSl{11, 12, 5, 2}, SmdbRouteSl{30, 12, 5, 3}};
}

std::shared_ptr<Smdb> Cut(const Smdb& db, const std::vector<uint64_t>& ports) {
  std::unique_ptr<SmdbIndex> index;
  CHECK_OK(SmdbIndex::Build(db, &index));
  auto slice = std::make_shared<Smdb>();
  ssa::tree::CutRouteSlSlice(db, *index, Rows(), ports, slice.get());
  return slice;
}

}  // namespace

TEST_GROUP(RouteSlSlice){};

TEST(RouteSlSlice, ASliceGivesTheEnginesSlsToThePortsItCoversOnly) {
  Smdb db = SlicedFabric();
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  CHECK_EQUAL(7u, idx->route_sl_generation());
  // No slice: every record is marked, and the reason says why.
  PathEngine none(idx.get(), PathEngineOptions::ForPrdb());
  CHECK_EQUAL(kPathInexactRoutingSl, none.InexactFlags(10, 12));
  STRCMP_CONTAINS("route-SL slice", none.Limitations().c_str());

  // A's slice: A's rows only, A's LID range covered, the routing named.
  std::shared_ptr<Smdb> slice = Cut(db, {A + 1, 0x999 /* not in the SMDB */});
  CHECK_EQUAL(1u, slice->guid_lids.records.size());
  CHECK_EQUAL(2u, slice->route_sls.records.size());
  CHECK_EQUAL(7u, slice->route_sl_hints.epoch);
  RouteSlTable t;
  CHECK_OK(RouteSlTable::Build(*slice, /*slice=*/true, &t));
  CHECK(t.Covers(10) && t.Covers(11) && !t.Covers(12) && !t.Covers(30));

  PathEngineOptions o = PathEngineOptions::ForPrdb();
  o.route_sl_slice = &t;
  PathEngine e(idx.get(), o);
  STRCMP_EQUAL("", e.Limitations().c_str());
  // 10 -> 12: partition 0x0002's SL 5 is the hint; the engine says 2.
  PrdbPath p;
  CHECK(e.ComputePrdb(10, 12, &p) == PathStatus::kOk);
  CHECK_EQUAL(2, p.sl);
  CHECK_EQUAL(0, p.flags & kPathInexact);
  CHECK(e.ComputePrdb(11, 12, &p) == PathStatus::kOk);
  CHECK_EQUAL(2, p.sl);
  // 10 -> 16: hint 5, no row: the hint itself, exact.
  CHECK_EQUAL(0, e.InexactFlags(10, 16));
  // H is not covered: its records are marked even though the core has
  // its row; so are B's.
  CHECK_EQUAL(kPathInexactRoutingSl, e.InexactFlags(30, 12));
  CHECK_EQUAL(kPathInexactRoutingSl, e.InexactFlags(12, 10));
}

TEST(RouteSlSlice, ASliceOfAnotherRoutingOrABadSliceIsNotUsed) {
  Smdb db = SlicedFabric();
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  std::shared_ptr<Smdb> slice = Cut(db, {A + 1});
  slice->route_sl_hints.epoch = 6;  // cut from the routing before
  RouteSlTable t;
  CHECK_OK(RouteSlTable::Build(*slice, true, &t));
  PathEngineOptions o = PathEngineOptions::ForPrdb();
  o.route_sl_slice = &t;
  CHECK_EQUAL(kPathInexactRoutingSl, PathEngine(idx.get(), o).InexactFlags(10, 12));
  // The same generation numbered by another SM (a core before a failover).
  slice = Cut(db, {A + 1});
  slice->subnet.records[0].sm_port_guid = db.subnet.records[0].sm_port_guid + 1;
  CHECK_OK(RouteSlTable::Build(*slice, true, &t));
  CHECK_EQUAL(kPathInexactRoutingSl, PathEngine(idx.get(), o).InexactFlags(10, 12));
  slice = Cut(db, {A + 1});
  CHECK_OK(RouteSlTable::Build(*slice, true, &t));
  CHECK_EQUAL(0, PathEngine(idx.get(), o).InexactFlags(10, 12));

  // A row of a LID the slice does not cover, a LID range past the unicast
  // space, an SL range past 15: each rejected, naming the table.
  slice = Cut(db, {A + 1});
  slice->route_sls.records.push_back(SmdbRouteSl{30, 12, 5, 3});
  ssa::Status st = RouteSlTable::Build(*slice, true, &t);
  CHECK(!st.ok());
  STRCMP_CONTAINS("does not cover", st.ToString().c_str());
  slice = Cut(db, {A + 1});
  slice->guid_lids.records[0].base_lid = 0xBFFF;
  st = RouteSlTable::Build(*slice, true, &t);
  CHECK(!st.ok());
  STRCMP_CONTAINS("guid_lids", st.ToString().c_str());
  slice = Cut(db, {A + 1});
  slice->route_sls.records[0].sl = 15;
  slice->route_sls.records[0].span = 2;
  CHECK(!RouteSlTable::Build(*slice, true, &t).ok());
}

// The publication of a version re-made under its epoch: a child at that
// epoch (other bytes) or behind it gets it whole, never the delta that led
// to the old bytes.
TEST(RouteSlSlice, AVersionRepublishedUnderItsEpochReplacesItWhole) {
  ssa::tree::Publication pub;
  auto b1 = std::make_shared<const std::string>("one");
  auto b2 = std::make_shared<const std::string>("two");
  auto b2again = std::make_shared<const std::string>("two, again");
  pub.Publish({1, 11, b1}, nullptr, 0);
  pub.Publish({2, 22, b2}, std::make_shared<const std::string>("d12"), 1);
  std::vector<ssa::tree::DeltaStep> chain;
  CHECK(pub.Chain(1, &chain));
  CHECK_EQUAL(1u, chain.size());
  pub.Publish({2, 23, b2again}, nullptr, 2);
  CHECK_EQUAL(23u, pub.current().digest);
  CHECK(!pub.Chain(1, &chain));
  // The same bytes again change nothing.
  pub.Publish({3, 33, b1}, std::make_shared<const std::string>("d23"), 2);
  pub.Publish({3, 33, b1}, nullptr, 0);
  CHECK(pub.Chain(2, &chain));
}

TEST_GROUP(RouteSlSliceService) {
  ssa::EventLoop loop;
  ssa::Logger log;
  std::unique_ptr<ssa::WorkerPool> pool;
  std::vector<ssa::distrib::PrdbVersion> published;

  void setup() override {
    CHECK_OK(loop.Init());
    log.set_level(ssa::LogLevel::kError);
    pool = std::make_unique<ssa::WorkerPool>(&loop, 2);
  }
  void teardown() override { pool.reset(); }
  void WaitPublished(size_t n) {
    CHECK(loop.RunUntil([&] { return published.size() >= n; }, std::chrono::seconds(10)));
  }
  static bool AnyMarked(const ssa::distrib::PrdbVersion& v) {
    Prdb prdb;
    CHECK_OK(
        Prdb::Parse(reinterpret_cast<const uint8_t*>(v.bytes()->data()), v.bytes()->size(), &prdb));
    for (const PrdbPath& p : prdb.paths.records)
      if (p.flags & kPathInexactRoutingSl) return true;
    return false;
  }
};

// A consumer's update waits for a slice that covers it; when the wait runs
// out it gets the engine's records marked, and its PRDB is made again
// under the same epoch when the slice comes. At a new routing the
// consumers keep their PRDBs until its slice comes; one the slice does not
// cover is updated, marked, when the wait runs out.
TEST(RouteSlSliceService, ConsumersWaitForTheirSliceAndAreMadeAgainWhenItComes) {
  ssa::distrib::PrdbService svc(
      &loop, pool.get(), &log,
      [this](const ssa::distrib::PrdbVersion& v) { published.push_back(v); },
      [](uint64_t, const ssa::Status& st) { FAIL(st.ToString().c_str()); });
  svc.set_slice_wait(std::chrono::milliseconds(50));
  auto db = std::make_shared<Smdb>(SlicedFabric());
  // Only partition 0x0002 (SL 5, asked of the engine) on A, B and C, so
  // that a covered consumer's records can all be exact.
  for (auto& b : db->pkey_blocks.records)
    for (auto& k : b.pkeys)
      if ((k & 0x7fff) == 0x7fff) k = 0;
  svc.AddConsumer(A + 1);
  svc.AddConsumer(B + 1);
  svc.OnSmdb(db);
  CHECK(loop.RunUntil([&] { return svc.holding_for_slice(); }, std::chrono::seconds(10)));
  CHECK(published.empty());
  WaitPublished(2);  // the wait ran out
  for (const auto& v : published) CHECK(AnyMarked(v));
  CHECK_EQUAL(2u, svc.consumers_without_engine_sls());
  uint32_t first_digest_a = 0;
  for (const auto& v : published)
    if (v.port_guid == A + 1) first_digest_a = v.digest;

  // A bad slice is counted and changes nothing.
  std::shared_ptr<Smdb> bad = Cut(*db, {A + 1});
  bad->route_sls.records.push_back(SmdbRouteSl{30, 12, 5, 3});  // H is not covered
  svc.OnRouteSlSlice(bad);
  CHECK_EQUAL(1u, svc.slices_rejected());

  svc.OnRouteSlSlice(Cut(*db, {A + 1}));
  WaitPublished(3);
  CHECK(loop.RunUntil([&] { return svc.jobs_in_flight() == 0; }, std::chrono::seconds(10)));
  CHECK_EQUAL(3u, published.size());  // B is not covered: not made again
  CHECK_EQUAL(1u, svc.consumers_without_engine_sls());
  const ssa::distrib::PrdbVersion& again = published.back();
  CHECK_EQUAL(A + 1, again.port_guid);
  CHECK_EQUAL(9u, again.epoch);
  CHECK(again.digest != first_digest_a);
  CHECK(!AnyMarked(again));
  std::shared_ptr<const Prdb> cur = svc.Current(A + 1);
  CHECK(cur != nullptr);
  bool saw_engine_sl = false;
  for (const PrdbPath& p : cur->paths.records) saw_engine_sl |= p.dlid == 12 && p.sl == 2;
  CHECK(saw_engine_sl);

  // A new routing (generation 8): both keep their PRDBs until its slice
  // comes; A is then updated with the engine's SLs, B (not covered) when
  // the wait runs out, marked.
  auto db2 = std::make_shared<Smdb>(*db);
  db2->global_epoch = 10;
  db2->route_sl_hints.epoch = 8;
  svc.OnSmdb(db2);
  CHECK(loop.RunUntil([&] { return svc.holding_for_slice(); }, std::chrono::seconds(10)));
  CHECK_EQUAL(3u, published.size());
  svc.OnRouteSlSlice(Cut(*db2, {A + 1}));
  WaitPublished(5);
  for (size_t i = 3; i < 5; ++i) {
    CHECK_EQUAL(10u, published[i].epoch);
    CHECK_EQUAL(published[i].port_guid == A + 1, !AnyMarked(published[i]));
  }
  CHECK_EQUAL(A + 1, published[3].port_guid);  // A did not wait for the timer
}

// A wait that ended (its slice came) leaves no deadline behind: the next
// routing's consumers get the whole wait, not what remained of the last
// one's (the ASan soak: a new routing's wait ended after 0.2 s).
TEST(RouteSlSliceService, AWaitThatEndedLeavesNoDeadlineForTheNext) {
  ssa::distrib::PrdbService svc(
      &loop, pool.get(), &log,
      [this](const ssa::distrib::PrdbVersion& v) { published.push_back(v); },
      [](uint64_t, const ssa::Status& st) { FAIL(st.ToString().c_str()); });
  svc.set_slice_wait(std::chrono::seconds(60));  // never runs out here
  auto db = std::make_shared<Smdb>(SlicedFabric());
  svc.AddConsumer(A + 1);
  svc.OnSmdb(db);
  CHECK(loop.RunUntil([&] { return svc.holding_for_slice(); }, std::chrono::seconds(10)));
  svc.OnRouteSlSlice(Cut(*db, {A + 1}));
  WaitPublished(1);
  CHECK(!svc.holding_for_slice());

  // The same once the only waiting consumer leaves.
  auto db2 = std::make_shared<Smdb>(*db);
  db2->global_epoch = 10;
  db2->route_sl_hints.epoch = 8;
  svc.OnSmdb(db2);
  CHECK(loop.RunUntil([&] { return svc.holding_for_slice(); }, std::chrono::seconds(10)));
  svc.RemoveConsumer(A + 1);
  CHECK(!svc.holding_for_slice());
}

namespace {

// Every LID's owner is 0x1000 + LID, two hops from anywhere.
class FlatTopology : public ssa::tree::Topology {
 public:
  uint64_t OwnerGuid(uint16_t lid) const override { return 0x1000 + lid; }
  int Hops(uint16_t, uint16_t) const override { return 2; }
};

}  // namespace

// What the core cuts slices by: the consumers each access node serves as
// parent or backup, and the token an access node presents for its slice.
TEST(RouteSlSlice, TheCoreKnowsWhichConsumersEachAccessNodeServes) {
  namespace tree = ssa::tree;
  FlatTopology topology;
  tree::DataAddress address;
  CHECK_OK(tree::DataAddress::Parse("127.0.0.1:7470", &address));
  tree::Membership m(tree::MembershipOptions{}, 0x1001, 1, address);
  m.SetTopology(&topology);
  auto now = tree::Membership::Clock::now();
  std::map<uint64_t, tree::JoinAnswer> answers;
  auto join = [&](uint16_t lid, uint8_t roles) {
    tree::JoinRequest r;
    r.roles = roles;
    r.port_guid = 0x1000 + lid;
    if (roles & tree::kRoleAccess)
      CHECK_OK(
          tree::DataAddress::Parse("127.0.0.1:" + std::to_string(7000 + lid), &r.data_address));
    std::string why;
    CHECK_EQUAL_TEXT(0, m.Join(r, lid, now, &answers[r.port_guid], &why), why.c_str());
  };
  join(2, tree::kRoleAccess);
  join(3, tree::kRoleAccess);
  for (uint16_t lid = 10; lid < 16; ++lid) join(lid, tree::kRoleConsumer);

  std::map<uint64_t, std::vector<uint64_t>> served = m.ConsumersServed(tree::kRoleAccess);
  std::map<uint64_t, int> times;
  for (const auto& kv : served) {
    CHECK(kv.first == 0x1002 || kv.first == 0x1003);
    CHECK(std::is_sorted(kv.second.begin(), kv.second.end()));
    for (uint64_t c : kv.second) {
      const tree::JoinAnswer& a = answers[c];
      CHECK(a.parent.guid == kv.first || a.backup.guid == kv.first);
      ++times[c];
    }
  }
  CHECK_EQUAL(6u, times.size());
  int backed_up = 0;
  for (const auto& kv : times) {
    const tree::JoinAnswer& a = answers[kv.first];
    CHECK_EQUAL(a.backup.guid && a.backup.guid != a.parent.guid ? 2 : 1, kv.second);
    backed_up += kv.second == 2;
  }
  CHECK(backed_up > 0);  // two access nodes: backups are the other one
  // No role serves as distribution here.
  CHECK(m.ConsumersServed(tree::kRoleDistribution).empty());

  CHECK(m.HoldsToken(0x1002, answers[0x1002].token, tree::kRoleAccess, now));
  CHECK(!m.HoldsToken(0x1002, answers[0x1003].token, tree::kRoleAccess, now));
  CHECK(!m.HoldsToken(0x100a, answers[0x100a].token, tree::kRoleAccess, now));  // a consumer
  CHECK(!m.HoldsToken(0x1002, answers[0x1002].token, tree::kRoleAccess,
                      now + std::chrono::hours(1)));  // its lease ran out
}
