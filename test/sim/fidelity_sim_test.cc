// fidelity_sim_test.cc: the replica's promise on fabrics where it cannot
// (yet) compute the SA's answer: a record the replica cannot compute
// exactly is never served as the SA's (issue 25, 1.). Two such fabrics, as
// an administrator runs them:
//   - a 3x3 torus routed by OpenSM's lash and dfsssp engines, which give
//     paths their SLs to break credit loops;
//   - a fat tree under a QoS policy file (-Q -Y) whose match rule gives a
//     port group (by port name) SL 3.
// On each, with the whole tree running (plugin core, distribution and
// access nodes, ibacm with the ssa provider):
//   - `ssa-smdb paths` marks every record of the newest SMDB `exact=no`
//     with its reason, and `ssa-smdb compare` counts them as not exact (no
//     mismatch), while at least one of them does differ from the SA: the
//     fabric really is one where serving the replica would be wrong;
//   - with `fallback = sa`, the daemon asks the SA for a marked record,
//     logs the reason once, and (where the SA itself is deterministic: not
//     dfsssp) our ib_acme -T finds every answer equal to the SA's;
//   - with `fallback = none`, Debian's stock ib_acme gets an error for a
//     destination the PRDB holds (marked), never a record.
// And on the same fat tree with QoS on but no policy file, nothing is
// marked: QoS then changes nothing the SA answers, and the daemon answers
// from its PRDB without asking the SA.
#include <infiniband/acm.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_harness.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::test::IbacmNode;
using ssa::test::TreeHarness;
namespace acm = ssa::acm;

namespace {

const char kNode[] = "Hca6";  // the node running ibacm with the ssa provider
const std::string kSmdbTool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";
const std::string kOurIbAcme = std::string(ABS_TOP_BUILDDIR) + "/util/ib_acme/ib_acme";

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

// key=value of a "compare: ..." summary line; -1 if absent.
long SummaryValue(const std::string& out, const std::string& key) {
  size_t at = out.rfind(" " + key + "=");
  if (at == std::string::npos) return -1;
  return strtol(out.c_str() + at + key.size() + 2, nullptr, 10);
}

}  // namespace

TEST_GROUP(FidelitySim) {
  ssa::test::TempDir dir;
  std::unique_ptr<TreeHarness> tree;
  std::unique_ptr<IbacmNode> ibacm;
  std::string smdb_file;

  void setup() override { tree = std::make_unique<TreeHarness>(&dir); }
  void teardown() override {
    if (UtestShell::getCurrent()->hasFailed()) tree->set_failed();
    if (ibacm) ibacm->Stop();
    ibacm.reset();
    ssa::Status st = tree->Stop();
    tree.reset();
    CHECK_OK(st);
  }

  void StartTree(TreeHarness::Options o) {
    CHECK_OK(tree->Start(o));
    CHECK_OK(tree->StartIbssa("Hca2", "distribution"));
    CHECK_OK(tree->StartIbssa("Hca3", "access"));
    CHECK_OK(tree->StartIbssa("Hca4", "access"));
    smdb_file = dir.path() + "/smdb.newest";
    CHECK_OK(tree->smdb().WriteFile(smdb_file));
  }

  // An x * y torus with `hcas` HCAs per switch routed by `engine`.
  void StartTorus(const std::string& engine, int x = 3, int y = 3, int hcas = 2, int lmc = 0,
                  const std::string& osm_config = "") {
    ssa::test::TorusOptions t;
    t.x = x;
    t.y = y;
    t.hcas_per_switch = hcas;
    ssa::test::GeneratedNet net;
    CHECK_OK(ssa::test::TorusNet(t, &net));
    TreeHarness::Options o;
    o.net_text = net.text;
    o.hcas = net.hcas;
    o.lmc = lmc;
    o.osm_config = osm_config;
    o.opensm_args = {"-R", engine};
    // Nue uses more than one VL only with QoS on (it programs the SL2VL).
    if (!osm_config.empty()) o.opensm_args.push_back("-Q");
    StartTree(o);
  }

  // The tree tests' 12-HCA fat tree with QoS on, `policy` as the QoS
  // policy file when not empty, `osm_config` in OpenSM's options file.
  void StartQosFatTree(const std::string& policy, const std::string& osm_config = "") {
    TreeHarness::Options o;
    CHECK_OK(TreeHarness::FatTree(12, 0, &o));
    o.opensm_args = {"-Q"};
    o.osm_config = osm_config;
    if (!policy.empty()) {
      std::string path = dir.path() + "/qos-policy.conf";
      std::ofstream(path) << policy;
      o.opensm_args.insert(o.opensm_args.end(), {"-Y", path});
    }
    StartTree(o);
  }

  // `ssa-smdb compare` of every pair, run on kNode, with `query` options:
  // exit 0, no mismatch, nothing marked; returns the pairs that matched.
  long CompareAllEqual(const std::vector<std::string>& query) {
    std::vector<std::string> argv = {kSmdbTool, "compare", smdb_file, "--from",
                                     "all", "--to", "all", "--max-print", "20"};
    argv.insert(argv.end(), query.begin(), query.end());
    int rc = -1;
    std::string out = Run(argv, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "not_exact"), out.c_str());
    return SummaryValue(out, "matched");
  }

  // Paths from every source of the newest SMDB with an SL other than 0.
  size_t PathsWithSlOtherThanZero() {
    int rc = -1;
    std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", "all"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    std::istringstream in(out);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line))
      n += line.find("status=ok") != std::string::npos && line.find(" sl=0 ") == std::string::npos;
    return n;
  }

  // An engine whose path SLs the SMDB carries: nothing marked, every pair
  // equal to the SA (by LID, and as ibacm asks), ibacm answering from its
  // PRDB alone; then a switch-to-switch link goes down, the engine
  // reroutes, and the next SMDB's SLs reach the daemon, still equal to the SA.
  void EngineSlsComeFromTheReplica(const std::string& engine) {
    STRCMP_EQUAL(engine.c_str(), tree->smdb().subnet.records[0].routing_engine.data());
    CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSls);
    PathsAreMarked("");
    CHECK(PathsWithSlOtherThanZero() > 0);  // the engine does pick SLs here
    CHECK(CompareAllEqual({}) > 0);
    CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
    StartIbacm("none");
    CHECK(StockIbAcmeResolves("Hca10"));
    LONGS_EQUAL(0, RouteQueries());
    DaemonAnswersEqualTheSa();

    uint64_t before = tree->smdb().global_epoch;
    int ups = tree->fabric()->SubnetUpCount();
    CHECK_OK(tree->fabric()->LinkDown("T0_0", 2));  // T0_0's +i link (1 HCA per switch)
    CHECK_OK(tree->fabric()->WaitSubnetUp(ups + 1, 60s));
    ssa::smdb::Smdb next;
    CHECK_OK(tree->WaitSmdbAfter(before, 60s, &next));
    CHECK_OK(next.WriteFile(smdb_file));
    std::string needle = "PRDB epoch " + std::to_string(next.global_epoch) + " in place";
    CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), needle, 30s));
    PathsAreMarked("");
    CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
    DaemonAnswersEqualTheSa();
  }

  void StartIbacm(const std::string& fallback) {
    if (ibacm) ibacm->Stop();
    IbacmNode::Options io;
    io.node = kNode;
    io.addr_cfg = "node6 ibsim0 1 default\n";
    io.opts_cfg = "[core]\nlog_level = debug\nprovider = ssa default\n"
                  "[ssa]\nmad_timeout_ms = 300\nfallback = " +
                  fallback + "\n";
    io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
    ibacm = std::make_unique<IbacmNode>(tree->fabric(), io);
    CHECK_OK(ibacm->Start());
    std::string needle = "PRDB epoch " + std::to_string(tree->smdb().global_epoch) + " in place";
    CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), needle, 30s));
  }

  std::string Lid() { return std::to_string(tree->Lid(kNode)); }
  // Ports with a LID (HCAs and switches): every one a source in `compare`.
  size_t Endpoints() {
    size_t n = 0;
    for (const auto& g : tree->smdb().guid_lids.records) n += g.guid == g.port_guid;
    return n;
  }

  std::string Run(const std::vector<std::string>& argv, int* rc) {
    std::string out;
    CHECK_OK(tree->fabric()->Run(kNode, argv, &out, rc, 120s));
    return out;
  }

  // Every ok line of `ssa-smdb paths` from kNode says `exact=no why=<why>`
  // (or, with `why` empty, no line says exact=no); returns the ok lines.
  size_t PathsAreMarked(const std::string& why) {
    int rc = -1;
    std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", "all"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    std::istringstream in(out);
    std::string line;
    size_t ok = 0;
    while (std::getline(in, line)) {
      if (line.find("status=ok") == std::string::npos) continue;
      ++ok;
      if (why.empty()) {
        CHECK_TEXT(line.find("exact=") == std::string::npos, line.c_str());
      } else {
        std::string tail = " exact=no why=" + why;
        CHECK_TEXT(line.size() > tail.size() &&
                       line.compare(line.size() - tail.size(), tail.size(), tail) == 0,
                   line.c_str());
      }
    }
    CHECK(ok >= 14);
    return ok;
  }

  // `ssa-smdb compare` of every pair of the subnet, run on kNode: exit 0
  // (no mismatch), `not_exact` marked records, of which at least
  // `min_differ` differ from the SA.
  void CompareCountsNotExact(long not_exact, long min_differ) {
    int rc = -1;
    std::string out = Run(
        {kSmdbTool, "compare", smdb_file, "--from", "all", "--to", "all", "--max-print", "0"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
    LONGS_EQUAL_TEXT(not_exact, SummaryValue(out, "not_exact"), out.c_str());
    CHECK_TEXT(SummaryValue(out, "not_exact_differ") >= min_differ, out.c_str());
  }

  // Our ib_acme -T over every assigned LID: each daemon answer equal to
  // the SA's.
  void DaemonAnswersEqualTheSa() {
    uint16_t top = 0;
    size_t lids = 0;
    for (const auto& g : tree->smdb().guid_lids.records) {
      if (g.guid != g.port_guid) continue;
      top = std::max<uint16_t>(top, static_cast<uint16_t>(g.base_lid + (1u << g.lmc) - 1));
      lids += size_t{1} << g.lmc;
    }
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({kOurIbAcme, "-T", "-S", ibacm->socket_path(), "-s",
                                    std::to_string(tree->Lid(kNode)), "--lid-range",
                                    "1-" + std::to_string(top), "--verify", "daemon"},
                                   &out, &rc));
    STRCMP_CONTAINS_TEXT("mismatched:   0", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT(("matched:      " + std::to_string(lids) + "\n").c_str(), out.c_str(),
                         out.c_str());
  }

  uint64_t RouteQueries() {
    ssa::AcmClient client;
    CHECK_OK(client.Connect(ibacm->socket_path()));
    acm::PerfResponse r;
    CHECK_OK(client.PerfQuery(0, &r));
    CHECK(r.counters.size() > ACM_CNTR_ROUTE_QUERY);
    return r.counters[ACM_CNTR_ROUTE_QUERY];
  }

  size_t LogCount(const std::string& needle) {
    std::ifstream in(ibacm->log_path());
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
    return n;
  }

  // Debian's stock ib_acme resolves kNode -> `node` through the daemon;
  // true when it printed a record.
  bool StockIbAcmeResolves(const std::string& node) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", ibacm->socket_path(), "-f", "l",
                                    "-s", Lid(), "-d", std::to_string(tree->Lid(node))},
                                   &out, &rc));
    return rc == 0 && out.find("dlid:") != std::string::npos;
  }

  // The safety rule end to end for records marked `why` (`reason_text`:
  // the daemon's log line). With `sa_deterministic`, every daemon answer
  // must equal a fresh SA answer; dfsssp's SA is not (see below).
  void MarkedRecordsGoToTheSaOrFail(const std::string& why, const std::string& reason_text,
                                    long min_differ, bool sa_deterministic) {
    size_t marked = PathsAreMarked(why);
    CompareCountsNotExact(static_cast<long>(marked * Endpoints()), min_differ);

    StartIbacm("sa");
    CHECK(StockIbAcmeResolves("Hca10"));
    LONGS_EQUAL(1, RouteQueries());  // the SA answered the marked record
    if (sa_deterministic) DaemonAnswersEqualTheSa();
    LONGS_EQUAL(1, LogCount(reason_text + "; asking the SA instead (logged once)"));

    StartIbacm("none");
    // A destination the PRDB holds, marked: an error, not the record.
    CHECK(!StockIbAcmeResolves("Hca10"));
    CHECK(!StockIbAcmeResolves("Hca1"));
    LONGS_EQUAL(0, RouteQueries());
    LONGS_EQUAL(1, LogCount(reason_text + "; answering ENODATA (fallback = none) (logged once)"));
  }
};

// LASH gives each (source, destination) switch pair its SL layer, asked
// of the engine by the plugin after each routing. A ring of 3 has no
// credit loop on minimal routes (LASH then needs one layer: every SL 0);
// a 5x5 torus has.
TEST(FidelitySim, LashOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("lash", 5, 5, 1);
  EngineSlsComeFromTheReplica("lash");
}

TEST(FidelitySim, LashWithLmc1TheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("lash", 5, 5, 1, 1);
  EngineSlsComeFromTheReplica("lash");
}

// Nue gives every destination LID its virtual layer; by default it uses
// one (every SL 0), so here it may use four, which needs QoS on.
TEST(FidelitySim, NueOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("nue", 5, 5, 1, 0, "nue_max_num_vls 4\n");
  EngineSlsComeFromTheReplica("nue");
}

// DFSSSP with more VLs than it needs spreads a layer over several VLs and
// its path_sl picks one at random on every query (osm_ucast_dfsssp.c,
// vl_split_count): two SA queries for one pair may give two SLs, so the
// daemon's answers are checked to come from the SA, not equal to a second
// query.
TEST(FidelitySim, DfssspOnATorusRecordsAreMarkedAndNeverServedFromTheReplica) {
  StartTorus("dfsssp");
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  MarkedRecordsGoToTheSaOrFail("routing-sl", "the routing engine chooses its SL)", 1, false);
}

// SL2VL tables that send an SL to VL15 (here SL 15 on every port) make
// the SA drop paths on it; the SMDB does not carry them yet.
TEST(FidelitySim, AnSl2VlTableDroppingAnSlMarksRecordsAndTheyAreNeverServed) {
  StartQosFatTree(kStoragePolicy, "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15\n");
  CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetSl2VlDrops);
  MarkedRecordsGoToTheSaOrFail("qos", "QoS levels or SL2VL tables may change it)", 0, true);
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
  int rc = -1;
  std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to",
                         std::to_string(tree->Lid("Hca10"))},
                        &rc);
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
      "  port-group\n    name: ByGuid\n    port-guid: " +
      std::to_string(tree->PortGuid("Hca11")) + "\n  end-port-group\n");
  uint64_t before = db.global_epoch;
  CHECK_EQUAL(0, kill(tree->fabric()->opensm_pid(), SIGHUP));
  ssa::smdb::Smdb next;
  CHECK_OK(tree->WaitSmdbAfter(before, 60s, &next));
  LONGS_EQUAL(9, next.qos_rules.records.size());
  CHECK(next.qos_rules.epoch > before);
  CHECK_OK(next.WriteFile(smdb_file));
  std::string needle = "PRDB epoch " + std::to_string(next.global_epoch) + " in place";
  CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), needle, 30s));
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  DaemonAnswersEqualTheSa();
  // Hca11 now gets GuidLevel's SL 10 from everyone.
  int rc = -1;
  std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to",
                         std::to_string(tree->Lid("Hca11"))},
                        &rc);
  STRCMP_CONTAINS_TEXT(" sl=10 ", out.c_str(), out.c_str());
}
