// routing_engine_sim_test.cc: OpenSM's routing engines and the replica
// (issue 25, 3.): on fabrics where each engine is meaningful (fat trees,
// a torus with loops), with LMC 0 and 1, the replica's path records equal
// the SA's for every pair, by LID and as ibacm asks, and through ibacm
// with the ssa provider. Engines that choose SLs (LASH, Nue) have them
// asked of the engine by the plugin and carried in the SMDB, and follow a
// link change; DFSSSP, whose SA answers a random SL among a layer's VLs,
// stays marked not exact and goes to the SA (fidelity_fixture.h).
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test/sim/fidelity_fixture.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

using namespace fidelity;

TEST_GROUP_BASE(RoutingEngineSim, FidelityFixture){
    // `ssa-smdb compare` of every pair: no mismatch, nothing marked, and
    // some SLs the SA drew among a range; returns those.
    long CompareAllEqualWithDrawnSls(){int rc = -1;
std::string out = Run(
    {kSmdbTool, "compare", smdb_file, "--from", "all", "--to", "all", "--max-print", "20"}, &rc);
LONGS_EQUAL_TEXT(0, rc, out.c_str());
LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
LONGS_EQUAL_TEXT(0, SummaryValue(out, "not_exact"), out.c_str());
return SummaryValue(out, "sl_drawn");
}

// The tree tests' 12-HCA fat tree (2 leaves, 2 spines, mixed link
// speeds) routed by `engine`.
void FatTreeRoutedBy(const std::string& engine, int lmc) {
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, lmc, &o));
  o.opensm_args = {"-R", engine};
  StartTree(o);
}
// A 3x3 mesh (no wrap-around), 2 HCAs per switch, routed by `engine`.
void MeshRoutedBy(const std::string& engine, int lmc) {
  ssa::test::TorusOptions t;
  t.wrap = false;
  StartOnTorus(t, lmc, {"-R", engine});
}
// A 5x5 torus, 1 HCA per switch, routed by torus-2QoS with QoS on; its
// configuration names the torus and seeds its +x and +y directions with
// switch GUIDs (ibsim numbers switches 0x200000 + n in net-file order,
// which TorusNet makes row-major, i fastest).
void TorusRoutedByTorus2Qos(int lmc) {
  ssa::test::TorusOptions t;
  t.x = t.y = 5;
  t.hcas_per_switch = 1;
  std::string conf = dir.path() + "/torus-2QoS.conf";
  std::ofstream(conf) << "torus 5 5 1\nxp_link 0x200000 0x200001\nyp_link 0x200000 0x200005\n";
  StartOnTorus(t, lmc, {"-Q", "-R", "torus-2QoS", "--torus_config", conf});
}
// OpenSM's `file` engine's input (osm_ucast_file.c reads it): every
// switch's LFT of `db`, with each leaf's two uplinks (ports 7 and 8 on
// the 12-HCA fat tree) swapped for HCA destinations, so the routes are
// valid and not minhop's: the paths cross the other spine, at the other
// uplink speed. (Swapped for a spine's LID too, a route would loop.)
static std::string SwappedUplinkLfts(const ssa::smdb::Smdb& db) {
  std::string out;
  char line[160];
  std::vector<bool> hca_lid(0xC000, false);
  for (const auto& p : db.ports.records)
    for (const auto& node : db.nodes.records)
      if (node.node_guid == p.node_guid && node.node_type == ssa::smdb::kNodeCa && p.base_lid)
        for (unsigned l = 0; l < (1u << p.lmc); ++l) hca_lid[p.base_lid + l] = true;
  for (const auto& sw : db.switches.records) {
    const ssa::smdb::SmdbNode* n = nullptr;
    for (const auto& node : db.nodes.records)
      if (node.node_guid == sw.node_guid) n = &node;
    bool leaf = n && n->description[0] == 'L';
    snprintf(line, sizeof(line), "Unicast lids [0x0-0x%x] of switch Lid 0 guid 0x%016llx (x):\n",
             sw.lin_fdb_top, static_cast<unsigned long long>(sw.node_guid));
    out += line;
    for (const auto& b : db.lft_blocks.records) {
      if (b.node_guid != sw.node_guid) continue;
      for (size_t k = 0; k < b.ports.size(); ++k) {
        unsigned lid = b.block * 64u + static_cast<unsigned>(k), port = b.ports[k];
        if (lid == 0 || lid > sw.lin_fdb_top || port == ssa::smdb::kLftNoPath) continue;
        if (leaf && hca_lid[lid] && (port == 7 || port == 8)) port = 15 - port;
        snprintf(line, sizeof(line), "0x%04x %03u : (x)\n", lid, port);
        out += line;
      }
    }
  }
  return out;
}
// An engine that leaves SLs to the SA: nothing marked, every pair equal
// to the SA by LID, as ibacm asks and by GID, and ibacm answering from
// its PRDB alone, each answer equal to the SA's.
void EveryAnswerIsTheSas(const std::string& engine) {
  STRCMP_EQUAL(engine.c_str(), tree->smdb().subnet.records[0].routing_engine.data());
  PathsAreMarked("");
  CHECK(CompareAllEqual({}) > 0);
  CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
  CHECK(CompareAllEqual({"--by-gid"}) > 0);
  StartIbacm("none");
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(0, RouteQueries());
  DaemonAnswersEqualTheSa();
}
}
;

// torus-2QoS gives each path the SL of its VLs around the rings (and the
// hint's QoS bit).
TEST(RoutingEngineSim, Torus2QosOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  TorusRoutedByTorus2Qos(0);
  EngineSlsComeFromTheReplica("torus-2QoS");
}

TEST(RoutingEngineSim, Torus2QosWithLmc1TheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  TorusRoutedByTorus2Qos(1);
  EngineSlsComeFromTheReplica("torus-2QoS");
}

// The `file` engine: LFTs an administrator wrote (here: minhop's with the
// uplinks swapped), loaded by a second OpenSM on the same net (ibsim's
// GUIDs follow the net file, so they are the same).
TEST(RoutingEngineSim, FileRoutingFromAnLftDumpEqualsTheSa) {
  FatTreeRoutedBy("minhop", 0);
  std::string lfts = dir.path() + "/lfts.dump";
  std::ofstream(lfts) << SwappedUplinkLfts(tree->smdb());
  ssa::smdb::Smdb minhop = tree->smdb();
  CHECK_OK(tree->Stop());
  ssa::test::TempDir second;
  tree = std::make_unique<TreeHarness>(&second);
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  o.opensm_args = {"-R", "file", "-U", lfts};
  StartTree(o);
  // The LFTs are the file's, not minhop's.
  const auto& a = tree->smdb().lft_blocks.records;
  const auto& b = minhop.lft_blocks.records;
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) same = a[i].ports == b[i].ports;
  CHECK(!same);
  EveryAnswerIsTheSas("file");
}

TEST(RoutingEngineSim, MinhopOnAFatTreeLmc0) {
  FatTreeRoutedBy("minhop", 0);
  EveryAnswerIsTheSas("minhop");
}
TEST(RoutingEngineSim, UpdnOnAFatTreeLmc1) {
  FatTreeRoutedBy("updn", 1);
  EveryAnswerIsTheSas("updn");
}
TEST(RoutingEngineSim, DnupOnAFatTreeLmc0) {
  FatTreeRoutedBy("dnup", 0);
  EveryAnswerIsTheSas("dnup");
}
TEST(RoutingEngineSim, FtreeOnAFatTreeLmc0) {
  FatTreeRoutedBy("ftree", 0);
  EveryAnswerIsTheSas("ftree");
}
// OpenSM 3.3.23's ftree does not do LMC > 0: it falls back to minhop,
// and the SMDB says which engine routed.
TEST(RoutingEngineSim, FtreeWithLmc1FallsBackToMinhopAndStaysExact) {
  FatTreeRoutedBy("ftree", 1);
  EveryAnswerIsTheSas("minhop");
}
TEST(RoutingEngineSim, SsspOnAMeshLmc1) {
  MeshRoutedBy("sssp", 1);
  EveryAnswerIsTheSas("sssp");
}
TEST(RoutingEngineSim, DorOnAMeshLmc0) {
  MeshRoutedBy("dor", 0);
  EveryAnswerIsTheSas("dor");
}
TEST(RoutingEngineSim, MinhopOnAMeshLmc1) {
  MeshRoutedBy("minhop", 1);
  EveryAnswerIsTheSas("minhop");
}

// LASH gives each (source, destination) switch pair its SL layer, asked
// of the engine by the plugin after each routing. A ring of 3 has no
// credit loop on minimal routes (LASH then needs one layer: every SL 0);
// a 5x5 torus has.
TEST(RoutingEngineSim, LashOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("lash", 5, 5, 1);
  EngineSlsComeFromTheReplica("lash");
}

TEST(RoutingEngineSim, LashWithLmc1TheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("lash", 5, 5, 1, 1);
  EngineSlsComeFromTheReplica("lash");
}

// The plugin bounds what it asks an engine per routing and what it keeps
// (route_sl_max_calls, route_sl_max_rows: the state manager's time and the
// SMDB's size on large subnets). Past either bound the engine's SLs are not
// in the SMDB: every record of LASH's torus is marked, goes to the SA with
// fallback = sa (equal to it) and fails with fallback = none, and the
// plugin says which bound in OpenSM's log.
TEST(RoutingEngineSim, LashPastTheRowBoundItsRecordsAreMarkedAndGoToTheSa) {
  plugin_options = "route_sl_max_rows=10";
  StartTorus("lash", 5, 5, 1);
  CHECK(!(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSls));
  MarkedRecordsGoToTheSaOrFail("routing-sl", "the routing engine chooses its SL)", 1, true);
  STRCMP_CONTAINS("than route_sl_max_rows lets the core keep",
                  ssa::test::ReadFileText(tree->fabric()->osm_log_path()).c_str());
}
TEST(RoutingEngineSim, LashPastTheCallBoundItsRecordsAreMarkedAndGoToTheSa) {
  plugin_options = "route_sl_max_calls=600";  // 25 HCAs + 25 switches: 2,500 pairs
  StartTorus("lash", 5, 5, 1);
  CHECK(!(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSls));
  PathsAreMarked("routing-sl");
  STRCMP_CONTAINS("than route_sl_max_calls lets the plugin ask",
                  ssa::test::ReadFileText(tree->fabric()->osm_log_path()).c_str());
}

// Nue gives every destination LID its virtual layer; by default it uses
// one (every SL 0), so here it may use four, which needs QoS on.
TEST(RoutingEngineSim, NueOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("nue", 5, 5, 1, 0, "nue_max_num_vls 4\n");
  EngineSlsComeFromTheReplica("nue");
}

// DFSSSP with more VLs than it needs spreads a layer over several VLs and
// its path_sl draws one at random on every query (osm_ucast_dfsssp.c,
// vl_split_count): the SMDB carries each pair's range, `compare` accepts
// any SL of it from the SA (and finds the SA's within it for every pair),
// and the daemon draws among the range as the SA does: every answer in
// the range, and more than one SL over repeated queries.
TEST(RoutingEngineSim, DfssspOnATorusTheSlRangesComeFromTheReplicaAndTheDaemonDrawsAsTheSa) {
  StartTorus("dfsssp");
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSls);
  PathsAreMarked("");
  int rc = -1;
  std::string paths = Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", "all"}, &rc);
  LONGS_EQUAL_TEXT(0, rc, paths.c_str());
  // ibsim's ports have more VLs than a 3x3 torus needs: DFSSSP balances,
  // so some destination's record has a range.
  size_t at = paths.find(" sl_range=");
  CHECK_TEXT(at != std::string::npos, paths.c_str());
  size_t line = paths.rfind("path slid=", at);
  int slid = -1, dlid = -1, lo = -1, hi = -1;
  CHECK(sscanf(paths.c_str() + line, "path slid=%d dlid=%d", &slid, &dlid) == 2);
  CHECK(sscanf(paths.c_str() + at, " sl_range=%d-%d", &lo, &hi) == 2);
  CHECK(lo < hi);
  CHECK(CompareAllEqualWithDrawnSls() > 0);

  StartIbacm("none");
  std::set<int> seen;
  for (int i = 0; i < 24; ++i) {
    int sl = StockIbAcmeSl(std::to_string(dlid));
    CHECK_TEXT(sl >= lo && sl <= hi, std::to_string(sl).c_str());
    seen.insert(sl);
  }
  CHECK(seen.size() > 1);
  LONGS_EQUAL(0, RouteQueries());  // all from the PRDB
  // Our ib_acme -T judges a drawn SL by asking the SA again.
  DaemonAnswersEqualTheSa();

  TorusLinkDownReachesTheDaemon(2);
  PathsAreMarked("");
  CHECK(CompareAllEqualWithDrawnSls() > 0);
}

// With LMC 1 every port has two LIDs, and DFSSSP routes and layers each
// LID pair on its own: still equal to the SA for every pair.
TEST(RoutingEngineSim, DfssspWithLmc1TheSlRangesEqualTheSa) {
  StartTorus("dfsssp", 3, 3, 2, 1);
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  PathsAreMarked("");
  CHECK(CompareAllEqualWithDrawnSls() > 0);
}

// A fat tree has no credit loop: DFSSSP needs one layer and spreads it
// over every VL, so every SL the SA answers is drawn among all of them;
// ibacm still answers from its PRDB alone, within the range.
TEST(RoutingEngineSim, DfssspOnAFatTreeOneLayerOverEveryVl) {
  FatTreeRoutedBy("dfsssp", 0);
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  PathsAreMarked("");
  CHECK(CompareAllEqualWithDrawnSls() > 0);
  StartIbacm("none");
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(0, RouteQueries());
}
