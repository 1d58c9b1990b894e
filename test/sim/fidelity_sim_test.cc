// fidelity_sim_test.cc: QoS and the replica (issue 25): path records equal
// to OpenSM's SA under QoS, and never a wrong one served. With the whole
// tree running (fidelity_fixture.h):
//   - a QoS policy the SMDB carries: every pair and query shape equal to
//     the SA, ibacm answering from its PRDB alone; every form a policy can
//     take; a policy change re-read on a resweep reaching ibacm;
//   - QoS on without a policy: nothing marked, nothing asked of the SA;
//   - SL2VL tables that send an SL to VL15: the paths on it dropped, as the
//     SA drops them.
// What the replica cannot compute (DFSSSP's random SLs) is marked and
// never served: routing_engine_sim_test.cc; an SMDB without the QoS
// tables: the unit tests (qos_policy_test.cc).
// Routing engines that choose SLs are in routing_engine_sim_test.cc.
#include <signal.h>

#include <fstream>
#include <string>
#include <vector>

#include "test/sim/fidelity_fixture.h"
#include "test/support/check_ok.h"

using namespace fidelity;

namespace {

// Hca9..Hca12 are "storage": every path towards them gets SL 3.
const char kStoragePolicy[] =
    "port-groups\n"
    "  port-group\n"
    "    name: Storage\n"
    "    port-name: Hca9/P1, Hca10/P1, Hca11/P1, Hca12/P1\n"
    "  end-port-group\n"
    "end-port-groups\n"
    "qos-levels\n"
    "  qos-level\n"
    "    name: DEFAULT\n"
    "    sl: 0\n"
    "  end-qos-level\n"
    "  qos-level\n"
    "    name: StorageLevel\n"
    "    sl: 3\n"
    "  end-qos-level\n"
    "end-qos-levels\n"
    "qos-match-rules\n"
    "  qos-match-rule\n"
    "    destination: Storage\n"
    "    qos-level-name: StorageLevel\n"
    "  end-qos-match-rule\n"
    "end-qos-match-rules\n";

// Partitions for the policy forms below: Hca1..Hca6 full members of
// "storage" 0x0002 (SL 5), everyone in the default partition (SL 1).
const char kPartitions[] =
    "Default=0x7fff, ipoib, sl=1 : ALL=full ;\n"
    "storage=0x0002, sl=5 : ALL_SWITCHES=full ;\n";

// Every form a policy can take that the SA reads for a PathRecord: groups
// by port name, node type and partition (and, in the second version, by
// port GUID); levels with SL, MTU, rate and packet-life limits and P_Key
// ranges; rules on QoS class, ServiceID, P_Key, source, destination and
// both; the default level; and the qos-ulps shortcuts.
std::string PolicyForms(const std::string& guid_group) {
  return "port-groups\n"
         "  port-group\n    name: Storage\n    port-name: Hca9/P1, Hca10/P1\n  end-port-group\n"
         "  port-group\n    name: Compute\n    port-name: Hca1/P1, Hca2/P1, Hca3/P1\n"
         "  end-port-group\n"
         "  port-group\n    name: Switches\n    node-type: SWITCH\n  end-port-group\n"
         "  port-group\n    name: Part2\n    partition: storage\n  end-port-group\n" +
         guid_group +
         "end-port-groups\n"
         "qos-levels\n"
         "  qos-level\n    name: DEFAULT\n    sl: 2\n  end-qos-level\n"
         "  qos-level\n    name: Slow\n    sl: 4\n    mtu-limit: 2\n    rate-limit: 3\n"
         "    packet-life: 12\n  end-qos-level\n"
         "  qos-level\n    name: StorageLevel\n    sl: 3\n  end-qos-level\n"
         "  qos-level\n    name: PkeyLevel\n    sl: 6\n    pkey: 0x0002\n  end-qos-level\n"
         "  qos-level\n    name: SidLevel\n    sl: 7\n  end-qos-level\n"
         "  qos-level\n    name: ClassLevel\n    sl: 8\n  end-qos-level\n"
         "  qos-level\n    name: GuidLevel\n    sl: 10\n    packet-life: 14\n  end-qos-level\n"
         "end-qos-levels\n"
         "qos-match-rules\n"
         "  qos-match-rule\n    qos-class: 5\n    qos-level-name: ClassLevel\n"
         "  end-qos-match-rule\n"
         "  qos-match-rule\n    service-id: 0x10000-0x1ffff\n    qos-level-name: SidLevel\n"
         "  end-qos-match-rule\n" +
         (guid_group.empty() ? ""
                             : "  qos-match-rule\n    destination: ByGuid\n"
                               "    qos-level-name: GuidLevel\n  end-qos-match-rule\n") +
         "  qos-match-rule\n    source: Compute\n    destination: Storage\n"
         "    qos-level-name: Slow\n  end-qos-match-rule\n"
         "  qos-match-rule\n    destination: Storage\n    qos-level-name: StorageLevel\n"
         "  end-qos-match-rule\n"
         "  qos-match-rule\n    pkey: 0x0002\n    qos-level-name: PkeyLevel\n"
         "  end-qos-match-rule\n"
         "  qos-match-rule\n    source: Switches\n    destination: Part2\n"
         "    qos-level-name: Slow\n  end-qos-match-rule\n"
         "end-qos-match-rules\n"
         "qos-ulps\n"
         "  sdp, port-num 20000 : 9\n"
         "  any, service-id 0x30000 : 11\n"
         "end-qos-ulps\n";
}

}  // namespace

TEST_GROUP_BASE(FidelitySim, fidelity::FidelityFixture){};

// SL2VL tables that send an SL to VL15 (here SL 15 on every port) make
// the SA drop paths on it; the SMDB does not carry them yet.
// Here SL 3, the storage level's, goes to VL15 on every port: the SA has
// no path to the storage HCAs, and neither has the replica.
TEST(FidelitySim, AnSl2VlTableDroppingAnSlDropsThePathsAsTheSaDoes) {
  StartQosFatTree(kStoragePolicy, "qos_sl2vl 0,1,2,15,4,5,6,7,0,1,2,3,4,5,6,15\n");
  const auto& db = tree->smdb();
  CHECK(db.subnet.records[0].flags & ssa::smdb::kSubnetSl2VlDrops);
  CHECK(!db.sl2vl_drops.records.empty());
  PathsAreMarked("");
  std::string out = PathsTo("Hca10");
  STRCMP_CONTAINS_TEXT("status=no-route", out.c_str(), out.c_str());
  CHECK(CompareAllEqual({}) > 0);
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  StartIbacm("none");
  CHECK(!StockIbAcmeResolves("Hca10"));
  CHECK(StockIbAcmeResolves("Hca1"));
  LONGS_EQUAL(0, RouteQueries());
  DaemonAnswersEqualTheSa(4);
}

// The policy is in the SMDB: the storage HCAs' paths carry the level's SL
// 3 from the replica, equal to the SA's, and nothing is marked.
TEST(FidelitySim, AQosPolicysLevelsComeFromTheReplicaEqualToTheSa) {
  StartQosFatTree(kStoragePolicy);
  CHECK(!tree->smdb().qos_levels.records.empty());
  PathsAreMarked("");
  CompareCountsNotExact(0, 0);
  StartIbacm("none");
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(0, RouteQueries());
  DaemonAnswersEqualTheSa();
  // And the level did apply: towards storage, SL 3.
  std::string out = PathsTo("Hca10");
  STRCMP_CONTAINS_TEXT(" sl=3 ", out.c_str(), out.c_str());
}

TEST(FidelitySim, QosWithoutAPolicyMarksNothingAndTheReplicaAnswers) {
  StartQosFatTree("");
  PathsAreMarked("");
  CompareCountsNotExact(0, 0);  // and every pair matched: no mismatch
  StartIbacm("none");
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(0, RouteQueries());
  DaemonAnswersEqualTheSa();
}

// Every form of policy, compared over every pair with the query shapes
// clients send (by LID, with the path's P_Key as ibacm asks, with a
// ServiceID, with a QoS class); then the policy file changes (a group by
// port GUID is added), OpenSM re-reads it on a resweep (SIGHUP), the next
// SMDB carries it and ibacm's PRDB follows, still equal to the SA.
TEST(FidelitySim, EveryPolicyFormAndAPolicyChangeFollowTheSa) {
  std::string policy = dir.path() + "/qos-policy.conf";
  std::string partitions = dir.path() + "/partitions.conf";
  std::ofstream(policy) << PolicyForms("");
  std::ofstream(partitions) << kPartitions;
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  o.opensm_args = {"-Q", "-Y", policy, "-P", partitions};
  StartTree(o);
  const auto& db = tree->smdb();
  CHECK(db.subnet.records[0].flags & ssa::smdb::kSubnetQosTables);
  // 6 rules of the file and the 2 of qos-ulps.
  LONGS_EQUAL(8, db.qos_rules.records.size());
  CHECK(CompareAllEqual({}) > 0);
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  CHECK(CompareAllEqual({"--pkey", "0x8002"}) > 0);
  CHECK(CompareAllEqual({"--service-id", "0x10005"}) > 0);
  CHECK(CompareAllEqual({"--service-id", "0x30000"}) > 0);
  CHECK(CompareAllEqual({"--qos-class", "5"}) > 0);
  StartIbacm("none");
  DaemonAnswersEqualTheSa();

  // The policy changes; OpenSM re-reads it on the resweep SIGHUP asks for.
  std::ofstream(policy) << PolicyForms(
      "  port-group\n    name: ByGuid\n    port-guid: " + std::to_string(tree->PortGuid("Hca11")) +
      "\n  end-port-group\n");
  uint64_t before = db.global_epoch;
  CHECK_EQUAL(0, kill(tree->fabric()->opensm_pid(), SIGHUP));
  ssa::smdb::Smdb next;
  CHECK_OK(tree->WaitSmdbAfter(before, 60s, &next));
  LONGS_EQUAL(9, next.qos_rules.records.size());
  CHECK(next.qos_rules.epoch > before);
  CHECK_OK(next.WriteFile(smdb_file));
  CHECK_OK(ibacm->WaitPrdbEpoch(next.global_epoch, 30s));
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  DaemonAnswersEqualTheSa();
  // Hca11 now gets GuidLevel's SL 10 from everyone.
  std::string out = PathsTo("Hca11");
  STRCMP_CONTAINS_TEXT(" sl=10 ", out.c_str(), out.c_str());
}
