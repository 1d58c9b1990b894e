// routing_engine_sim_test.cc: OpenSM's routing engines and the replica
// (issue 25, 3.): on fabrics where each engine is meaningful (fat trees,
// a torus with loops), with LMC 0 and 1, the replica's path records equal
// the SA's for every pair, by LID and as ibacm asks, and through ibacm
// with the ssa provider. Engines that choose SLs (LASH, Nue) have them
// asked of the engine by the plugin and carried in the SMDB, and follow a
// link change; DFSSSP, whose SA answers a random SL among a layer's VLs,
// stays marked not exact and goes to the SA (fidelity_fixture.h).
#include <string>
#include <vector>

#include "test/sim/fidelity_fixture.h"

using namespace fidelity;

TEST_GROUP_BASE(RoutingEngineSim, FidelityFixture) {
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
    ssa::test::GeneratedNet net;
    CHECK_OK(ssa::test::TorusNet(t, &net));
    TreeHarness::Options o;
    o.net_text = net.text;
    o.hcas = net.hcas;
    o.lmc = lmc;
    o.opensm_args = {"-R", engine};
    StartTree(o);
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
};

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

// Nue gives every destination LID its virtual layer; by default it uses
// one (every SL 0), so here it may use four, which needs QoS on.
TEST(RoutingEngineSim, NueOnATorusTheEnginesSlsComeFromTheReplicaEqualToTheSa) {
  StartTorus("nue", 5, 5, 1, 0, "nue_max_num_vls 4\n");
  EngineSlsComeFromTheReplica("nue");
}

// DFSSSP with more VLs than it needs spreads a layer over several VLs and
// its path_sl picks one at random on every query (osm_ucast_dfsssp.c,
// vl_split_count): two SA queries for one pair may give two SLs, so the
// daemon's answers are checked to come from the SA, not equal to a second
// query.
TEST(RoutingEngineSim, DfssspOnATorusRecordsAreMarkedAndNeverServedFromTheReplica) {
  StartTorus("dfsssp");
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  MarkedRecordsGoToTheSaOrFail("routing-sl", "the routing engine chooses its SL)", 1, false);
}

