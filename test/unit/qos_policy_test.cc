// qos_policy_test.cc: the QoS policy in the SMDB (smdb_qos_records.h,
// common/smdb/qos_policy.h) and the path engine applying it, on the
// hand-built fabric of path_engine_fabric.h, each expected record derived
// by hand from osm_sa_path_record.c and osm_qos_policy.c.
#include "common/smdb/qos_policy.h"

#include <cstring>
#include <string>

#include "common/base/big_endian.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/smdb_index.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"
#include "util/smdb_tool/path_text.h"

// Last: CppUTest redefines operator new for what follows it.
#include "test/unit/path_engine_checks.h"

using namespace ssa::smdb;
using namespace path_engine_test;

namespace {

SmdbQosLevel Level(uint16_t seq, uint8_t flags, uint8_t sl, const char* name) {
  SmdbQosLevel l;
  l.seq = seq;
  l.flags = flags;
  l.sl = sl;
  strncpy(l.name.data(), name, l.name.size());
  return l;
}

// The policy:
//   level 0 DEFAULT   sl 0
//   level 1 storage   sl 3, MTU <= 512 (2), rate <= 10 Gb/s (3), life 10
//   level 2 part2     sl 7
//   level 3 sw        sl 11, P_Keys 0x7fff
//   level 4 sdp       sl 9
//   group 0 "storage": C's port; group 1 "switches": node type switch
//   rule 0: destination storage -> level 1
//   rule 1: P_Key 0x0002 -> level 2
//   rule 2: source switches -> level 3
//   rule 3: ServiceID 0x10000-0x1ffff -> level 4
Smdb WithPolicy() {
  Smdb db = TwoSwitchFabric();
  db.subnet.records[0].flags |=
      kSubnetQos | kSubnetQosReported | kSubnetQosPolicy | kSubnetQosTables;
  SmdbQosLevel storage =
      Level(1, kQosLevelSl | kQosLevelMtu | kQosLevelRate | kQosLevelLife, 3, "storage");
  storage.mtu_limit = 2;
  storage.rate_limit = 3;
  storage.pkt_life = 10;
  db.qos_levels.records = {Level(0, kQosLevelSl | kQosLevelDefault, 0, "DEFAULT"), storage,
                           Level(2, kQosLevelSl, 7, "part2"), Level(3, kQosLevelSl, 11, "sw"),
                           Level(4, kQosLevelSl, 9, "sdp")};
  SmdbQosGroup g0, g1;
  g0.seq = 0;
  g1.seq = 1;
  g1.node_types = 1u << kNodeSwitch;
  db.qos_groups.records = {g0, g1};
  db.qos_group_ports.records = {SmdbQosGroupPort{0, C + 1}};
  db.qos_rules.records = {SmdbQosRule{0, 1}, SmdbQosRule{1, 2}, SmdbQosRule{2, 3},
                          SmdbQosRule{3, 4}};
  db.qos_rule_groups.records = {SmdbQosRuleGroup{0, kQosDestination, 0, 0},
                                SmdbQosRuleGroup{2, kQosSource, 0, 1}};
  db.qos_ranges.records = {SmdbQosRange{kQosOwnerLevel, 3, kQosRangePkey, 0, 0x7fff, 0x7fff},
                           SmdbQosRange{kQosOwnerRule, 1, kQosRangePkey, 0, 0x0002, 0x0002},
                           SmdbQosRange{kQosOwnerRule, 3, kQosRangeServiceId, 0, 0x10000, 0x1ffff}};
  return db;
}

struct Fixture {
  Smdb db = WithPolicy();
  std::unique_ptr<SmdbIndex> index;
  Fixture() {
    ssa::Status st = SmdbIndex::Build(db, &index);
    CHECK_OK(st);
  }
};

}  // namespace

TEST_GROUP(QosPolicy){};

TEST(QosPolicy, RangesAreSearchedAsOpenSmDoes) {
  std::vector<QosRange> r = {{1, 3}, {7, 7}, {10, 20}, {30, 40}};
  for (uint64_t v : {1, 2, 3, 7, 10, 15, 20, 30, 35, 40})
    CHECK_TEXT(InRanges(r, v), std::to_string(v).c_str());
  for (uint64_t v : {0, 4, 6, 8, 9, 21, 29, 41, 1000}) CHECK_FALSE(InRanges(r, v));
  CHECK_FALSE(InRanges({}, 1));
  CHECK(InRanges({{5, 5}}, 5));
}

TEST(QosPolicy, TheFirstMatchingRulesLevelElseTheDefault) {
  Fixture fx;
  const QosPolicy* p = fx.index->qos();
  CHECK(p != nullptr);
  CHECK_EQUAL(4u, p->rule_count());
  CHECK(p->matches_service_or_class());
  QosQuery plain;
  // Destination in "storage".
  STRCMP_EQUAL("storage", p->Match(plain, A + 1, kNodeCa, C + 1, kNodeCa)->name.c_str());
  // P_Key rule: only a query with a P_Key in its mask matches it.
  STRCMP_EQUAL("DEFAULT", p->Match(plain, A + 1, kNodeCa, B + 1, kNodeCa)->name.c_str());
  QosQuery with_pkey;
  with_pkey.has_pkey = true;
  with_pkey.pkey = 0x8002;  // the base is what counts
  STRCMP_EQUAL("part2", p->Match(with_pkey, A + 1, kNodeCa, B + 1, kNodeCa)->name.c_str());
  // Rule order: storage comes first.
  STRCMP_EQUAL("storage", p->Match(with_pkey, A + 1, kNodeCa, C + 1, kNodeCa)->name.c_str());
  // Node type group.
  STRCMP_EQUAL("sw", p->Match(plain, S1, kNodeSwitch, B + 1, kNodeCa)->name.c_str());
  // ServiceID: in the mask and in range.
  QosQuery sid;
  sid.has_service_id = true;
  sid.service_id = 0x10005;
  STRCMP_EQUAL("sdp", p->Match(sid, A + 1, kNodeCa, B + 1, kNodeCa)->name.c_str());
  sid.service_id = 0x20000;
  STRCMP_EQUAL("DEFAULT", p->Match(sid, A + 1, kNodeCa, B + 1, kNodeCa)->name.c_str());
}

TEST(QosPolicy, TheEngineAppliesTheLevelAsTheSaDoes) {
  Fixture fx;
  PathEngine e(fx.index.get());
  CHECK_EQUAL(0, e.InexactFlags(10, 12));  // the policy is in the SMDB: exact
  STRCMP_EQUAL("", e.Limitations().c_str());
  // A -> C: the storage level caps MTU (4 -> 2) and rate (30 Gb/s, code 4
  // -> 10 Gb/s, code 3), sets SL 3 and PacketLifeTime 10.
  CheckPath(e, 10, 16, Expected(A, 10, C, 16, 0x8002, 3, 2, 3, 10, true));
  // A -> B: no rule; the default level's SL 0 overrides partition SL 5.
  CheckPath(e, 10, 12, Expected(A, 10, B, 12, 0x8002, 0, 5, 7, 18, true));
  // S1 -> D: level "sw" restricts P_Keys to 0x7fff: the SA answers that
  // range value, shared by both, with the level's SL; the rest is the
  // record without QoS.
  Smdb plain_db = TwoSwitchFabric();
  std::unique_ptr<SmdbIndex> plain_index;
  CHECK_OK(SmdbIndex::Build(plain_db, &plain_index));
  ibv_path_record s1_d;
  CHECK(PathEngine(plain_index.get()).Compute(1, 18, &s1_d) == PathStatus::kOk);
  s1_d.pkey = ssa::ToBe16(0x7fff);
  s1_d.qosclass_sl = ssa::ToBe16(11);
  CheckPath(e, 1, 18, s1_d);

  // As ibacm asks (PRDBs): the path's own P_Key in the query. A -> B with
  // 0x8002 matches the P_Key rule.
  PathEngine prdb(fx.index.get(), PathEngineOptions::ForPrdb());
  CheckPath(prdb, 10, 12, Expected(A, 10, B, 12, 0x8002, 7, 5, 7, 18, true));
  // S1 -> D asks with the first P_Key both share, of partition 0x0002:
  // the P_Key rule comes before the switches' rule, so SL 7 and that P_Key.
  s1_d.pkey = ssa::ToBe16(
      plain_index->CommonPkey(plain_index->port(plain_index->PortByLid(1)).pkey_table,
                              plain_index->port(plain_index->PortByLid(18)).pkey_table));
  CHECK_EQUAL(0x0002, ssa::FromBe16(s1_d.pkey) & 0x7fff);
  s1_d.qosclass_sl = ssa::ToBe16(7);
  CheckPath(prdb, 1, 18, s1_d);
}

TEST(QosPolicy, ALevelsPkeysRestrictTheQuerysPkey) {
  // Level "sw" lists 0x0002 only; rule 1 (P_Key 0x0002) goes away.
  Smdb db = WithPolicy();
  db.qos_rules.records.erase(db.qos_rules.records.begin() + 1);
  db.qos_ranges.records = {SmdbQosRange{kQosOwnerLevel, 3, kQosRangePkey, 0, 0x0002, 0x0002},
                           SmdbQosRange{kQosOwnerRule, 3, kQosRangeServiceId, 0, 0x10000, 0x1ffff}};
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  ibv_path_record r;
  // A query with 0xffff from a switch gets level "sw", which lacks it.
  PathEngineOptions o;
  o.query.has_pkey = true;
  o.query.pkey = 0xffff;
  CHECK(PathEngine(idx.get(), o).Compute(1, 18, &r) == PathStatus::kNoSharedPkey);
  // Without a P_Key the SA picks the level's, 0x0002, which both share.
  CHECK(PathEngine(idx.get()).Compute(1, 18, &r) == PathStatus::kOk);
  CHECK_EQUAL(0x0002, ssa::FromBe16(r.pkey));
  CHECK_EQUAL(11, ssa::FromBe16(r.qosclass_sl) & 0xf);
}

TEST(QosPolicy, APolicyTheSmdbDoesNotCarryMarksRecordsNotExact) {
  Smdb db = WithPolicy();
  db.qos_levels.records.clear();
  db.qos_groups.records.clear();
  db.qos_group_ports.records.clear();
  db.qos_rules.records.clear();
  db.qos_rule_groups.records.clear();
  db.qos_ranges.records.clear();
  db.subnet.records[0].flags &= ~kSubnetQosTables;
  std::unique_ptr<SmdbIndex> idx;
  CHECK_OK(SmdbIndex::Build(db, &idx));
  CHECK_EQUAL(kPathInexactQos, PathEngine(idx.get()).InexactFlags(10, 12));
}

TEST(QosPolicy, AnInconsistentPolicyIsRejectedWithTheReason) {
  Smdb db = WithPolicy();
  db.qos_rules.records[1].level = 99;
  std::unique_ptr<SmdbIndex> idx;
  ssa::Status st = SmdbIndex::Build(db, &idx);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("rule 1 has level 99", st.message().c_str());
  db = WithPolicy();
  db.qos_levels.records[0].flags &= ~kQosLevelDefault;
  st = SmdbIndex::Build(db, &idx);
  STRCMP_CONTAINS("no default level", st.message().c_str());
}
