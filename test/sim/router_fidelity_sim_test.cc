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
#include <fstream>
#include <string>

#include "common/smdb/smdb.h"
#include "test/sim/fidelity_fixture.h"
#include "test/sim/osm_plugin_util.h"
#include "test/support/check_ok.h"

using namespace fidelity;

namespace {

// Six HCAs on two switches (the tree's nodes Hca2-Hca4, ibacm on Hca6),
// router R1 on Switch1 and R2 on Switch2; the switches joined by a 4x
// link (port 3) and a 1x one (port 5), so that the first going down
// changes the rate of the paths between them. R1's port GUID
// 0x0100000000000a01 is the smaller number, R2's 0x0200000000000501 the
// smaller byte-swapped: OpenSM's "first router" is R2.
std::string TwoRouterNet() {
  return "Hca\t1 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\n"
         "Hca\t1 \"Hca2\"\n[1]\t\"Switch2\"[1]\n\n"
         "Hca\t1 \"Hca3\"\n[1]\t\"Switch1\"[2]\n\n"
         "Hca\t1 \"Hca4\"\n[1]\t\"Switch2\"[2]\n\n"
         "Hca\t1 \"Hca5\"\n[1]\t\"Switch1\"[6]\n\n"
         "Hca\t1 \"Hca6\"\n[1]\t\"Switch2\"[6]\n\n"
         "Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[2]\t\"Hca3\"[1]\n[3]\t\"Switch2\"[3]\n"
         "[4]\t\"R1\"[1]\n[5]\t\"Switch2\"[5] w=1\n[6]\t\"Hca5\"[1]\n\n"
         "Switch\t8 \"Switch2\"\n[1]\t\"Hca2\"[1]\n[2]\t\"Hca4\"[1]\n[3]\t\"Switch1\"[3]\n"
         "[4]\t\"R2\"[1]\n[5]\t\"Switch1\"[5] w=1\n[6]\t\"Hca6\"[1]\n\n"
         "rtguid=0x0100000000000a00\nRt\t2 \"R1\"\n[1]\t\"Switch1\"[4]\n\n"
         "rtguid=0x0200000000000500\nRt\t2 \"R2\"\n[1]\t\"Switch2\"[4]\n";
}

// 2001:db8::/64 through R1; 3000:: to R1's node GUID, no router port (the
// SA refuses it although the wildcard follows); the rest through R2.
const char kRoutes[] =
    "20010db800000000 0x0100000000000a01\n3000000000000000 0x0100000000000a00\n* *\n";
// Three routed DGIDs (via R1, via R2 twice) and a refused one.
const char* const kRouted[] = {"2001:db8::1:2", "4000::1", "fec0::5"};
const char kRefused[] = "3000::7";

}  // namespace

TEST_GROUP_BASE(RouterFidelity, FidelityFixture) {
  std::string dests;  // our ib_acme's --dest-file
  std::string our_gid;

  void StartRouted() {
    std::string routes = dir.path() + "/prefix-routes.conf";
    std::ofstream(routes) << kRoutes;
    TreeHarness::Options o;
    o.net_text = TwoRouterNet();
    o.hcas = 6;
    o.osm_config = "prefix_routes_file " + routes + "\n";
    StartTree(o);
    LONGS_EQUAL(3, tree->smdb().prefix_routes.records.size());
    dests = dir.path() + "/dests";
    std::ofstream f(dests);
    for (const char* d : kRouted) f << d << "\n";
    f << kRefused << "\n";
    const ssa::smdb::SmdbNode* n = ssa::test::FindNode(tree->smdb(), kNode);
    CHECK(n != nullptr);
    const ssa::smdb::SmdbPort* p = ssa::test::FindPort(tree->smdb(), n->node_guid, 1);
    CHECK(p != nullptr);
    char gid[64];
    snprintf(gid, sizeof(gid), "fe80::%x:%x:%x:%x", static_cast<unsigned>(p->port_guid >> 48),
             static_cast<unsigned>(p->port_guid >> 32 & 0xffff),
             static_cast<unsigned>(p->port_guid >> 16 & 0xffff),
             static_cast<unsigned>(p->port_guid & 0xffff));
    our_gid = gid;
  }

  // Our ib_acme -T over the DGIDs (`via`: "-T" the socket, "--shm"
  // libibssa_path), checked as `verify` says; its report.
  std::string ProviderTest(const char* via, const char* verify) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({kOurIbAcme, "-T", via, "-S", ibacm->socket_path(), "-f", "g",
                                    "-s", our_gid, "--dest-file", dests, "--verify", verify},
                                   &out, &rc));
    return out;
  }
};

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
