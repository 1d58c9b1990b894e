// path_engine_sim_test.cc: the path-record engine (common/smdb/path_engine.h)
// against OpenSM's own SA on simulated fabrics, with the ibssa_osm plugin
// dumping the SMDB the engine reads. The acceptance matrix: the 4-HCA
// fabric, a 108-HCA fat tree and a 108-HCA fat tree with mixed link widths
// and speeds, each with LMC 0 and LMC 1; from 3 source nodes (on different
// leaves), every destination LID, the engine's record equal to the SA's
// SubnAdmGet(PathRecord) answer byte for byte. The check is `ssa-smdb
// compare` run as each source node (requester = source), plus one run
// from every source at once, one with ibacm's Reversible query, and an
// unassigned LID that both must call unreachable. The mixed fabric also
// runs with QoS on and a partitions file, so that partition P_Keys
// (limited and full members) and partition SLs are exercised.
// And the SMDB follows a switch-to-switch link taken down and brought back:
// each change yields one new version whose changed tables, and only those,
// have the new epoch, the plugin's delta reproduces it byte for byte, and
// the engine on it still agrees with the SA (and on the stale one does not).
//
// Single-threaded test code; every fabric is stopped in teardown.
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "test/sim/fabric_fixture.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_test_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::smdb::Smdb;
using ssa::test::PluginSetup;
using ssa::test::SimFabric;
using ssa::test::TempDir;

namespace {

const std::string kTool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";

// Partitions for the QoS run: every CA a limited and every switch a full
// member of 0x0002 (SL 5), Hca2 a full member too; everyone in the
// default partition (SL 1). OpenSM only honours partition SLs with QoS on.
const char kPartitions[] =
    "Default=0x7fff, ipoib, sl=1 : ALL=full ;\n"
    "storage=0x0002, sl=5 : ALL_CAS=limited, ALL_SWITCHES=full, 0x0000000000100003=full ;\n";

int CountCas(const Smdb& db) {
  int n = 0;
  for (const auto& node : db.nodes.records) n += node.node_type == ssa::smdb::kNodeCa;
  return n;
}

// key=value pairs of the "compare: ..." summary line.
std::map<std::string, std::string> Summary(const std::string& out) {
  std::map<std::string, std::string> kv;
  size_t at = out.rfind("compare: ");
  if (at == std::string::npos) return kv;
  size_t end = out.find('\n', at);
  std::string line =
      out.substr(at + 9, end == std::string::npos ? std::string::npos : end - at - 9);
  size_t pos = 0;
  while (pos < line.size()) {
    size_t sp = line.find(' ', pos);
    std::string word = line.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    size_t eq = word.find('=');
    if (eq != std::string::npos) kv[word.substr(0, eq)] = word.substr(eq + 1);
    pos = sp == std::string::npos ? line.size() : sp + 1;
  }
  return kv;
}

std::string Hex16(uint64_t v) {
  char b[24];
  snprintf(b, sizeof(b), "0x%016llx", static_cast<unsigned long long>(v));
  return b;
}

ssa::test::FatTreeOptions FatTree(int hcas, bool mixed_links) {
  ssa::test::FatTreeOptions ft;
  ft.hcas = hcas;
  ft.mixed_links = mixed_links;
  return ft;
}

bool HasLink(const Smdb& db, uint64_t node_guid, uint8_t port) {
  for (const auto& l : db.links.records)
    if (l.node_guid == node_guid && l.port_num == port) return true;
  return false;
}

// The port switch `sw` sends `lid` out of (kLftNoPath if none).
uint8_t LftPort(const Smdb& db, uint64_t sw, uint16_t lid) {
  for (const auto& b : db.lft_blocks.records)
    if (b.node_guid == sw && b.block == lid / ssa::smdb::kLftBlockSize)
      return b.ports[lid % ssa::smdb::kLftBlockSize];
  return ssa::smdb::kLftNoPath;
}

std::string Join(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

TEST_GROUP_BASE(PathEngineSim, ssa::test::PluginFabricFixture) {
  Smdb db;
  std::string smdb_file;

  // Brings the fabric up with the plugin and waits for the SMDB version
  // that holds all `hcas` CAs; keeps a copy of it for the tool.
  void Start(const std::string& net, const std::vector<std::string>& ibsim_args, int lmc, int hcas,
             const std::vector<std::string>& extra_opensm_args = {}) {
    SimFabric::Options o;
    o.net_text = net;
    o.ibsim_args = ibsim_args;
    o.opensm_args = {"-l", std::to_string(lmc)};
    o.opensm_args.insert(o.opensm_args.end(), extra_opensm_args.begin(), extra_opensm_args.end());
    CHECK_OK(plugin.Configure(plugin.DefaultOptions(), &o));
    CHECK_OK(SimFabric::Start(o, &fabric));
    CHECK_OK(ssa::test::WaitForVersion(
        plugin.dump_dir(), [hcas](const Smdb& d) { return CountCas(d) == hcas; }, 30s, &db));
    CHECK_EQUAL(lmc, db.subnet.records[0].lmc);
    smdb_file = dir.path() + "/smdb.under-test";
    CHECK_OK(db.WriteFile(smdb_file));
  }

  // Start on a generated fat tree with `ft.hcas` CAs; the net it made.
  ssa::test::GeneratedNet StartFatTree(const ssa::test::FatTreeOptions& ft, int lmc,
                                       const std::vector<std::string>& extra_opensm_args = {}) {
    ssa::test::GeneratedNet net;
    CHECK_OK(ssa::test::FatTreeNet(ft, &net));
    Start(net.text, net.ibsim_args, lmc, ft.hcas, extra_opensm_args);
    return net;
  }

  uint64_t PortGuid(const std::string& node) {
    const ssa::smdb::SmdbNode* n = ssa::test::FindNode(db, node);
    CHECK_TEXT(n != nullptr, node.c_str());
    const ssa::smdb::SmdbPort* p = ssa::test::FindPort(db, n->node_guid, 1);
    CHECK_TEXT(p != nullptr, node.c_str());
    return p->port_guid;
  }

  // ssa-smdb compare as `node`; checks it found no difference and asked
  // `min_pairs` pairs at least. Returns the summary.
  std::map<std::string, std::string> Compare(const std::string& node, std::vector<std::string> args,
                                             size_t min_pairs) {
    std::vector<std::string> argv = {kTool, "compare", smdb_file, "--max-print", "50"};
    argv.insert(argv.end(), args.begin(), args.end());
    std::string out;
    int status = -1;
    CHECK_OK(fabric->Run(node, argv, &out, &status, 120s));
    std::string what = node + ": " + out;
    CHECK_EQUAL_TEXT(0, status, what.c_str());
    auto kv = Summary(out);
    CHECK_TEXT(kv.count("pairs"), what.c_str());
    CHECK_TEXT(strtoull(kv["pairs"].c_str(), nullptr, 10) >= min_pairs, what.c_str());
    STRCMP_EQUAL_TEXT("0", kv["mismatched"].c_str(), what.c_str());
    STRCMP_EQUAL_TEXT("0", kv["sa_failures"].c_str(), what.c_str());
    STRCMP_EQUAL_TEXT(kv["pairs"].c_str(), kv["matched"].c_str(), what.c_str());
    return kv;
  }

  // Makes `next` the SMDB under test (the tool's file and db).
  void UseVersion(const Smdb& next) {
    db = next;
    CHECK_OK(db.WriteFile(smdb_file));
  }

  // `next` is the one version written after `prev`: exactly its changed
  // tables carry its epoch, the others keep theirs, and the plugin's delta
  // (and one made here) applied to `prev` gives `next` byte for byte.
  // Returns the changed tables' names.
  std::set<std::string> CheckNextVersion(const Smdb& prev, const Smdb& next) {
    CHECK_EQUAL(prev.global_epoch + 1, next.global_epoch);
    std::vector<uint64_t> epochs = ssa::test::ListVersions(plugin.dump_dir());
    CHECK_EQUAL(next.global_epoch, epochs.back());
    std::set<std::string> changed;
    auto ta = ssa::test::TablesOf(prev), tb = ssa::test::TablesOf(next);
    CHECK_EQUAL(ta.size(), tb.size());
    for (const auto& kv : tb) {
      const std::string& name = kv.first;
      std::string where = "epoch " + std::to_string(next.global_epoch) + " table " + name;
      if (kv.second.records == ta[name].records) {
        CHECK_EQUAL_TEXT(ta[name].epoch, kv.second.epoch, where.c_str());
      } else {
        CHECK_EQUAL_TEXT(next.global_epoch, kv.second.epoch, where.c_str());
        changed.insert(name);
      }
    }
    CheckDeltasReproduce(prev, next);
    return changed;
  }

  // The matrix cell: 3 sources, each asking from itself about every LID
  // (every source LID with LMC > 0).
  void CompareFromSources(const std::vector<std::string>& nodes) {
    size_t lids = 0;
    for (const auto& g : db.guid_lids.records) lids += size_t{1} << g.lmc;
    int lmc = db.subnet.records[0].lmc;
    for (const std::string& node : nodes)
      Compare(node, {"--from", Hex16(PortGuid(node)), "--lmc-all"}, lids << lmc);
  }
};

TEST(PathEngineSim, FourHcaLmc0) {
  Start(ssa::test::FourHcaNet(), {}, 0, 4);
  CompareFromSources({"Hca2", "Hca3", "Hca4"});
  // Every source, switches and the SM's node included, asked from Hca2;
  // LID 999 is nobody's: both sides must say there is no path.
  auto kv = Compare("Hca2", {"--from", "all", "--to", "all,999"}, 6 * 7);
  STRCMP_EQUAL("6", kv["no_path"].c_str());

  // And the check is not blind: an SMDB that says Hca4's port takes only
  // 256-byte packets is caught, field by field, with a failing exit.
  uint64_t hca4 = ssa::test::FindNode(db, "Hca4")->node_guid;
  for (auto& p : db.ports.records)
    if (p.node_guid == hca4) p.mtu_cap = 1;
  CHECK_OK(db.WriteFile(smdb_file));
  std::string out;
  int status = -1;
  CHECK_OK(fabric->Run(
      "Hca2", {kTool, "compare", smdb_file, "--from", "all", "--to", Hex16(PortGuid("Hca4"))}, &out,
      &status));
  CHECK_EQUAL_TEXT(1, status, out.c_str());
  CHECK_TEXT(out.find("mtu engine=1 sa=") != std::string::npos, out.c_str());
  STRCMP_EQUAL_TEXT("6", Summary(out)["mismatched"].c_str(), out.c_str());
}

TEST(PathEngineSim, FourHcaLmc1) {
  Start(ssa::test::FourHcaNet(), {}, 1, 4);
  CompareFromSources({"Hca2", "Hca3", "Hca4"});
  // Upstream ibacm's query form (Reversible, NumbPath), every source LID.
  Compare("Hca3", {"--from", "all", "--lmc-all", "--reversible"}, 10 * 10);
  // By SGID/DGID, as the sa provider asks: one query per port pair.
  Compare("Hca3", {"--from", "all", "--by-gid"}, 6 * 6);
  Compare("Hca3", {"--from", "all", "--by-gid", "--reversible"}, 6 * 6);
}

TEST(PathEngineSim, FatTree108Lmc0) {
  StartFatTree(FatTree(108, false), 0);
  CompareFromSources({"Hca2", "Hca55", "Hca108"});
}

TEST(PathEngineSim, FatTree108Lmc1) {
  StartFatTree(FatTree(108, false), 1);
  CompareFromSources({"Hca2", "Hca55", "Hca108"});
  Compare("Hca55", {"--from", "all", "--by-gid", "--reversible"}, 120 * 120);
}

TEST(PathEngineSim, MixedLinksLmc0) {
  StartFatTree(FatTree(108, true), 0);
  CompareFromSources({"Hca2", "Hca40", "Hca107"});
  // All sources at once: every pair of the fabric.
  Compare("Hca3", {"--from", "all"}, 120 * 120);
}

TEST(PathEngineSim, MixedLinksLmc1) {
  StartFatTree(FatTree(108, true), 1);
  CompareFromSources({"Hca2", "Hca40", "Hca107"});
}

TEST(PathEngineSim, MixedLinksWithQosPartitionsLmc1) {
  std::string partitions = dir.path() + "/partitions.conf";
  FILE* f = fopen(partitions.c_str(), "w");
  CHECK(f != nullptr);
  fputs(kPartitions, f);
  fclose(f);
  StartFatTree(FatTree(54, true), 1, {"-Q", "-P", partitions});
  // The SMDB has what the run is meant to exercise: partition SLs, and
  // Hca2 a full member of 0x0002 where other CAs are limited ones.
  bool sl5 = false;
  for (const auto& p : db.partitions.records) sl5 |= p.pkey == 0x0002 && p.sl == 5;
  CHECK_TEXT(sl5, "partition 0x0002 with SL 5 not in the SMDB");
  CompareFromSources({"Hca2", "Hca20", "Hca53"});
  Compare("Hca3", {"--from", "all", "--lmc-all"}, 60 * 60);
}

// A switch-to-switch link down and up on a small mixed-speed fat tree (2
// leaves of 6 HCAs, 2 spines; uplinks to S1 are 4x EDR, to S2 4x HDR).
// The link taken down is the one L1 routes Hca12 over, so that Hca6 ->
// Hca12 (both 4x HDR) changes rate with the reroute: the engine on the
// stale SMDB must then disagree with the SA.
TEST(PathEngineSim, SwitchLinkDownAndUpKeepPathsEqualToTheSa) {
  ssa::test::FatTreeOptions ft = FatTree(12, true);
  ft.hcas_per_leaf = 6;
  ft.leaf_radix = 8;
  CHECK_EQUAL(2, StartFatTree(ft, 0).spines);
  const std::vector<std::string> sources = {"Hca3", "Hca6", "Hca12"};
  CompareFromSources(sources);
  const Smdb before = db;

  uint64_t l1 = ssa::test::FindNode(before, "L1")->node_guid;
  uint64_t hca12 = ssa::test::FindNode(before, "Hca12")->node_guid;
  uint16_t hca12_lid = ssa::test::FindPort(before, hca12, 1)->base_lid;
  uint8_t port = LftPort(before, l1, hca12_lid);
  CHECK_TEXT(port == 7 || port == 8, std::to_string(port).c_str());  // an uplink
  // A link record changes nothing but the two switch ports, their links
  // and the routes; node, GUID/LID, switch, P_Key and subnet data stay.
  const std::set<std::string> expected = {"links", "ports", "lft_blocks"};

  // Takes L1's `port` link down or up, then waits for the first version
  // after `prev` that has the link (or not) and routes to every LID.
  auto set_link = [&](bool up, const Smdb& prev) {
    std::string why;  // RoutesReachEveryLid's, unused: the wait says what it saw
    int ups = fabric->SubnetUpCount();
    CHECK_OK(up ? fabric->LinkUp("L1", port) : fabric->LinkDown("L1", port));
    CHECK_OK(fabric->WaitSubnetUp(ups + 1, 30s));
    Smdb next;
    CHECK_OK(ssa::test::WaitForVersion(
        plugin.dump_dir(),
        [&](const Smdb& d) {
          return d.global_epoch > prev.global_epoch && HasLink(d, l1, port) == up &&
                 ssa::test::RoutesReachEveryLid(d, &why);
        },
        30s, &next));
    return next;
  };

  // The version without the link whose routes avoid it.
  Smdb down = set_link(false, before);
  CHECK_TEXT(LftPort(down, l1, hca12_lid) != port, "Hca12 still routed over the down link");
  std::set<std::string> changed = CheckNextVersion(before, down);
  STRCMP_EQUAL(Join(expected).c_str(), Join(changed).c_str());
  // Both ends stay in `ports`, down; the link's two records go.
  CHECK_EQUAL(before.links.records.size() - 2, down.links.records.size());
  CHECK_EQUAL(ssa::smdb::kPortDown, ssa::test::FindPort(down, l1, port)->port_state);

  // The stale SMDB is caught: Hca6 -> Hca12 now runs at the other spine's rate.
  {
    std::string out;
    int status = -1;
    CHECK_OK(fabric->Run("Hca6",
                         {kTool, "compare", smdb_file, "--from", Hex16(PortGuid("Hca6")), "--to",
                          Hex16(PortGuid("Hca12"))},
                         &out, &status));
    CHECK_EQUAL_TEXT(1, status, out.c_str());
    CHECK_TEXT(out.find("rate engine=") != std::string::npos, out.c_str());
    STRCMP_EQUAL_TEXT("1", Summary(out)["mismatched"].c_str(), out.c_str());
  }
  UseVersion(down);
  CompareFromSources(sources);

  Smdb up = set_link(true, down);
  changed = CheckNextVersion(down, up);
  STRCMP_EQUAL(Join(expected).c_str(), Join(changed).c_str());
  // Minimum-hop routing puts every route back where it was.
  CHECK_TRUE(ssa::test::SameRecords(before, up));
  UseVersion(up);
  CompareFromSources(sources);
}
