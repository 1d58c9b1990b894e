// router_fidelity_sim_test.cc: path records to DGIDs of other subnets
// served by a consumer (issue 48 step 1): ibacm with the ssa provider
// answers them from its PRDB (the access node's prefix rows,
// common/smdb/prefix_rows.h, and its rows for the router ports) with no SA
// query, and each answer equals what OpenSM's SA answers for the same
// SGID and DGID, field by field: through ibacm's socket (our ib_acme -T
// -f g, Debian's ib_acme -f g) and through libibssa_path (--shm: the
// tables hold no remote DGID, the library asks the daemon). Two routers,
// prefix routes to each, a refused prefix, the wildcard.
//
// Single-threaded test code; the tree and the daemon stop in teardown.
#include <string>

#include "test/sim/router_fixture.h"

using namespace fidelity;

TEST_GROUP_BASE(RouterFidelity, RouterFixture){};

TEST(RouterFidelity, IbacmAnswersOtherSubnetsDgidsFromTheReplicaEqualToTheSa) {
  StartRouted();
  StartIbacm("none");
  for (const char* via : {"-T", "--shm"}) {
    std::string out = ProviderTest(via, "none");
    // The routed ones from the PRDB; the refused one ENODATA (fallback =
    // none), as the SA has no record for it.
    STRCMP_CONTAINS_TEXT("resolved:     3\n", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT("errors:       1\n", out.c_str(), out.c_str());
  }
  LONGS_EQUAL(0, RouteQueries());
  // Each answer against the SA's (the daemon asks it: QUERY_SA), every
  // field: DLID the router port's, HopLimit 255, the DGID asked for.
  for (const char* via : {"-T", "--shm"}) {
    std::string out = ProviderTest(via, "daemon");
    STRCMP_CONTAINS_TEXT("matched:      3\n", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT("mismatched:   0\n", out.c_str(), out.c_str());
  }
  // The 4x link between the switches goes down: the path to R1 now takes
  // the 1x one (its rate changes), the access node patches the router
  // port's row, and the answers follow, still the SA's.
  auto rate_to_r1 = [this] {
    int rc = -1;
    std::string out =
        Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--dgid", kRouted[0]}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    size_t at = out.find(" rate=");
    CHECK_TEXT(at != std::string::npos, out.c_str());
    return atoi(out.c_str() + at + 6);
  };
  int before = rate_to_r1();
  ssa::smdb::Smdb next;
  CHECK_OK(tree->ChangeLink("Switch1", 3, false, 60s, &next));
  CHECK_OK(next.WriteFile(smdb_file));
  CHECK_OK(ibacm->WaitPrdbEpoch(next.global_epoch, 30s));
  CHECK(rate_to_r1() != before);
  const uint64_t queries = RouteQueries();
  STRCMP_CONTAINS("resolved:     3\n", ProviderTest("-T", "none").c_str());
  LONGS_EQUAL(queries, RouteQueries());  // still from the PRDB
  for (const char* via : {"-T", "--shm"}) {
    std::string out = ProviderTest(via, "daemon");
    STRCMP_CONTAINS_TEXT("matched:      3\n", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT("mismatched:   0\n", out.c_str(), out.c_str());
  }
  // Debian's ib_acme, as a client outside the project would ask.
  for (const char* d : kRouted) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram(
        {"/usr/bin/ib_acme", "-S", ibacm->socket_path(), "-f", "g", "-s", our_gid, "-d", d}, &out,
        &rc));
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS_TEXT("dlid:", out.c_str(), out.c_str());
  }
}

// LMC 1: the router ports have two LIDs each, so do the consumer's; the
// replica follows the SA through a change on the way to a router (the
// router port's rows patched), the router's port going down (the SA then
// refuses the prefix routed to it: the replica must not keep the old
// path) and coming back.
TEST(RouterFidelity, WithLmcTheReplicaFollowsTheSaWhenTheWayToARouterChanges) {
  StartRouted(1);
  for (const char* node : {"R1", "R2", kNode}) {
    const ssa::smdb::SmdbNode* n = ssa::test::FindNode(tree->smdb(), node);
    CHECK_TEXT(n != nullptr, node);
    const ssa::smdb::SmdbPort* p = ssa::test::FindPort(tree->smdb(), n->node_guid, 1);
    CHECK_TEXT(p != nullptr && p->lmc == 1, node);
  }
  StartIbacm("none");
  // Each routed DGID from the PRDB (no SA query), equal to the SA's; the
  // refused one an error from both.
  auto all_equal = [this](bool r1_present) {
    std::vector<ibv_path_record> answers(3);
    const uint64_t queries = RouteQueries();
    for (size_t i = 0; i < 3; ++i) {
      const bool expected = r1_present || i != 0;  // kRouted[0] goes through R1
      uint8_t st = AskDaemon(kRouted[i], false, &answers[i]);
      LONGS_EQUAL_TEXT(expected ? acm::kStatusSuccess : acm::kStatusENoData, st, kRouted[i]);
    }
    ibv_path_record p;
    LONGS_EQUAL(acm::kStatusENoData, AskDaemon(kRefused, false, &p));
    LONGS_EQUAL(queries, RouteQueries());
    for (size_t i = 0; i < 3; ++i) {
      if (r1_present || i != 0)
        EqualsSa(kRouted[i], answers[i]);
      else
        CHECK_TEXT(!SaRecord(kRouted[i], &p), kRouted[i]);
    }
    CHECK(!SaRecord(kRefused, &p));
  };
  auto link = [this](int port, bool up) {
    ssa::smdb::Smdb next;
    CHECK_OK(tree->ChangeLink("Switch1", port, up, 60s, &next));
    CHECK_OK(next.WriteFile(smdb_file));
    CHECK_OK(ibacm->WaitPrdbEpoch(next.global_epoch, 30s));
  };
  all_equal(true);
  link(3, false);  // the 4x link between the switches: the 1x one remains
  all_equal(true);
  link(4, false);  // R1's port goes down: OpenSM drops the router
  all_equal(false);
  link(4, true);
  all_equal(true);
}
