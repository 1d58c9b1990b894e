// The OpenSM plugin (opensm_plugin/) loaded into a real OpenSM on simulated
// fabrics: the SMDB it dumps after SUBNET UP matches the fabric (ibstat on
// the nodes, LFTs that route every LID); a link taken down and back yields
// versions whose changed tables, and only those, have new epochs, with
// deltas that reproduce each version byte for byte; a bad option makes it
// refuse to load while OpenSM runs on; LMC 1 and mixed link speeds extract.
// Plus the option parser on its own.
#include <unistd.h>

#include <fstream>
#include <set>

#include "common/smdb/smdb_delta.h"
#include "opensm_plugin/plugin_options.h"
#include "test/sim/fabric_fixture.h"
#include "test/sim/netgen.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_test_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/support/tool_output.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::Status;
using ssa::smdb::Smdb;
using ssa::test::PluginSetup;
using ssa::test::SimFabric;
using ssa::test::TempDir;

namespace {

constexpr auto kVersionTimeout = 30s;

bool HasHcas(const Smdb& db, int n) {
  int cas = 0;
  for (const auto& node : db.nodes.records) cas += node.node_type == ssa::smdb::kNodeCa;
  return cas == n;
}

// A value from ibstat output, e.g. "LMC: 1" -> "1".
std::string IbstatField(const std::string& text, const std::string& label) {
  size_t at = text.find(label + ":");
  if (at == std::string::npos) return "";
  size_t b = text.find_first_not_of(' ', at + label.size() + 1);
  size_t e = text.find('\n', b);
  return text.substr(b, e - b);
}

// The file at `path` (OpenSM's log) holds `text`.
void LogHolds(const std::string& path, const std::string& text) {
  std::string log = ssa::test::ReadFileText(path);
  CHECK_TEXT(log.find(text) != std::string::npos, log.c_str());
}

}  // namespace

TEST_GROUP_BASE(OsmPluginSim, ssa::test::PluginFabricFixture){
    void Start(SimFabric::Options o,
               const std::string& plugin_options){CHECK_OK(plugin.Configure(plugin_options, &o));
CHECK_OK(SimFabric::Start(o, &fabric));
}
Smdb WaitFor(const std::function<bool(const Smdb&)>& pred) {
  Smdb db;
  CHECK_OK(ssa::test::WaitForVersion(plugin.dump_dir(), pred, kVersionTimeout, &db));
  return db;
}
Smdb ReadVersion(uint64_t epoch) {
  Smdb db;
  CHECK_OK(Smdb::ReadFile(plugin.dump_dir() + "/smdb." + std::to_string(epoch), &db));
  return db;
}
std::string Run(const std::string& node, const std::vector<std::string>& argv) {
  std::string out;
  int status = -1;
  CHECK_OK(fabric->Run(node, argv, &out, &status));
  CHECK_EQUAL_TEXT(0, status, out.c_str());
  return out;
}
void CheckRoutes(const Smdb& db) {
  std::string why;
  CHECK_TEXT(ssa::test::RoutesReachEveryLid(db, &why), why.c_str());
}
}
;

TEST(OsmPluginSim, DumpAfterSubnetUpMatchesTheFabric) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  Start(o, plugin.DefaultOptions());
  Smdb db = WaitFor([](const Smdb& d) { return HasHcas(d, 4); });

  CHECK_EQUAL(1u, db.global_epoch);
  CHECK_EQUAL(6u, db.nodes.records.size());
  CHECK_EQUAL(2u, db.switches.records.size());
  CHECK_EQUAL(3, db.subnet.records[0].sm_state);  // master
  STRCMP_EQUAL("minhop", db.subnet.records[0].routing_engine.data());
  // Two HCAs per switch, two switch-to-switch links; both directions.
  CHECK_EQUAL(12u, db.links.records.size());
  // The default partition, and a P_Key table on every active port.
  CHECK_EQUAL(1u, db.partitions.records.size());
  CHECK_EQUAL(0x7fff, db.partitions.records[0].pkey);

  for (const std::string node : {"Hca1", "Hca2", "Hca3", "Hca4"}) {
    ssa::test::IbstatPort ib = ssa::test::ParseIbstat(Run(node, {"ibstat"}));
    uint64_t guid = strtoull(ib.port_guid.c_str(), nullptr, 0);
    const ssa::smdb::SmdbGuidLid* rec = nullptr;
    for (const auto& g : db.guid_lids.records)
      if (g.guid == guid) rec = &g;
    CHECK_TEXT(rec != nullptr, (node + " port GUID " + ib.port_guid + " not in guid_lids").c_str());
    CHECK_EQUAL_TEXT(ib.lid, rec->base_lid, node.c_str());
    CHECK_EQUAL_TEXT(ib.sm_lid, db.subnet.records[0].sm_lid, node.c_str());
    const ssa::smdb::SmdbNode* n = ssa::test::FindNode(db, node);
    CHECK_TEXT(n != nullptr, node.c_str());
    const ssa::smdb::SmdbPort* p = ssa::test::FindPort(db, n->node_guid, 1);
    CHECK_TEXT(p != nullptr, node.c_str());
    CHECK_EQUAL(guid, p->port_guid);
    CHECK_EQUAL(ib.lid, p->base_lid);
    CHECK_EQUAL(ssa::smdb::kPortActive, p->port_state);
    CHECK(p->pkey_table_id != ssa::smdb::kNoPkeyTable);
  }
  CheckRoutes(db);

  // The file behind `latest` is smdb.1, and OpenSM's log tells the story.
  Smdb first = ReadVersion(1);
  CHECK_TRUE(first == db);
  LogHolds(fabric->osm_log_path(), "ibssa_osm: loaded into OpenSM 3.3.23");
  CHECK_OK(
      ssa::test::WaitForLogLine(fabric->osm_log_path(), "ibssa_osm: epoch 1: tables changed:", 5s));
  CHECK_OK(ssa::test::WaitForLogLine(plugin.log_file(), "epoch 1: tables changed:", 5s));
}

TEST(OsmPluginSim, LinkDownAndUpChangeOnlyTheChangedTablesAndDeltasReproduceVersions) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  Start(o, plugin.DefaultOptions());
  Smdb before = WaitFor([](const Smdb& d) { return HasHcas(d, 4); });
  const ssa::smdb::SmdbNode* hca4 = ssa::test::FindNode(before, "Hca4");
  CHECK(hca4 != nullptr);
  uint64_t hca4_guid = hca4->node_guid;
  auto has_hca4 = [hca4_guid](const Smdb& d) {
    for (const auto& n : d.nodes.records)
      if (n.node_guid == hca4_guid) return true;
    return false;
  };

  CHECK_OK(fabric->LinkDown("Hca4"));
  Smdb down = WaitFor([&](const Smdb& d) { return !has_hca4(d); });
  CHECK_OK(fabric->LinkUp("Hca4"));
  Smdb up =
      WaitFor([&](const Smdb& d) { return d.global_epoch > down.global_epoch && has_hca4(d); });

  // The fabric is back as it was: same records, newer epochs.
  CHECK_TRUE(ssa::test::SameRecords(before, up));
  CheckRoutes(down);
  CheckRoutes(up);

  // Every consecutive pair of versions in the dump directory.
  std::vector<uint64_t> epochs = ssa::test::ListVersions(plugin.dump_dir());
  CHECK_TRUE(epochs.size() >= 3);
  std::set<std::string> changed_on_down;
  for (size_t i = 1; i < epochs.size(); ++i) {
    Smdb a = ReadVersion(epochs[i - 1]), b = ReadVersion(epochs[i]);
    std::string at = "epoch " + std::to_string(epochs[i]);
    // Versions are written only when something changed, one epoch apart.
    CHECK_EQUAL_TEXT(a.global_epoch + 1, b.global_epoch, at.c_str());
    auto ta = ssa::test::TablesOf(a), tb = ssa::test::TablesOf(b);
    int changed = 0;
    for (const auto& kv : tb) {
      const std::string& name = kv.first;
      std::string where = at + " table " + name;
      if (kv.second.records == ta[name].records) {
        CHECK_EQUAL_TEXT(ta[name].epoch, kv.second.epoch, where.c_str());
      } else {
        CHECK_EQUAL_TEXT(b.global_epoch, kv.second.epoch, where.c_str());
        ++changed;
        if (b.global_epoch == down.global_epoch) changed_on_down.insert(name);
      }
    }
    CHECK_TEXT(changed > 0, at.c_str());

    // The plugin's delta file, and one made here, both reproduce b exactly.
    for (const Smdb& applied : CheckDeltasReproduce(a, b)) CHECK_TRUE(applied == b);
  }
  // Taking Hca4 away changes its node, ports, links, GUID and routes; the
  // subnet options, partitions and P_Key tables stay as they were.
  for (const char* t : {"nodes", "ports", "links", "guid_lids", "lft_blocks"})
    CHECK_TEXT(changed_on_down.count(t), t);
  for (const char* t : {"subnet", "partitions", "pkey_blocks", "prefix_routes"})
    CHECK_TEXT(!changed_on_down.count(t), t);
}

TEST(OsmPluginSim, BadOptionRefusesToLoadAndOpenSmRunsOn) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  Start(o, "dump_dir=" + plugin.dump_dir() + " bogus=1");
  std::string log = ssa::test::ReadFileText(fabric->osm_log_path());
  CHECK_TEXT(log.find("ibssa_osm: ERROR: not loaded: bad event_plugin_options: "
                      "event_plugin_options:2: unknown option 'bogus'") != std::string::npos,
             log.c_str());
  CHECK_TEXT(log.find("ibssa_osm: loaded") == std::string::npos, log.c_str());
  CHECK_TEXT(log.find("cannot load plugin 'ibssa_osm'") != std::string::npos, log.c_str());
  // OpenSM keeps sweeping without the plugin: a link change still brings
  // the subnet up again, and nothing was dumped.
  int ups = fabric->SubnetUpCount();
  CHECK_OK(fabric->LinkDown("Hca4"));
  CHECK_OK(fabric->WaitSubnetUp(ups + 1, 10s));
  CHECK_OK(fabric->CheckAlive());
  CHECK_TRUE(access(plugin.dump_dir().c_str(), F_OK) != 0);
}

TEST(OsmPluginSim, UnusableDumpDirRefusesToLoad) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  Start(o, "dump_dir=/proc/ibssa_osm_test log_file=" + plugin.log_file());
  LogHolds(fabric->osm_log_path(),
           "ibssa_osm: ERROR: not loaded: dump_dir: cannot create directory /proc/ibssa_osm_test");
  CHECK_OK(fabric->CheckAlive());
}

TEST(OsmPluginSim, AFederationFileMistakeRefusesToLoadNamingTheLine) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  std::string fed = plugin.dir + "/fed.conf";
  CHECK_OK(ssa::test::WriteStringToFile(fed, "listen 0.0.0.0:7475\npeer b 10.0.0.2:7475 zz k\n"));
  Start(o, "dump_dir=" + plugin.dump_dir() + " federation_file=" + fed);
  LogHolds(fabric->osm_log_path(), "ibssa_osm: ERROR: not loaded: the SSA tree's core: " + fed +
                                       ":2: peer b: 'zz' is not a subnet prefix");
  CHECK_OK(fabric->CheckAlive());
}

TEST(OsmPluginSim, LmcOneGivesEveryPortTwoRoutedLids) {
  SimFabric::Options o;
  o.net_text = ssa::test::FourHcaNet();
  o.opensm_args = {"-l", "1"};
  Start(o, plugin.DefaultOptions());
  Smdb db = WaitFor([](const Smdb& d) { return HasHcas(d, 4); });
  CHECK_EQUAL(1, db.subnet.records[0].lmc);
  int ca_ports = 0;
  for (const auto& p : db.ports.records) {
    if (p.port_guid == 0 || p.base_lid == 0) continue;
    const ssa::smdb::SmdbNode* n = nullptr;
    for (const auto& node : db.nodes.records)
      if (node.node_guid == p.node_guid) n = &node;
    if (n->node_type != ssa::smdb::kNodeCa) continue;
    ++ca_ports;
    CHECK_EQUAL(1, p.lmc);
    CHECK_EQUAL(0, p.base_lid % 2);  // LMC-aligned
  }
  CHECK_EQUAL(4, ca_ports);
  std::string ib = Run("Hca2", {"ibstat"});
  CHECK_EQUAL("1", IbstatField(ib, "LMC"));
  CheckRoutes(db);  // base and base + 1 of every CA port
}

TEST(OsmPluginSim, MixedLinkFatTreeExtractsEveryRate) {
  ssa::test::FatTreeOptions ft;
  ft.hcas = 36;
  ft.mixed_links = true;
  ssa::test::GeneratedNet net;
  CHECK_OK(ssa::test::FatTreeNet(ft, &net));
  ssa::test::NetDescription desc;
  CHECK_OK(ssa::test::ParseNet(net.text, &desc));
  SimFabric::Options o;
  o.net_text = net.text;
  o.ibsim_args = net.ibsim_args;
  Start(o, plugin.DefaultOptions());
  Smdb db = WaitFor([&](const Smdb& d) { return HasHcas(d, net.hcas); });
  CHECK_EQUAL(static_cast<size_t>(net.nodes), db.nodes.records.size());
  CHECK_EQUAL(static_cast<size_t>(net.switches), db.switches.records.size());
  CHECK_EQUAL(desc.links.size(), db.links.records.size());  // both directions of every link
  std::set<int> rates, ext_speeds, widths;
  for (const auto& p : db.ports.records) {
    if (p.port_state != ssa::smdb::kPortActive) continue;
    rates.insert(p.rate);
    ext_speeds.insert(p.link_speed_ext_active);
    widths.insert(p.link_width_active);
  }
  CHECK_TRUE(rates.size() >= 4);
  CHECK_TRUE(ext_speeds.size() >= 3);  // none, FDR, EDR, HDR
  CHECK_TRUE(widths.size() >= 3);      // 1x, 4x, 12x
  CheckRoutes(db);
}

TEST_GROUP(OsmPluginOptions) {
  TempDir dir;
  ssa::opensm_plugin::PluginOptions o;
  Status Parse(const std::string& text) { return ssa::opensm_plugin::ParsePluginOptions(text, &o); }
};

TEST(OsmPluginOptions, DefaultsWithoutOptions) {
  CHECK_OK(Parse(""));
  CHECK_TRUE(o.dump_dir.empty());
  CHECK_EQUAL(8, o.keep);
  CHECK_FALSE(o.log_file_given);
}

TEST(OsmPluginOptions, WordsSplitOnBlanksAndCommas) {
  CHECK_OK(Parse("dump_dir=/x, keep=3\tlog_level=debug,write_deltas=no"));
  STRCMP_EQUAL("/x", o.dump_dir.c_str());
  CHECK_EQUAL(3, o.keep);
  CHECK_TRUE(o.log_level == ssa::LogLevel::kDebug);
  CHECK_FALSE(o.write_deltas);
}

TEST(OsmPluginOptions, ConfigFileValuesAreOverriddenByTheString) {
  std::string path = dir.path() + "/ibssa_osm.conf";
  std::ofstream(path) << "# comment\ndump_dir /from/file\nkeep = 5\nlog_file=/f.log  # trailing\n";
  CHECK_OK(Parse("config=" + path + " keep=2"));
  STRCMP_EQUAL("/from/file", o.dump_dir.c_str());
  CHECK_EQUAL(2, o.keep);
  STRCMP_EQUAL("/f.log", o.log_file.c_str());
  CHECK_TRUE(o.log_file_given);
  STRCMP_EQUAL(path.c_str(), o.config_file.c_str());
}

// metrics_file= is written by the core's thread: without the core nothing
// would write it, so the plugin refuses to load rather than say nothing.
TEST(OsmPluginOptions, MetricsFileAndIntervalNeedTheCore) {
  CHECK_OK(Parse("metrics_file=/run/m/ibssa_osm.prom metrics_interval=5"));
  STRCMP_EQUAL("/run/m/ibssa_osm.prom", o.metrics_file.c_str());
  CHECK_EQUAL(5, o.metrics_interval);
  STRCMP_CONTAINS("metrics_file=/run/m/ibssa_osm.prom metrics_interval=5", o.Describe().c_str());
  Status st = Parse("metrics_file=/run/m/ibssa_osm.prom core=0");
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("metrics_file needs core=1", st.message().c_str());
  st = Parse("metrics_interval=0");
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("metrics_interval", st.message().c_str());
}

TEST(OsmPluginOptions, ErrorsNameTheProblem) {
  Status st = Parse("keep=-1");
  CHECK_FALSE(st.ok());
  CHECK_TEXT(st.message().find("bad value for 'keep'") != std::string::npos, st.message().c_str());
  st = Parse("dump_dir");
  CHECK_TEXT(st.message().find("expected key=value") != std::string::npos, st.message().c_str());
  st = Parse("log_file=syslog");
  CHECK_FALSE(st.ok());
  st = Parse("config=" + dir.path() + "/missing.conf");
  CHECK_TEXT(st.message().find("missing.conf") != std::string::npos, st.message().c_str());
  std::string path = dir.path() + "/bad.conf";
  std::ofstream(path) << "keep 1\nfrobnicate 2\n";
  st = Parse("config=" + path);
  CHECK_TEXT(st.message().find("bad.conf:2: unknown option 'frobnicate'") != std::string::npos,
             st.message().c_str());
}
