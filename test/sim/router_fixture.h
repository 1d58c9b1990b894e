// router_fixture.h: what the router tests through ibacm share (issue 48
// step 1): a subnet with two routers and prefix routes to each, a refused
// prefix and the wildcard, the SSA tree on it and ibacm with the ssa
// provider on kNode; path records to other subnets' DGIDs asked of the
// daemon (its answer, from the PRDB) and of the SA through it (QUERY_SA:
// the oracle), compared field by field as ib_acme's provider test does.
//
// Test code; single thread. Used with TEST_GROUP_BASE(<group>, RouterFixture).
#ifndef IBACM_SSA_TEST_SIM_ROUTER_FIXTURE_H
#define IBACM_SSA_TEST_SIM_ROUTER_FIXTURE_H

#include <arpa/inet.h>

#include <cstring>
#include <fstream>
#include <string>

#include "common/base/big_endian.h"
#include "common/smdb/smdb.h"
#include "test/sim/fidelity_fixture.h"
#include "test/sim/osm_plugin_util.h"
#include "test/support/check_ok.h"
#include "util/ib_acme/path_compare.h"

namespace fidelity {

// Six HCAs on two switches (the tree's nodes Hca2-Hca4, ibacm on Hca6),
// router R1 on Switch1 and R2 on Switch2; the switches joined by a 4x
// link (port 3) and a 1x one (port 5), so that the first going down
// changes the rate of the paths between them. R1's port GUID
// 0x0100000000000a01 is the smaller number, R2's 0x0200000000000501 the
// smaller byte-swapped: OpenSM's "first router" is R2.
inline std::string TwoRouterNet() {
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
constexpr char kRoutes[] =
    "20010db800000000 0x0100000000000a01\n3000000000000000 0x0100000000000a00\n* *\n";
// Three routed DGIDs (via R1, via R2 twice) and a refused one.
constexpr const char* kRouted[] = {"2001:db8::1:2", "4000::1", "fec0::5"};
constexpr char kRefused[] = "3000::7";

class RouterFixture : public FidelityFixture {
 public:
  std::string dests;  // our ib_acme's --dest-file: kRouted, then kRefused
  std::string our_gid;

  // The tree on TwoRouterNet with kRoutes, at `lmc`.
  void StartRouted(int lmc = 0) {
    std::string routes = dir.path() + "/prefix-routes.conf";
    std::ofstream(routes) << kRoutes;
    TreeHarness::Options o;
    o.net_text = TwoRouterNet();
    o.hcas = 6;
    o.lmc = lmc;
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

  // Our ib_acme -T over `dests` (`via`: "-T" the socket, "--shm"
  // libibssa_path), checked as `verify` says; its report.
  std::string ProviderTest(const char* via, const char* verify) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({kOurIbAcme, "-T", via, "-S", ibacm->socket_path(), "-f", "g",
                                    "-s", our_gid, "--dest-file", dests, "--verify", verify},
                                   &out, &rc));
    return out;
  }

  static ibv_gid ParseGid(const std::string& text) {
    ibv_gid g;
    CHECK_TEXT(inet_pton(AF_INET6, text.c_str(), g.raw) == 1, text.c_str());
    return g;
  }

  // The path query a client (or the kernel) makes: our GID to `dgid`, the
  // default P_Key, reversible. `query_sa`: the daemon asks the SA (as
  // ib_acme -v does). The ACM status; *path set with success.
  uint8_t AskDaemon(const std::string& dgid, bool query_sa, ibv_path_record* path) {
    ibv_path_record q;
    memset(&q, 0, sizeof(q));
    q.sgid = ParseGid(our_gid);
    q.dgid = ParseGid(dgid);
    q.pkey = ssa::ToBe16(0xffff);
    q.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
    acm::EpAddr entry;
    entry.flags = query_sa ? acm::kFlagQuerySa : 0;
    entry.SetPath(q);
    ssa::AcmClient client;
    CHECK_OK(client.Connect(ibacm->socket_path()));
    acm::ResolveResponse resp;
    CHECK_OK(client.Resolve({entry}, &resp));
    if (resp.hdr.status == acm::kStatusSuccess) {
      CHECK_TEXT(!resp.paths.empty(), dgid.c_str());
      *path = resp.paths[0].path;
    }
    return resp.hdr.status;
  }

  // The SA's record for `dgid` (through the daemon), or false when the SA
  // has none (ENODATA or EDESTADDR; another status fails the test).
  bool SaRecord(const std::string& dgid, ibv_path_record* path) {
    uint8_t st = AskDaemon(dgid, true, path);
    if (st == acm::kStatusSuccess) return true;
    CHECK_TEXT(st == acm::kStatusENoData || st == acm::kStatusEDestAddr,
               (dgid + ": SA query through the daemon: " + acm::AcmStatusName(st)).c_str());
    return false;
  }

  // `answer` equals the SA's record for `dgid` in every field ib_acme
  // compares (ssa::acme::ComparePaths).
  void EqualsSa(const std::string& dgid, const ibv_path_record& answer) {
    ibv_path_record sa;
    CHECK_TEXT(SaRecord(dgid, &sa), (dgid + ": the SA has no record").c_str());
    std::string diff = ssa::acme::DescribeDifferences(ssa::acme::ComparePaths(answer, sa));
    CHECK_TEXT(diff.empty(), (dgid + ": " + diff).c_str());
  }
};

}  // namespace fidelity

#endif
