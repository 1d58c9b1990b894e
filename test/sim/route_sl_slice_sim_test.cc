// route_sl_slice_sim_test.cc: route-SL slices end to end (issue 25, 3.:
// "only the rows a consumer needs reach its access node"). With
// route_sl_smdb_rows=0 the plugin leaves every row of LASH's torus out of
// the SMDB, so the SMDB alone marks those records; the core sends each
// access node the rows of the consumers it serves, and the consumer's
// PRDB is made again with them: ibacm then answers every pair from its
// PRDB, equal to the SA, and does so again after a link change (a new
// routing, a new generation of slices).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "test/sim/fidelity_fixture.h"
#include "test/support/check_ok.h"

using namespace fidelity;

TEST_GROUP_BASE(RouteSlSliceSim, FidelityFixture) {
  // Our ib_acme -T from kNode over every LID, through the daemon: true
  // when every answer equals the SA's (a marked record with fallback =
  // none is an error, not a match).
  std::string last_check;  // ib_acme's output of the last AllAnswersEqualTheSa
  bool AllAnswersEqualTheSa() {
    uint16_t top = 0;
    size_t lids = 0;
    OwnedLids(&top, &lids);
    std::string out;
    int rc = -1;
    CHECK_OK(
        ssa::test::RunProgram({kOurIbAcme, "-T", "-S", ibacm->socket_path(), "-s", Lid(),
                               "--lid-range", "1-" + std::to_string(top), "--verify", "daemon"},
                              &out, &rc));
    last_check = out;
    return out.find("mismatched:   0") != std::string::npos &&
           out.find("matched:      " + std::to_string(lids) + "\n") != std::string::npos;
  }
  // The consumer's PRDB is made again once its access node holds the
  // slice: asks again (each run a few hundred ms) until the answers are
  // exact, for at most `limit`.
  void WaitUntilExact(std::chrono::seconds limit = std::chrono::seconds(30)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (!AllAnswersEqualTheSa()) {
      CHECK_TEXT(std::chrono::steady_clock::now() < deadline,
                 ("the daemon's answers did not become exact: no route-SL slice reached it?\n" +
                  last_check)
                     .c_str());
    }
  }
  // `compare --prdb` of ssa-consumer's dump on `node` against the SA for
  // every LID of its range, repeated until nothing is marked (the dump is
  // rewritten when the PRDB made with the slice comes, same epoch), for at
  // most `limit`; the last output.
  std::string WaitConsumerExact(const std::string& node,
                                std::chrono::seconds limit = std::chrono::seconds(30)) {
    char guid[24];
    snprintf(guid, sizeof(guid), "0x%016llx",
             static_cast<unsigned long long>(tree->PortGuid(node)));
    auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int rc = -1;
      std::string out = Run({kSmdbTool, "compare", smdb_file, "--prdb", tree->ConsumerDump(node),
                             "--from", guid, "--lmc-all", "--max-print", "20"},
                            &rc);
      LONGS_EQUAL_TEXT(0, rc, out.c_str());
      LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
      if (SummaryValue(out, "not_exact") == 0) return out;
      CHECK_TEXT(std::chrono::steady_clock::now() < deadline, out.c_str());
    }
  }
  size_t Count(const std::string& text, const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  }
};

TEST(RouteSlSliceSim, PastTheSmdbRowBoundTheAccessNodesSlicesMakeTheRecordsExact) {
  plugin_options = "route_sl_smdb_rows=0";
  StartTorus("lash", 5, 5, 1);
  const auto& subnet = tree->smdb().subnet.records[0];
  CHECK(subnet.flags & ssa::smdb::kSubnetRouteSlSlices);
  CHECK(!(subnet.flags & ssa::smdb::kSubnetRouteSls));
  CHECK(tree->smdb().route_sls.records.empty());
  CHECK(!tree->smdb().route_sl_hints.records.empty());
  // The SMDB alone cannot give the engine's SLs: `ssa-smdb` says so.
  PathsAreMarked("routing-sl");

  StartIbacm("none");
  WaitUntilExact();
  DaemonAnswersEqualTheSa();
  // Answered from the PRDB: the daemon asks the SA nothing (ib_acme -T's
  // own checks count in RouteQueries, hence the difference).
  uint64_t queries = RouteQueries();
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(queries, RouteQueries());

  // The core cut a slice per access node, each with the rows of the
  // consumers it serves (here kNode, parent and backup), not all rows.
  std::string osm = ssa::test::ReadFileText(tree->plugin().log_file());
  size_t at = osm.rfind("route-SL slices of generation");
  CHECK_TEXT(at != std::string::npos, "the core cut no slice");
  unsigned long long gen = 0, nodes = 0, sent = 0, all = 0;
  CHECK(sscanf(osm.c_str() + at,
               "route-SL slices of generation %llu cut for %llu access node(s), %llu rows (of "
               "%llu)",
               &gen, &nodes, &sent, &all) == 4);
  CHECK(sent > 0 && sent < all);
  std::string access = tree->IbssaLog("Hca3") + tree->IbssaLog("Hca4");
  CHECK(Count(access, "asking the core for ours") >= 2);
  CHECK(Count(access, "route-SL slice of") >= 1);  // "...slice of N rows in use"

  // A link goes down: LASH routes again, the slices follow the new
  // generation, and the answers are exact again.
  TorusLinkDownReachesTheDaemon(1);
  WaitUntilExact();
  DaemonAnswersEqualTheSa();
  queries = RouteQueries();
  CHECK(StockIbAcmeResolves("Hca10"));
  LONGS_EQUAL(queries, RouteQueries());
}

// DFSSSP with LMC 1 through slices: every LID of the consumer's range is
// covered, each record carries its layer's SL range, and the consumer's
// PRDB (ssa-consumer's dump) equals the SA for every pair of every LID,
// nothing marked, some SLs the SA drew among a range.
TEST(RouteSlSliceSim, DfssspWithLmc1TheConsumersPrdbFromItsSliceEqualsTheSa) {
  plugin_options = "route_sl_smdb_rows=0";
  StartTorus("dfsssp", 3, 3, 2, 1);
  STRCMP_EQUAL("dfsssp", tree->smdb().subnet.records[0].routing_engine.data());
  CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSlSlices);
  CHECK_OK(tree->StartConsumer("Hca7"));
  CHECK_OK(tree->WaitConsumersAt({"Hca7"}, tree->smdb().global_epoch, 30s));
  std::string out = WaitConsumerExact("Hca7");
  CHECK_TEXT(SummaryValue(out, "pairs") >= 2 * static_cast<long>(Endpoints()), out.c_str());
  CHECK_TEXT(SummaryValue(out, "sl_drawn") > 0, out.c_str());
}

// An SM failover: the access nodes lose the old core's slice connection,
// find the new core by CoreInfo, and take its slices (its own routing and
// generation); the consumer's PRDB equals the new SA's, nothing marked.
// (ibacm's own SA path does not follow a failover on the simulated fabric:
// the port's SM LID never changes there, so ssa-consumer is the client.)
TEST(RouteSlSliceSim, AfterAnSmFailoverTheNewCoresSlicesReachTheAccessNodes) {
  plugin_options = "route_sl_smdb_rows=0";
  ssa::test::TorusOptions t;
  t.x = t.y = 5;
  t.hcas_per_switch = 1;
  ssa::test::GeneratedNet net;
  CHECK_OK(ssa::test::TorusNet(t, &net));
  TreeHarness::Options o;
  o.net_text = net.text;
  o.hcas = net.hcas;
  o.opensm_args = {"-R", "lash"};
  o.failover = true;
  StartTree(o);
  CHECK_OK(tree->StartConsumer("Hca7"));
  const uint64_t held = tree->smdb().global_epoch;
  CHECK_OK(tree->WaitConsumersAt({"Hca7"}, held, 30s));
  WaitConsumerExact("Hca7");
  // The standby's arrival may make the master sweep, route again and
  // publish an epoch that the kill below keeps from the members; the new
  // core continues after what the members hold, so only that is sure to
  // be behind its versions (a run where the old core's epoch 2 never left
  // it, and the new core rightly made its own epoch 2, failed when this
  // waited for an epoch above the old core's newest).
  CHECK_OK(tree->StartStandbySm("Hca11"));

  // See TreeFaultSim: the wait bounds a hang of the takeover on ibsim,
  // which FailOver ends by restarting the stalled standby.
  CHECK_OK(tree->FailOver(90s));
  ssa::smdb::Smdb next;
  CHECK_OK(tree->WaitSmdbAfter(held, 60s, &next));
  CHECK(next.subnet.records[0].flags & ssa::smdb::kSubnetRouteSlSlices);
  CHECK_OK(next.WriteFile(smdb_file));
  CHECK_OK(tree->WaitConsumersAt({"Hca7"}, next.global_epoch, 60s));
  std::string out = WaitConsumerExact("Hca7", 60s);
  CHECK_TEXT(SummaryValue(out, "pairs") >= static_cast<long>(Endpoints()), out.c_str());
  STRCMP_CONTAINS("route-SL slices of generation",
                  ssa::test::ReadFileText(tree->standby().log_file()).c_str());
}
