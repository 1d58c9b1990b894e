// router_sim_test.cc: path records to DGIDs of other subnets (through IB
// routers: PathEngine::ComputeByGid, common/smdb/off_subnet.h) against
// OpenSM's own SA on simulated fabrics, with the ibssa_osm plugin dumping
// the SMDB the engine reads. `ssa-smdb compare --dgid` runs as nodes and
// asks the SA SubnAdmGet(PathRecord) by SGID and DGID, one record at a
// time (umad2sim has no RMPP), and compares field by field: with one and
// with two routers, without a prefix-routes file (the SA refuses every
// off-subnet DGID), with a wildcard route (OpenSM's "first router") and
// with routes per prefix (one naming no router), under a QoS policy whose
// levels match the router ports, and under DFSSSP (an engine that picks
// path SLs).
//
// ibsim forwards nothing between subnets; the SA answers all the same,
// which is all these tests need. Single-threaded test code; every fabric
// is stopped in teardown.
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "test/sim/fabric_fixture.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_test_util.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::smdb::Smdb;
using ssa::test::SimFabric;

namespace {

const std::string kTool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";

// Port GUIDs of the routers' subnet-side ports (rtguid + 1): R1's is the
// smaller number, R2's the smaller byte-swapped, which is what OpenSM's
// "first router" goes by on this host.
const char kR1Port[] = "0x0100000000000a01";
const char kR2Port[] = "0x0200000000000501";

// Four HCAs on two switches (OpenSM on Hca1), R1 on Switch1 and, with
// `two_routers`, R2 on Switch2. A router needs its rtguid= line: without
// it its GUID is 0 and OpenSM refuses it (ERR 0D16).
std::string RouterNet(bool two_routers) {
  std::string net =
      "Hca\t1 \"Hca1\"\n[1]\t\"Switch1\"[1]\n\n"
      "Hca\t1 \"Hca2\"\n[1]\t\"Switch2\"[1]\n\n"
      "Hca\t1 \"Hca3\"\n[1]\t\"Switch1\"[2]\n\n"
      "Hca\t1 \"Hca4\"\n[1]\t\"Switch2\"[2]\n\n"
      "Switch\t8 \"Switch1\"\n[1]\t\"Hca1\"[1]\n[2]\t\"Hca3\"[1]\n[3]\t\"Switch2\"[3]\n"
      "[5]\t\"Switch2\"[5]\n[4]\t\"R1\"[1]\n\n"
      "Switch\t8 \"Switch2\"\n[1]\t\"Hca2\"[1]\n[2]\t\"Hca4\"[1]\n[3]\t\"Switch1\"[3]\n"
      "[5]\t\"Switch1\"[5]\n";
  if (two_routers) net += "[4]\t\"R2\"[1]\n";
  net += "\nrtguid=0x0100000000000a00\nRt\t2 \"R1\"\n[1]\t\"Switch1\"[4]\n";
  if (two_routers) net += "\nrtguid=0x0200000000000500\nRt\t2 \"R2\"\n[1]\t\"Switch2\"[4]\n";
  return net;
}

// Off-subnet DGIDs (outside fe80::/10, which the SA takes as local) of
// several prefixes, and two local ones.
const char kDgids[] = "2001:db8::1:2,3000::7,4000::1,fec0::1,5000::9,fe80::10:3,fe80::99";

int CountCas(const Smdb& db) {
  int n = 0;
  for (const auto& node : db.nodes.records) n += node.node_type == ssa::smdb::kNodeCa;
  return n;
}

// key=value of the "compare: ..." summary line; -1 if absent.
long SummaryValue(const std::string& out, const std::string& key) {
  size_t at = out.rfind(" " + key + "=");
  if (at == std::string::npos) return -1;
  return strtol(out.c_str() + at + key.size() + 2, nullptr, 10);
}

}  // namespace

TEST_GROUP_BASE(RouterSim, ssa::test::PluginFabricFixture) {
  Smdb db;
  std::string smdb_file;

  // The fabric with `routes` as OpenSM's prefix-routes file (none when
  // empty: then OpenSM reads no file at all) and `opensm_args`.
  void Start(bool two_routers, const std::string& routes,
             const std::vector<std::string>& opensm_args = {}) {
    SimFabric::Options o;
    o.net_text = RouterNet(two_routers);
    o.opensm_args = opensm_args;
    // The option is read only from a file given with -F (the plugin's).
    std::string routes_file = dir.path() + "/prefix-routes.conf";
    plugin.extra_config = "prefix_routes_file " + routes_file + "\n";
    if (!routes.empty()) std::ofstream(routes_file) << routes;
    CHECK_OK(plugin.Configure(plugin.DefaultOptions(), &o));
    CHECK_OK(SimFabric::Start(o, &fabric));
    CHECK_OK(ssa::test::WaitForVersion(
        plugin.dump_dir(), [](const Smdb& d) { return CountCas(d) == 4; }, 30s, &db));
    smdb_file = dir.path() + "/smdb.under-test";
    CHECK_OK(db.WriteFile(smdb_file));
  }

  // `ssa-smdb compare --dgid kDgids` from every source, run as `node`:
  // no mismatch, no SA failure, every pair asked. Returns the output.
  std::string CompareAsNode(const std::string& node, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> argv = {kTool,    "compare", smdb_file,     "--from", "all",
                                     "--dgid", kDgids,    "--max-print", "50"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::string out;
    int status = -1;
    CHECK_OK(fabric->Run(node, argv, &out, &status, 120s));
    std::string what = node + ": " + out;
    CHECK_EQUAL_TEXT(0, status, what.c_str());
    CHECK_TEXT(SummaryValue(out, "pairs") >= 6 * 7, what.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), what.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "sa_failures"), what.c_str());
    return out;
  }

  // Every pair matched (none marked not exact).
  void AllEqual(const std::string& node, const std::vector<std::string>& extra = {}) {
    std::string out = CompareAsNode(node, extra);
    LONGS_EQUAL_TEXT(SummaryValue(out, "pairs"), SummaryValue(out, "matched"), out.c_str());
  }

  // `ssa-smdb paths --dgid dgid` from every source: the lines.
  std::string Paths(const std::string& dgid) {
    std::string out;
    int status = -1;
    CHECK_OK(fabric->Run("Hca2", {kTool, "paths", smdb_file, "--from", "all", "--dgid", dgid}, &out,
                         &status, 60s));
    CHECK_EQUAL_TEXT(0, status, out.c_str());
    return out;
  }

  // The DLIDs the paths to `dgid` take (from every source with one).
  std::set<uint16_t> Dlids(const std::string& dgid) {
    std::set<uint16_t> out;
    std::string text = Paths(dgid);
    for (size_t at = text.find(" dlid="); at != std::string::npos;
         at = text.find(" dlid=", at + 1)) {
      size_t line = text.rfind('\n', at);
      if (text.find("status=ok", line == std::string::npos ? 0 : line) < text.find('\n', at))
        out.insert(static_cast<uint16_t>(strtoul(text.c_str() + at + 6, nullptr, 10)));
    }
    return out;
  }

  uint16_t LidOf(const char* port_guid) {
    uint64_t g = strtoull(port_guid, nullptr, 16);
    for (const auto& r : db.guid_lids.records)
      if (r.port_guid == g) return r.base_lid;
    FAIL(port_guid);
    return 0;
  }
};

TEST(RouterSim, WithoutPrefixRoutesTheSaAndTheReplicaRefuseOffSubnetDgids) {
  Start(false, "");
  LONGS_EQUAL(0, db.prefix_routes.records.size());
  std::string out = CompareAsNode("Hca2");
  LONGS_EQUAL_TEXT(SummaryValue(out, "pairs"), SummaryValue(out, "matched"), out.c_str());
  // Only the local DGID with a port has paths.
  CHECK(Dlids("2001:db8::1:2").empty());
  STRCMP_CONTAINS("status=no-router dgid=2001:db8::1:2", Paths("2001:db8::1:2").c_str());
}

TEST(RouterSim, OneRouterTheWildcardRouteLeadsEveryPrefixToIt) {
  Start(false, "* *\n");
  LONGS_EQUAL(1, db.prefix_routes.records.size());
  // OpenSM knows the router's port on this subnet only: the other one
  // (another subnet's, here unconnected) has no GUID in the SMDB.
  size_t router_ports = 0;
  for (const auto& p : db.ports.records) {
    if (p.node_guid != 0x0100000000000a00) continue;
    ++router_ports;
    if (p.port_num == 1)
      LONGS_EQUAL(0x0100000000000a01, p.port_guid);
    else
      LONGS_EQUAL_TEXT(0, p.port_guid, std::to_string(p.port_num).c_str());
  }
  CHECK(router_ports >= 1);
  AllEqual("Hca2");
  AllEqual("Hca3", {"--reversible"});
  std::set<uint16_t> want = {LidOf(kR1Port)};
  CHECK(want == Dlids("3000::7"));
  STRCMP_CONTAINS("hop_limit=255", Paths("3000::7").c_str());
}

TEST(RouterSim, TwoRoutersThePrefixRoutesAndOpenSmsFirstRouterDecide) {
  // 2001:db8::/64 to R1; 3000:: to a GUID that is no router port (the SA
  // refuses, though "*" follows); the rest to the first router: R2.
  Start(true, std::string("20010db800000000 ") + kR1Port +
                  "\n3000000000000000 0x0100000000000a00\n* *\n5000000000000000 " + kR1Port + "\n");
  LONGS_EQUAL(4, db.prefix_routes.records.size());
  // Router ports as sources and destinations of this subnet, by LID.
  std::string out;
  int status = -1;
  CHECK_OK(fabric->Run("Hca2", {kTool, "compare", smdb_file, "--from", "all", "--to", "all"}, &out,
                       &status, 120s));
  LONGS_EQUAL_TEXT(0, status, out.c_str());
  LONGS_EQUAL_TEXT(SummaryValue(out, "pairs"), SummaryValue(out, "matched"), out.c_str());
  AllEqual("Hca2");
  AllEqual("Hca4", {"--pkey-from-path"});
  CHECK(std::set<uint16_t>{LidOf(kR1Port)} == Dlids("2001:db8::1:2"));
  CHECK(std::set<uint16_t>{LidOf(kR2Port)} == Dlids("4000::1"));
  CHECK(std::set<uint16_t>{LidOf(kR2Port)} == Dlids("5000::9"));
  CHECK(Dlids("3000::7").empty());
}

TEST(RouterSim, AQosPolicyAppliesToTheLocalHalfAsToAnyPath) {
  // A level for paths to R1's port (SL 3, MTU at most 1K): the SA matches
  // the router port as the destination.
  std::string policy = dir.path() + "/qos-policy.conf";
  std::ofstream(policy) << "port-groups\n  port-group\n    name: Routers\n    port-guid: "
                        << kR1Port
                        << "\n  end-port-group\nend-port-groups\n"
                           "qos-levels\n"
                           "  qos-level\n    name: DEFAULT\n    sl: 1\n  end-qos-level\n"
                           "  qos-level\n    name: ViaRouter\n    sl: 3\n    mtu-limit: 3\n"
                           "  end-qos-level\n"
                           "end-qos-levels\n"
                           "qos-match-rules\n  qos-match-rule\n    destination: Routers\n"
                           "    qos-level-name: ViaRouter\n  end-qos-match-rule\n"
                           "end-qos-match-rules\n";
  Start(true, std::string("20010db800000000 ") + kR1Port + "\n* *\n", {"-Q", "-Y", policy});
  AllEqual("Hca2");
  std::string via_r1 = Paths("2001:db8::1:2");
  STRCMP_CONTAINS(" sl=3 mtu=3 ", via_r1.c_str());
  STRCMP_CONTAINS(" sl=1 ", Paths("4000::1").c_str());
}

TEST(RouterSim, UnderDfssspTheRouterPathsAreTheLocalHalfsRecords) {
  // DFSSSP picks the path SLs; a router path's is the local path's to the
  // router port: what the replica knows of those, it knows of these.
  Start(true, "* *\n", {"-R", "dfsssp"});
  std::string out = CompareAsNode("Hca2");
  LONGS_EQUAL_TEXT(SummaryValue(out, "pairs"),
                   SummaryValue(out, "matched") + SummaryValue(out, "not_exact"), out.c_str());
  LONGS_EQUAL_TEXT(0, SummaryValue(out, "not_exact_differ"), out.c_str());
}
