// federation_sim_test.cc: two and three subnets federated (issue 48 step
// 2, doc/federation.md). Each is its own simulated fabric (an ibsim, an
// OpenSM with the plugin as its tree's core, its own subnet_prefix); the
// cores are joined by federation links over TCP, each pair authenticated
// with a key file of its own. Subnet A has a router (R1) whose port
// OpenSM's prefix routes give for the other prefixes, and a tree with
// ibacm (provider ssa, fallback none) on Hca6. Checked:
//   - B's names, IPv4 and IPv6 addresses reach A's consumers through A's
//     core and tree; ibacm resolves them (and B's GIDs) to the router
//     path with 0 SA queries, and each record equals what A's SA answers
//     for the same SGID and DGID;
//   - B's hosts file loses a node and moves an address: A's ibacm holds
//     the change within seconds (a delta down A's tree), the node no
//     longer resolves, the address resolves to its new GID;
//   - A's core reports the peer up and its entries in its metrics;
//   - three subnets: A holds both others' entries, and a change in C
//     reaches A as in B.
//
// Single-threaded test code; both fabrics stop in teardown.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/base/text_util.h"
#include "test/sim/fidelity_fixture.h"
#include "test/sim/netgen.h"
#include "test/support/loopback.h"
#include "test/support/prom_check.h"
#include "test/support/tool_output.h"

using namespace fidelity;

namespace {

constexpr uint64_t kPrefixA = 0xfec0000000000001ULL;

// The key file content of the pair of subnets `i` and `j` (0 is A).
std::string PairKey(int i, int j) {
  std::string key = "5f4e3d2c1b0a99887766554433221100ffeeddccbbaa001122334455667788";
  return key + static_cast<char>('0' + std::min(i, j)) + static_cast<char>('0' + std::max(i, j));
}

}  // namespace

TEST_GROUP_BASE(FederationSim, FidelityFixture) {
  // Subnet B (index 0) or C (1): its fabric, OpenSM and core.
  struct Remote {
    std::string letter;  // "b", "c": peer name, node names <letter>node<i>
    uint64_t prefix = 0;
    int port = 0;  // its federation listener
    std::string hosts, fed;
    // Its lives (a restart is a new fabric: its own run directory).
    std::vector<std::unique_ptr<ssa::test::TempDir>> dirs;
    std::unique_ptr<TreeHarness> tree;
    std::map<int, uint64_t> guids;  // its HCAs' port GUIDs, the same in every life
  };
  std::vector<Remote> remotes;
  std::string prom_a;

  void teardown() override {
    ssa::Status st;
    for (size_t r = 0; r < remotes.size(); ++r) {
      ssa::Status s = StopRemote(r);
      if (st.ok()) st = s;
    }
    FidelityFixture::teardown();
    CHECK_OK(st);
  }

  ssa::Status StopRemote(size_t r) {
    Remote& x = remotes[r];
    if (x.tree && UtestShell::getCurrent()->hasFailed()) x.tree->set_failed();
    ssa::Status st = x.tree ? x.tree->Stop() : ssa::Status::Ok();
    x.tree.reset();
    return st;
  }

  std::string GidOf(size_t r, int i) {
    return ssa::test::PrefixedGidText(remotes[r].prefix, remotes[r].guids.at(i));
  }
  std::string GidB(int i) { return GidOf(0, i); }
  // 10.<r+2>.0.<i>, fd0<r+2>::<i>
  static std::string Ip4(size_t r, int i) {
    return "10." + std::to_string(r + 2) + ".0." + std::to_string(i);
  }
  static std::string Ip6(size_t r, int i) {
    return "fd0" + std::to_string(r + 2) + "::" + std::to_string(i);
  }

  // A remote's hosts file: <letter>node<i>, its IPv4 and IPv6 for
  // `nodes`, and its IPv4 .2 on node `ip2_on`.
  void WriteHosts(size_t r, const std::vector<int>& nodes, int ip2_on) {
    std::string text;
    for (int i : nodes) {
      text += remotes[r].letter + "node" + std::to_string(i) + " " + GidOf(r, i) + "\n" +
              Ip6(r, i) + " " + GidOf(r, i) + "\n";
      if (i != 2) text += Ip4(r, i) + " " + GidOf(r, i) + "\n";
    }
    text += Ip4(r, 2) + " " + GidOf(r, ip2_on) + "\n";
    const std::string& hosts = remotes[r].hosts;
    CHECK_OK(ssa::test::WriteStringToFile(hosts + ".tmp", text));
    CHECK_EQUAL(0, rename((hosts + ".tmp").c_str(), hosts.c_str()));
  }
  void WriteHostsB(const std::vector<int>& nodes, int ip2_on) { WriteHosts(0, nodes, ip2_on); }

  // A remote's fabric, OpenSM and core (a new life each call).
  void StartRemote(size_t r) {
    Remote& x = remotes[r];
    x.dirs.push_back(std::make_unique<ssa::test::TempDir>());
    CHECK_OK(x.dirs.back()->status());
    x.tree = std::make_unique<TreeHarness>(x.dirs.back().get());
    TreeHarness::Options o;
    o.net_text = ssa::test::OneSwitchNet(3, "Sw", false);
    o.hcas = 3;
    o.osm_config = "subnet_prefix " + ssa::GuidText(x.prefix) + "\n";
    o.extra_plugin_options = "hosts_file=" + x.hosts + " federation_file=" + x.fed;
    CHECK_OK(x.tree->Start(o));
    for (int i = 1; i <= 3; ++i) x.guids[i] = x.tree->PortGuid("Hca" + std::to_string(i));
  }
  void StartB() { StartRemote(0); }

  // A and `n` other subnets, every pair of cores federated (a peer's
  // entries held `hold_s` after its link breaks); each remote's hosts
  // file names its three nodes. A's ibacm holds them all on return.
  void StartAll(size_t n, int hold_s = 60) {
    std::vector<int> ports;
    while (ports.size() < n + 1) {
      int p = ssa::test::FreeLoopbackPort();
      if (std::find(ports.begin(), ports.end(), p) == ports.end()) ports.push_back(p);
    }
    std::vector<uint64_t> prefixes = {kPrefixA};
    for (size_t r = 0; r < n; ++r) {
      Remote x;
      x.letter = std::string(1, static_cast<char>('b' + r));
      x.prefix = kPrefixA + 1 + r;
      x.port = ports[r + 1];
      x.hosts = dir.path() + "/hosts-" + x.letter + ".data";
      x.fed = dir.path() + "/fed-" + x.letter + ".conf";
      prefixes.push_back(x.prefix);
      remotes.push_back(std::move(x));
    }
    // Subnet i's federation file: every other subnet a peer, with the
    // key of that pair.
    auto name = [](size_t i) { return std::string(1, static_cast<char>('a' + i)); };
    for (size_t i = 0; i <= n; ++i) {
      std::string text = "listen 127.0.0.1:" + std::to_string(ports[i]) + "\nhold_s " +
                         std::to_string(hold_s) + "\n";
      for (size_t j = 0; j <= n; ++j) {
        if (j == i) continue;
        std::string key = dir.path() + "/" + name(std::min(i, j)) + name(std::max(i, j)) + ".key";
        std::ofstream(key) << PairKey(static_cast<int>(i), static_cast<int>(j)) << "\n";
        CHECK_EQUAL(0, chmod(key.c_str(), 0600));
        text += "peer " + name(j) + " 127.0.0.1:" + std::to_string(ports[j]) + " " +
                ssa::GuidText(prefixes[j]) + " " + key + "\n";
      }
      std::ofstream(i == 0 ? dir.path() + "/fed-a.conf" : remotes[i - 1].fed) << text;
    }
    // The remotes first: their hosts files are written once their GUIDs
    // are known.
    for (size_t r = 0; r < n; ++r) {
      StartRemote(r);
      WriteHosts(r, {1, 2, 3}, 2);
    }
    std::string routes = dir.path() + "/prefix-routes.conf";
    {
      std::ofstream f(routes);
      for (size_t r = 0; r < n; ++r)
        f << ssa::GuidText(remotes[r].prefix).substr(2) << " 0x0100000000000a01\n";
    }
    std::string hosts_a = dir.path() + "/hosts-a.data";
    prom_a = dir.path() + "/core-a.prom";
    TreeHarness::Options oa;
    oa.net_text = ssa::test::OneSwitchNet(6, "Switch1", true);  // R1: the way out
    oa.hcas = 6;
    oa.osm_config = "prefix_routes_file " + routes + "\nsubnet_prefix 0xfec0000000000001\n";
    plugin_options = "hosts_file=" + hosts_a + " federation_file=" + dir.path() +
                     "/fed-a.conf metrics_file=" + prom_a + " metrics_interval=1";
    StartTree(oa);
    // A's own node (its GID known now; the core reads the file when it
    // appears): A's core announces it to its peers.
    std::string gid6 = ssa::test::PrefixedGidText(kPrefixA, tree->PortGuid(kNode));
    CHECK_OK(ssa::test::WriteStringToFile(hosts_a, "node6 " + gid6 + "\n10.1.0.6 " + gid6 + "\n"));
    StartIbacm("none",
               "node6 ibsim0 1 default\n10.1.0.6 ibsim0 1 default\n"
               "fd01::6 ibsim0 1 default\n");
    // node6 and 10.1.0.6, plus three names and six IPs of each remote.
    CHECK_OK(ibacm->WaitAddresses(1 + 3 * n, 1 + 6 * n, 60s));
  }
  void StartBoth(int hold_s = 60) { StartAll(1, hold_s); }

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
  CHECK_OK(ibacm->WaitAddresses(4, 7, 60s));
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
       "ibssa_core_federation_conflicts", "ibssa_core_federation_listening",
       "ibssa_core_federation_listen_failures"},
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
  CHECK_OK(ibacm->WaitAddresses(3, 5, 30s));
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
  CHECK_OK(StopRemote(0));
  CHECK_OK(ibacm->WaitAddresses(1, 1, 30s));
  WaitSample(prom_a, "ibssa_core_federation_withdrawals_total{peer=\"b\"}", AtLeast(1));
  out = Resolve("n", "bnode1", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  // While B is down bnode2 leaves its hosts file; B comes back: A takes
  // B's set whole (a resync) and bnode2 is not served again.
  WriteHostsB({1, 3}, 1);
  mark = LogMark();
  StartB();
  CHECK_OK(ibacm->WaitAddresses(3, 6, 60s));
  WaitSample(prom_a, "ibssa_core_federation_resyncs_total{peer=\"b\"}", AtLeast(1));
  out = Resolve("n", "bnode2", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  out = Resolve("n", "bnode3", &rc);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  STRCMP_CONTAINS_TEXT(("dgid: " + GidB(3) + "\n").c_str(), out.c_str(), out.c_str());
  LONGS_EQUAL(0, RouteQueries());
}

TEST(FederationSim, ThreeSubnetsEachChangeReachesTheOthers) {
  StartAll(2);
  WaitSample(prom_a, "ibssa_core_federation_peers_up", [](double v) { return v == 2; });
  std::string dests = dir.path() + "/dests";
  {
    std::ofstream f(dests);
    for (size_t r = 0; r < 2; ++r)
      for (int i = 1; i <= 3; ++i) f << GidOf(r, i) << "\n";
  }
  for (size_t r = 0; r < 2; ++r) {
    int rc = -1;
    std::string name = remotes[r].letter + "node3";
    std::string out = Resolve("n", name, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS_TEXT(("dgid: " + GidOf(r, 3) + "\n").c_str(), out.c_str(), out.c_str());
    out = Resolve("i", Ip6(r, 1), &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS_TEXT(("dgid: " + GidOf(r, 1) + "\n").c_str(), out.c_str(), out.c_str());
  }
  LONGS_EQUAL(0, RouteQueries());
  std::string out;
  int rc = -1;
  CHECK_OK(ssa::test::RunProgram({kOurIbAcme, "-T", "-T", "-S", ibacm->socket_path(), "-f", "g",
                                  "-s", ssa::test::PrefixedGidText(kPrefixA, tree->PortGuid(kNode)),
                                  "--dest-file", dests, "--verify", "daemon"},
                                 &out, &rc));
  STRCMP_CONTAINS_TEXT("matched:      6\n", out.c_str(), out.c_str());
  STRCMP_CONTAINS_TEXT("mismatched:   0\n", out.c_str(), out.c_str());
  // cnode1 leaves C: A holds it as it does for B.
  size_t mark = LogMark();
  WriteHosts(1, {2, 3}, 2);
  CHECK_OK(ibacm->WaitAddresses(6, 11, 30s));
  out = Resolve("n", "cnode1", &rc);
  CHECK_TEXT(rc != 0, out.c_str());
  out = Resolve("n", "bnode1", &rc);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  // B's core took the same change of C, as a delta (only C has two
  // names now: A has one).
  CHECK_OK(ssa::test::WaitForLogLine(remotes[0].tree->plugin().log_file(),
                                     "(delta): 2 names, 4 IPs taken", 30s));
}
