// fidelity_fixture.h: what the fidelity tests (issue 25: the replica's
// path records against OpenSM's SA) share: a whole SSA tree on a simulated
// fabric (TreeHarness: the plugin as core, one distribution and two access
// nodes), ibacm with the ssa provider on kNode, and the checks: the marks
// `ssa-smdb paths` prints, `ssa-smdb compare` over every pair, our ib_acme
// -T through the daemon, the daemon's SA queries and log.
//
// Test code; single thread (the fabric's rules). Used with
// TEST_GROUP_BASE(<group>, FidelityFixture).
#ifndef IBACM_SSA_TEST_SIM_FIDELITY_FIXTURE_H
#define IBACM_SSA_TEST_SIM_FIDELITY_FIXTURE_H

#include <infiniband/acm.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_fixture.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

namespace fidelity {

using namespace std::chrono_literals;
using ssa::test::IbacmNode;
using ssa::test::TreeHarness;
namespace acm = ssa::acm;

const char kNode[] = "Hca6";  // the node running ibacm with the ssa provider
const std::string kSmdbTool = std::string(ABS_TOP_BUILDDIR) + "/util/smdb_tool/ssa-smdb";
const std::string kOurIbAcme = std::string(ABS_TOP_BUILDDIR) + "/util/ib_acme/ib_acme";

// key=value of a "compare: ..." summary line; -1 if absent.
inline long SummaryValue(const std::string& out, const std::string& key) {
  size_t at = out.rfind(" " + key + "=");
  if (at == std::string::npos) return -1;
  return strtol(out.c_str() + at + key.size() + 2, nullptr, 10);
}

class FidelityFixture : public ssa::test::TreeFixture {
 public:
  std::string smdb_file;
  size_t log_from = 0;  // where the running ibacm's part of its log starts

  // Appended to the plugin's options by StartTree.
  std::string plugin_options;
  // Added to the access nodes' options by StartTree.
  std::string access_options;
  // StartIbacm's program and its extra arguments ("": core/ibacm).
  std::string ibacm_binary;
  std::vector<std::string> ibacm_args;

  void StartTree(TreeHarness::Options o) {
    o.extra_plugin_options += " " + plugin_options;
    CHECK_OK(tree->Start(o));
    CHECK_OK(tree->StartIbssa("Hca2", "distribution"));
    CHECK_OK(tree->StartIbssa("Hca3", "access", access_options));
    CHECK_OK(tree->StartIbssa("Hca4", "access", access_options));
    smdb_file = dir.path() + "/smdb.newest";
    CHECK_OK(tree->smdb().WriteFile(smdb_file));
  }

  // The tree on a torus or mesh (TorusNet) with these OpenSM options.
  void StartOnTorus(const ssa::test::TorusOptions& t, int lmc,
                    const std::vector<std::string>& opensm_args,
                    const std::string& osm_config = "") {
    ssa::test::GeneratedNet net;
    CHECK_OK(ssa::test::TorusNet(t, &net));
    TreeHarness::Options o;
    o.net_text = net.text;
    o.hcas = net.hcas;
    o.lmc = lmc;
    o.osm_config = osm_config;
    o.opensm_args = opensm_args;
    StartTree(o);
  }

  // An x * y torus with `hcas` HCAs per switch routed by `engine`.
  void StartTorus(const std::string& engine, int x = 3, int y = 3, int hcas = 2, int lmc = 0,
                  const std::string& osm_config = "") {
    ssa::test::TorusOptions t;
    t.x = x;
    t.y = y;
    t.hcas_per_switch = hcas;
    // Nue uses more than one VL only with QoS on (it programs the SL2VL).
    std::vector<std::string> args = {"-R", engine};
    if (!osm_config.empty()) args.push_back("-Q");
    StartOnTorus(t, lmc, args, osm_config);
  }

  // The tree tests' 12-HCA fat tree with QoS on, `policy` as the QoS
  // policy file when not empty, `osm_config` in OpenSM's options file.
  void StartQosFatTree(const std::string& policy, const std::string& osm_config = "") {
    TreeHarness::Options o;
    CHECK_OK(TreeHarness::FatTree(12, 0, &o));
    o.opensm_args = {"-Q"};
    o.osm_config = osm_config;
    if (!policy.empty()) {
      std::string path = dir.path() + "/qos-policy.conf";
      std::ofstream(path) << policy;
      o.opensm_args.insert(o.opensm_args.end(), {"-Y", path});
    }
    StartTree(o);
  }

  // `ssa-smdb compare` of every pair, run on kNode, with `query` options:
  // exit 0, no mismatch, nothing marked; returns the pairs that matched.
  long CompareAllEqual(const std::vector<std::string>& query) {
    std::vector<std::string> argv = {kSmdbTool, "compare", smdb_file,     "--from", "all",
                                     "--to",    "all",     "--max-print", "20"};
    argv.insert(argv.end(), query.begin(), query.end());
    int rc = -1;
    std::string out = Run(argv, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "not_exact"), out.c_str());
    return SummaryValue(out, "matched");
  }

  // Paths from every source of the newest SMDB with an SL other than 0.
  size_t PathsWithSlOtherThanZero() {
    int rc = -1;
    std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", "all"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    std::istringstream in(out);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line))
      n += line.find("status=ok") != std::string::npos && line.find(" sl=0 ") == std::string::npos;
    return n;
  }

  // An engine whose path SLs the SMDB carries: nothing marked, every pair
  // equal to the SA (by LID, and as ibacm asks), ibacm answering from its
  // PRDB alone; then a switch-to-switch link goes down, the engine
  // reroutes, and the next SMDB's SLs reach the daemon, still equal to the SA.
  void EngineSlsComeFromTheReplica(const std::string& engine) {
    STRCMP_EQUAL(engine.c_str(), tree->smdb().subnet.records[0].routing_engine.data());
    CHECK(tree->smdb().subnet.records[0].flags & ssa::smdb::kSubnetRouteSls);
    PathsAreMarked("");
    CHECK(PathsWithSlOtherThanZero() > 0);  // the engine does pick SLs here
    CHECK(CompareAllEqual({}) > 0);
    CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
    StartIbacm("none");
    CHECK(StockIbAcmeResolves("Hca10"));
    LONGS_EQUAL(0, RouteQueries());
    DaemonAnswersEqualTheSa();

    TorusLinkDownReachesTheDaemon(1);
    PathsAreMarked("");
    CHECK(CompareAllEqual({"--pkey-from-path"}) > 0);
    DaemonAnswersEqualTheSa();
  }

  // T0_0's +i link goes down (on a torus of `hcas_per_switch`), the engine
  // reroutes, and the next SMDB (written to smdb_file) reaches the daemon.
  void TorusLinkDownReachesTheDaemon(int hcas_per_switch) {
    ssa::smdb::Smdb next;
    CHECK_OK(tree->ChangeLink("T0_0", hcas_per_switch + 1, false, 60s, &next));
    CHECK_OK(next.WriteFile(smdb_file));
    CHECK_OK(ibacm->WaitPrdbEpoch(next.global_epoch, 30s));
  }

  // `addresses`: ibacm's address file (its own names and IPs).
  void StartIbacm(const std::string& fallback,
                  const std::string& addresses = "node6 ibsim0 1 default\n") {
    if (ibacm) ibacm->Stop();
    IbacmNode::Options io;
    io.node = kNode;
    io.addr_cfg = addresses;
    io.opts_cfg =
        "[core]\nlog_level = debug\nprovider = ssa default\nsupport_ips_in_addr_cfg = yes\n"
        "[ssa]\nmad_timeout_ms = 300\nfallback = " +
        fallback + "\n";
    io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
    io.binary = ibacm_binary;
    io.extra_args = ibacm_args;
    ibacm = std::make_unique<IbacmNode>(tree->fabric(), io);
    // A daemon started again appends to the same log: this run's part
    // starts here.
    log_from = ssa::test::ReadFileText(ibacm->log_path()).size();
    CHECK_OK(ibacm->Start());
    CHECK_OK(ibacm->WaitPrdbEpoch(tree->smdb().global_epoch, 30s));
  }

  std::string Lid() { return std::to_string(tree->Lid(kNode)); }
  // Ports with a LID (HCAs and switches): every one a source in `compare`.
  size_t Endpoints() {
    size_t n = 0;
    for (const auto& g : tree->smdb().guid_lids.records) n += g.guid == g.port_guid;
    return n;
  }

  std::string Run(const std::vector<std::string>& argv, int* rc) {
    std::string out;
    CHECK_OK(tree->fabric()->Run(kNode, argv, &out, rc, 120s));
    return out;
  }
  // What `ssa-smdb paths` over the newest SMDB says of kNode -> `node`.
  std::string PathsTo(const std::string& node) {
    int rc = -1;
    return Run(
        {kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", std::to_string(tree->Lid(node))},
        &rc);
  }

  // Every ok line of `ssa-smdb paths` from kNode says `exact=no why=<why>`
  // (or, with `why` empty, no line says exact=no); returns the ok lines.
  size_t PathsAreMarked(const std::string& why) {
    int rc = -1;
    std::string out = Run({kSmdbTool, "paths", smdb_file, "--from", Lid(), "--to", "all"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    std::istringstream in(out);
    std::string line;
    size_t ok = 0;
    while (std::getline(in, line)) {
      if (line.find("status=ok") == std::string::npos) continue;
      ++ok;
      if (why.empty()) {
        CHECK_TEXT(line.find("exact=") == std::string::npos, line.c_str());
      } else {
        std::string tail = " exact=no why=" + why;
        CHECK_TEXT(line.size() > tail.size() &&
                       line.compare(line.size() - tail.size(), tail.size(), tail) == 0,
                   line.c_str());
      }
    }
    CHECK(ok >= 8);
    return ok;
  }

  // `ssa-smdb compare` of every pair of the subnet, run on kNode: exit 0
  // (no mismatch), `not_exact` marked records, of which at least
  // `min_differ` differ from the SA.
  void CompareCountsNotExact(long not_exact, long min_differ) {
    int rc = -1;
    std::string out = Run(
        {kSmdbTool, "compare", smdb_file, "--from", "all", "--to", "all", "--max-print", "0"}, &rc);
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    LONGS_EQUAL_TEXT(0, SummaryValue(out, "mismatched"), out.c_str());
    LONGS_EQUAL_TEXT(not_exact, SummaryValue(out, "not_exact"), out.c_str());
    CHECK_TEXT(SummaryValue(out, "not_exact_differ") >= min_differ, out.c_str());
  }

  // The highest LID any port owns, and how many LIDs ports own.
  void OwnedLids(uint16_t* top, size_t* lids) {
    *top = 0;
    *lids = 0;
    for (const auto& g : tree->smdb().guid_lids.records) {
      if (g.guid != g.port_guid) continue;
      *top = std::max<uint16_t>(*top, static_cast<uint16_t>(g.base_lid + (1u << g.lmc) - 1));
      *lids += size_t{1} << g.lmc;
    }
  }

  // Our ib_acme -T over every assigned LID, through the socket and through
  // libibssa_path: each answer equal to the SA's.
  // `unreachable`: LIDs for which the SA has no record (neither has the
  // daemon: they count as errors, not matches).
  void DaemonAnswersEqualTheSa(size_t unreachable = 0) {
    uint16_t top = 0;
    size_t lids = 0;
    OwnedLids(&top, &lids);
    // Through the socket, then through libibssa_path (--shm: the tables
    // hold the exact records, with SL ranges the library draws from).
    for (const char* via : {"-T", "--shm"}) {
      std::string out;
      int rc = -1;
      CHECK_OK(ssa::test::RunProgram({kOurIbAcme, "-T", via, "-S", ibacm->socket_path(), "-s",
                                      std::to_string(tree->Lid(kNode)), "--lid-range",
                                      "1-" + std::to_string(top), "--verify", "daemon"},
                                     &out, &rc));
      STRCMP_CONTAINS_TEXT("mismatched:   0", out.c_str(), out.c_str());
      STRCMP_CONTAINS_TEXT(("matched:      " + std::to_string(lids - unreachable) + "\n").c_str(),
                           out.c_str(), out.c_str());
    }
  }

  uint64_t RouteQueries() {
    uint64_t n = 0;
    CHECK_OK(ssa::test::DaemonCounter(ibacm->socket_path(), ACM_CNTR_ROUTE_QUERY, &n));
    return n;
  }

  // Lines of the running ibacm's log (this run's part) containing `needle`.
  size_t LogCount(const std::string& needle) {
    std::string text = ssa::test::ReadFileText(ibacm->log_path());
    std::istringstream in(text.size() > log_from ? text.substr(log_from) : std::string());
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
    return n;
  }

  // Debian's stock ib_acme resolves kNode -> `node` through the daemon;
  // true when it printed a record.
  bool StockIbAcmeResolves(const std::string& node) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", ibacm->socket_path(), "-f", "l", "-s",
                                    Lid(), "-d", std::to_string(tree->Lid(node))},
                                   &out, &rc));
    return rc == 0 && out.find("dlid:") != std::string::npos;
  }

  // The SL of the record Debian's stock ib_acme gets for kNode -> `dlid`
  // through the daemon; -1 when it got none.
  int StockIbAcmeSl(const std::string& dlid) {
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram(
        {"/usr/bin/ib_acme", "-S", ibacm->socket_path(), "-f", "l", "-s", Lid(), "-d", dlid}, &out,
        &rc));
    size_t at = out.find("\n  sl: ");
    if (rc != 0 || at == std::string::npos) return -1;
    return atoi(out.c_str() + at + 7);
  }

  // The safety rule end to end for records marked `why` (`reason_text`:
  // the daemon's log line). With `sa_deterministic`, every daemon answer
  // must equal a fresh SA answer; dfsssp's SA is not (see below).
  void MarkedRecordsGoToTheSaOrFail(const std::string& why, const std::string& reason_text,
                                    long min_differ, bool sa_deterministic) {
    size_t marked = PathsAreMarked(why);
    CompareCountsNotExact(static_cast<long>(marked * Endpoints()), min_differ);

    StartIbacm("sa");
    CHECK(StockIbAcmeResolves("Hca10"));
    LONGS_EQUAL(1, RouteQueries());  // the SA answered the marked record
    if (sa_deterministic) DaemonAnswersEqualTheSa();
    LONGS_EQUAL(1, LogCount(reason_text + "; asking the SA instead (logged once)"));

    StartIbacm("none");
    // A destination the PRDB holds, marked: an error, not the record.
    CHECK(!StockIbAcmeResolves("Hca10"));
    CHECK(!StockIbAcmeResolves("Hca1"));
    LONGS_EQUAL(0, RouteQueries());
    LONGS_EQUAL(1, LogCount(reason_text + "; answering ENODATA (fallback = none) (logged once)"));
  }
};

}  // namespace fidelity

#endif
