// federation_sim_test.cc: two subnets federated (issue 48 step 2,
// doc/federation.md). Each is its own simulated fabric (an ibsim, an
// OpenSM with the plugin as its tree's core, its own subnet_prefix); the
// two cores are joined by the federation link over TCP, authenticated
// with a shared key file. Subnet A has a router (R1) whose port OpenSM's
// prefix routes give for B's prefix, and a tree with ibacm (provider
// ssa, fallback none) on Hca6. Checked:
//   - B's names, IPv4 and IPv6 addresses reach A's consumers through A's
//     core and tree; ibacm resolves them (and B's GIDs) to the router
//     path with 0 SA queries, and each record equals what A's SA answers
//     for the same SGID and DGID;
//   - B's hosts file loses a node and moves an address: A's ibacm holds
//     the change within seconds (a delta down A's tree), the node no
//     longer resolves, the address resolves to its new GID;
//   - A's core reports the peer up and its entries in its metrics.
//
// Single-threaded test code; both fabrics stop in teardown.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "test/sim/fidelity_fixture.h"
#include "test/support/loopback.h"
#include "test/support/prom_check.h"
#include "test/support/tool_output.h"

using namespace fidelity;

namespace {

constexpr uint64_t kPrefixA = 0xfec0000000000001ULL;
constexpr uint64_t kPrefixB = 0xfec0000000000002ULL;
const char kKey[] = "5f4e3d2c1b0a99887766554433221100ffeeddccbbaa00112233445566778899";

// A: six HCAs on one switch and router R1 (port GUID 0x0100000000000a01).
std::string SubnetA() {
  std::string net;
  std::string sw = "Switch\t8 \"Switch1\"\n";
  for (int i = 1; i <= 6; ++i) {
    std::string n = std::to_string(i);
    net += "Hca\t1 \"Hca" + n + "\"\n[1]\t\"Switch1\"[" + n + "]\n\n";
    sw += "[" + n + "]\t\"Hca" + n + "\"[1]\n";
  }
  sw += "[7]\t\"R1\"[1]\n\n";
  return net + sw + "rtguid=0x0100000000000a00\nRt\t2 \"R1\"\n[1]\t\"Switch1\"[7]\n";
}

// B: three HCAs on one switch.
std::string SubnetB() {
  return "Hca\t1 \"Hca1\"\n[1]\t\"Sw\"[1]\n\nHca\t1 \"Hca2\"\n[1]\t\"Sw\"[2]\n\n"
         "Hca\t1 \"Hca3\"\n[1]\t\"Sw\"[3]\n\n"
         "Switch\t8 \"Sw\"\n[1]\t\"Hca1\"[1]\n[2]\t\"Hca2\"[1]\n[3]\t\"Hca3\"[1]\n";
}

}  // namespace

TEST_GROUP_BASE(FederationSim, FidelityFixture) {
  // B's lives (a restart is a new fabric: its own run directory).
  std::vector<std::unique_ptr<ssa::test::TempDir>> dirs_b;
  std::unique_ptr<TreeHarness> tree_b;
  std::map<int, uint64_t> guids_b;  // B's HCAs' port GUIDs, the same in every life
  std::string hosts_b, fed_b, prom_a;

  void teardown() override {
    ssa::Status st = StopB();
    FidelityFixture::teardown();
    CHECK_OK(st);
  }

  ssa::Status StopB() {
    if (tree_b && UtestShell::getCurrent()->hasFailed()) tree_b->set_failed();
    ssa::Status st = tree_b ? tree_b->Stop() : ssa::Status::Ok();
    tree_b.reset();
    return st;
  }

  std::string GidB(int i) { return ssa::test::PrefixedGidText(kPrefixB, guids_b.at(i)); }

  // B's hosts file: bnode<i>, 10.2.0.<i>, fd02::<i> for `nodes`, and
  // 10.2.0.2 on node `ip2_on`.
  void WriteHostsB(const std::vector<int>& nodes, int ip2_on) {
    std::string text;
    for (int i : nodes) {
      std::string n = std::to_string(i);
      text += "bnode" + n + " " + GidB(i) + "\nfd02::" + n + " " + GidB(i) + "\n";
      if (i != 2) text += "10.2.0." + n + " " + GidB(i) + "\n";
    }
    text += "10.2.0.2 " + GidB(ip2_on) + "\n";
    CHECK_OK(ssa::test::WriteStringToFile(hosts_b + ".tmp", text));
    CHECK_EQUAL(0, rename((hosts_b + ".tmp").c_str(), hosts_b.c_str()));
  }

  // Subnet B's fabric, OpenSM and core (a new life each call).
  void StartB() {
    dirs_b.push_back(std::make_unique<ssa::test::TempDir>());
    CHECK_OK(dirs_b.back()->status());
    tree_b = std::make_unique<TreeHarness>(dirs_b.back().get());
    TreeHarness::Options ob;
    ob.net_text = SubnetB();
    ob.hcas = 3;
    ob.osm_config = "subnet_prefix 0xfec0000000000002\n";
    ob.extra_plugin_options = "hosts_file=" + hosts_b + " federation_file=" + fed_b;
    CHECK_OK(tree_b->Start(ob));
    for (int i = 1; i <= 3; ++i) guids_b[i] = tree_b->PortGuid("Hca" + std::to_string(i));
  }

  // Both subnets, their cores federated (a peer's entries held `hold_s`
  // after its link breaks); B's hosts file names its three nodes.
  void StartBoth(int hold_s = 60) {
    const int port_a = ssa::test::FreeLoopbackPort();
    int port_b = 0;
    do port_b = ssa::test::FreeLoopbackPort();
    while (port_b == port_a);
    std::string key = dir.path() + "/ab.key";
    std::ofstream(key) << kKey << "\n";
    CHECK_EQUAL(0, chmod(key.c_str(), 0600));
    auto fed = [&](const std::string& path, int listen, const char* peer, int peer_port,
                   const char* prefix) {
      std::ofstream(path) << "listen 127.0.0.1:" << listen << "\nhold_s " << hold_s << "\npeer "
                          << peer << " 127.0.0.1:" << peer_port << " " << prefix << " " << key
                          << "\n";
    };
    const std::string fed_a = dir.path() + "/fed-a.conf";
    fed_b = dir.path() + "/fed-b.conf";
    fed(fed_a, port_a, "b", port_b, "0xfec0000000000002");
    fed(fed_b, port_b, "a", port_a, "0xfec0000000000001");

    // B first: its hosts file is written once its GUIDs are known.
    hosts_b = dir.path() + "/hosts-b.data";
    StartB();
    WriteHostsB({1, 2, 3}, 2);

    std::string routes = dir.path() + "/prefix-routes.conf";
    std::ofstream(routes) << "fec0000000000002 0x0100000000000a01\n";
    std::string hosts_a = dir.path() + "/hosts-a.data";
    prom_a = dir.path() + "/core-a.prom";
    TreeHarness::Options oa;
    oa.net_text = SubnetA();
    oa.hcas = 6;
    oa.osm_config = "prefix_routes_file " + routes + "\nsubnet_prefix 0xfec0000000000001\n";
    plugin_options = "hosts_file=" + hosts_a + " federation_file=" + fed_a +
                     " metrics_file=" + prom_a + " metrics_interval=1";
    StartTree(oa);
    // A's own node (its GID known now; the core reads the file when it
    // appears): A's core announces it to B.
    std::string gid6 = ssa::test::PrefixedGidText(kPrefixA, tree->PortGuid(kNode));
    CHECK_OK(ssa::test::WriteStringToFile(hosts_a, "node6 " + gid6 + "\n10.1.0.6 " + gid6 + "\n"));
    StartIbacm("none",
               "node6 ibsim0 1 default\n10.1.0.6 ibsim0 1 default\n"
               "fd01::6 ibsim0 1 default\n");
    // A's tree carries node6 and 10.1.0.6 plus B's three names and six IPs.
    CHECK_OK(
        ssa::test::WaitForLogLine(ibacm->log_path(), "in place: 4 names, 7 IPs", 60s, log_from));
  }

  // Stock ib_acme from node6's GID to `dest` in `format`: its output.
  std::string Resolve(const char* format, const std::string& dest, int* rc) {
    std::string out;
    std::string src = ssa::test::PrefixedGidText(kPrefixA, tree->PortGuid(kNode));
    if (std::string(format) == "n") src = "node6";
    if (std::string(format) == "i")
      src = dest.find(':') == std::string::npos ? "10.1.0.6" : "fd01::6";
    CHECK_OK(ssa::test::RunProgram(
        {"/usr/bin/ib_acme", "-S", ibacm->socket_path(), "-f", format, "-s", src, "-d", dest}, &out,
        rc));
    return out;
  }

  // Where ibacm's log ends now (what a wait must find comes after).
  size_t LogMark() { return ssa::test::ReadFileText(ibacm->log_path()).size(); }

  // Address database versions ibacm took as deltas after log offset `from`.
  size_t AddressDeltas(size_t from) {
    std::istringstream in(ssa::test::ReadFileText(ibacm->log_path()).substr(from));
    std::string line;
    size_t n = 0;
    while (std::getline(in, line))
      n += line.find("address DB epoch") != std::string::npos &&
           line.find("in place (delta,") != std::string::npos;
    return n;
  }

  // The "dlid: N" line of an ib_acme answer.
  static std::string Dlid(const std::string& out) {
    size_t at = out.find("dlid:");
    return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
  }
};

TEST(FederationSim, OtherSubnetsNamesAndAddressesResolveThroughTheRouterFromTheReplica) {
  StartBoth();
  StartIbacm("none",
             "node6 ibsim0 1 default\n10.1.0.6 ibsim0 1 default\n"
             "fd01::6 ibsim0 1 default\n");
  // A's tree carries node6 and 10.1.0.6 plus B's three names and six IPs.
  CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), "in place: 4 names, 7 IPs", 60s, log_from));
  WaitSample(prom_a, "ibssa_core_federation_peers_up", [](double v) { return v == 1; });
  WaitSample(prom_a, "ibssa_core_federation_entries{peer=\"b\",kind=\"names\"}",
             [](double v) { return v == 3; });
  // promtool and the Python client take the file, with every family.
  CHECK_OK(ssa::test::CheckPromFile(
      prom_a,
      {"ibssa_core_federation_peers_up", "ibssa_core_federation_peer_up",
       "ibssa_core_federation_entries", "ibssa_core_federation_versions",
       "ibssa_core_federation_resyncs", "ibssa_core_federation_withdrawals",
       "ibssa_core_federation_refused_versions", "ibssa_core_federation_refused_entries",
       "ibssa_core_federation_unproven", "ibssa_core_federation_refused",
       "ibssa_core_federation_conflicts"},
      dir.path()));

  struct Case {
    const char* format;
    std::string dest;
    int node;
  };
  std::vector<Case> cases = {{"n", "bnode1", 1},   {"n", "BNODE3", 3},  {"i", "10.2.0.3", 3},
                             {"i", "10.2.0.2", 2}, {"i", "fd02::1", 1}, {"g", GidB(2), 2}};
  std::string dlid;
  for (const Case& c : cases) {
    int rc = -1;
    std::string out = Resolve(c.format, c.dest, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS_TEXT(("dgid: " + GidB(c.node) + "\n").c_str(), out.c_str(), out.c_str());
    // Every one through A's router: the same DLID (R1's port).
    if (dlid.empty()) dlid = Dlid(out);
    STRCMP_EQUAL_TEXT(dlid.c_str(), Dlid(out).c_str(), out.c_str());
  }
  LONGS_EQUAL(0, RouteQueries());
  // Each record equal to A's SA's for the same SGID and DGID, field by
  // field (the daemon asks the SA: QUERY_SA).
  std::string dests = dir.path() + "/dests";
  std::ofstream(dests) << GidB(1) << "\n" << GidB(2) << "\n" << GidB(3) << "\n";
  for (const char* via : {"-T", "--shm"}) {
    std::string out;
    int rc = -1;
    CHECK_OK(
        ssa::test::RunProgram({kOurIbAcme, "-T", via, "-S", ibacm->socket_path(), "-f", "g", "-s",
                               ssa::test::PrefixedGidText(kPrefixA, tree->PortGuid(kNode)),
                               "--dest-file", dests, "--verify", "daemon"},
                              &out, &rc));
    STRCMP_CONTAINS_TEXT("matched:      3\n", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT("mismatched:   0\n", out.c_str(), out.c_str());
  }

  // In B, bnode3 leaves and 10.2.0.2 moves to bnode1's port: A's ibacm
  // holds it within seconds, as a delta of the address database.
  const uint64_t queries = RouteQueries();
  auto changed_at = std::chrono::steady_clock::now();
  size_t mark = LogMark();
  WriteHostsB({1, 2}, 1);
  CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), "in place: 3 names, 5 IPs", 30s, mark));
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - changed_at);
  CHECK_TEXT(took < 15s, std::to_string(took.count()).c_str());
  CHECK_TEXT(AddressDeltas(mark) > 0, ibacm->Log().c_str());
  int rc = -1;
  std::string out = Resolve("n", "bnode3", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  out = Resolve("i", "10.2.0.2", &rc);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  STRCMP_CONTAINS_TEXT(("dgid: " + GidB(1) + "\n").c_str(), out.c_str(), out.c_str());
  LONGS_EQUAL(queries, RouteQueries());
  WaitSample(prom_a, "ibssa_core_federation_entries{peer=\"b\",kind=\"names\"}",
             [](double v) { return v == 2; });
}

TEST(FederationSim, APeerAwayPastHoldIsWithdrawnAndItsReturnServesNothingItWithdrew) {
  StartBoth(3);
  WaitSample(prom_a, "ibssa_core_federation_peers_up", [](double v) { return v == 1; });
  int rc = -1;
  std::string out = Resolve("n", "bnode2", &rc);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  // B's whole subnet goes down: after hold_s A withdraws B's entries and
  // its consumers hold only A's own.
  size_t mark = LogMark();
  CHECK_OK(StopB());
  CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), "in place: 1 names, 1 IPs", 30s, mark));
  WaitSample(prom_a, "ibssa_core_federation_withdrawals_total{peer=\"b\"}", AtLeast(1));
  out = Resolve("n", "bnode1", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  // While B is down bnode2 leaves its hosts file; B comes back: A takes
  // B's set whole (a resync) and bnode2 is not served again.
  WriteHostsB({1, 3}, 1);
  mark = LogMark();
  StartB();
  CHECK_OK(ssa::test::WaitForLogLine(ibacm->log_path(), "in place: 3 names, 6 IPs", 60s, mark));
  WaitSample(prom_a, "ibssa_core_federation_resyncs_total{peer=\"b\"}", AtLeast(1));
  out = Resolve("n", "bnode2", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  out = Resolve("n", "bnode3", &rc);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  STRCMP_CONTAINS_TEXT(("dgid: " + GidB(3) + "\n").c_str(), out.c_str(), out.c_str());
  LONGS_EQUAL(0, RouteQueries());
}
