// tree_ops_sim_test.cc: what an operator watches the SSA tree with, on the
// simulated fabric: the metrics files of ibssa (metrics_file in
// ibssa_opts.cfg) and of the plugin (metrics_file= in its options) pass
// promtool and the Python client's parser and follow the tree (a link
// change raises the epochs and the delta counters, a killed parent the
// re-parentings), and ssa-tree --check is OK on a healthy tree, warns when
// an access node dies, and is critical when a stopped one lags or the core
// (OpenSM) is stopped.
//
// Waits poll files and tools until a bound: the bound only ends a hang.
#include <signal.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "test/sim/osm_plugin_util.h"
#include "test/sim/tree_fixture.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/poll.h"
#include "test/support/prom_check.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::test::NumberOf;
using ssa::test::PromSample;
using ssa::test::TreeHarness;
using ssa::test::TreeMember;

namespace {

const std::vector<std::string> kConsumers = {"Hca6", "Hca7", "Hca8", "Hca12"};

}  // namespace

TEST_GROUP_BASE(TreeOpsSim, ssa::test::TreeFixture){
    std::string MetricsOf(const std::string& node){return dir.path() + "/" + node + ".prom";
}

// Core, 2 distribution, 2 access, the consumers; `metrics`: every ibssa
// and the plugin write their metrics files every second.
void StartTree(bool metrics, const std::string& plugin_extra = "") {
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  o.extra_plugin_options = plugin_extra;
  if (metrics)
    o.extra_plugin_options += " metrics_file=" + MetricsOf("core") + " metrics_interval=1";
  CHECK_OK(tree->Start(o));
  for (const char* n : {"Hca2", "Hca3", "Hca4", "Hca5"}) {
    std::string cfg = metrics ? "metrics_file = " + MetricsOf(n) + "\nmetrics_interval = 1\n" : "";
    std::string role =
        std::string(n) == "Hca2" || std::string(n) == "Hca3" ? "distribution" : "access";
    CHECK_OK(tree->StartIbssa(n, role, cfg));
  }
  for (const std::string& c : kConsumers) CHECK_OK(tree->StartConsumer(c));
  CHECK_OK(tree->WaitConsumersAt(kConsumers, tree->smdb().global_epoch, 30s));
}

// A sample of `node`'s metrics file once `ok` holds for it (bounded).
double WaitNodeSample(const std::string& node, const std::string& series,
                      const std::function<bool(double)>& ok) {
  return WaitSample(MetricsOf(node), series, ok);
}

// ssa-tree --check with `args` as Hca10; its exit status, output in *out.
int Check(const std::vector<std::string>& args, std::string* out) {
  int status = -1;
  std::vector<std::string> a = {"--check"};
  a.insert(a.end(), args.begin(), args.end());
  CHECK_OK(tree->RunTreeTool("Hca10", a, out, &status));
  return status;
}
}
;

TEST(TreeOpsSim, MetricsFilesPassPromtoolAndFollowTheTree) {
  StartTree(true);
  double epoch = static_cast<double>(tree->smdb().global_epoch);
  WaitNodeSample("core", "ibssa_core_smdb_epoch", AtLeast(epoch));
  WaitNodeSample("core", "ibssa_core_tree_members{role=\"consumer\"}", AtLeast(4));
  for (const char* n : {"Hca2", "Hca4"}) {
    std::string role = std::string(n) == "Hca2" ? "distribution" : "access";
    WaitNodeSample(n, "ibssa_epoch{role=\"" + role + "\",db=\"smdb\"}", AtLeast(epoch));
  }
  for (const char* n : {"Hca2", "Hca4"})
    CHECK_OK(
        ssa::test::CheckPromFile(MetricsOf(n),
                                 {"ibssa_up", "ibssa_epoch", "ibssa_epoch_age_seconds",
                                  "ibssa_lag_epochs", "ibssa_transfers_sent", "ibssa_sent_bytes",
                                  "ibssa_transfers_received", "ibssa_received_bytes", "ibssa_joins",
                                  "ibssa_join_refusals", "ibssa_reparents", "ibssa_children"},
                                 dir.path()));
  CHECK_OK(ssa::test::CheckPromFile(
      MetricsOf("core"),
      {"ibssa_core_up", "ibssa_core_serving", "ibssa_core_smdb_epoch", "ibssa_core_smdb_versions",
       "ibssa_core_extractions", "ibssa_core_extraction_seconds", "ibssa_core_lock_held_seconds",
       "ibssa_core_version_bytes", "ibssa_core_route_sls", "ibssa_core_tree_members",
       "ibssa_core_joins", "ibssa_core_join_refusals", "ibssa_core_transfers_sent"},
      dir.path()));
  std::string access = ssa::test::ReadFileText(MetricsOf("Hca4"));
  STRCMP_CONTAINS("ibssa_lag_epochs{role=\"access\",behind=\"core\"} 0\n", access.c_str());
  STRCMP_CONTAINS("# TYPE ibssa_transfers_sent_total counter\n", access.c_str());
  // ibssa_children counts members, not their connections (a consumer takes
  // its PRDB and the address database over two).
  {
    std::vector<TreeMember> view;
    CHECK_OK(tree->Tree("Hca10", &view));
    double kids = 0;
    for (const TreeMember& m : view)
      kids += NumberOf(m, "parent_lid") == static_cast<uint64_t>(tree->Lid("Hca4"));
    CHECK(kids > 0);
    WaitNodeSample("Hca4", "ibssa_children{role=\"access\"}",
                   [kids](double v) { return v == kids; });
  }

  // A link change: a new epoch everywhere, carried as deltas.
  const std::string access_delta_in =
      "ibssa_transfers_received_total{role=\"access\",db=\"smdb\",kind=\"delta\"}";
  const std::string access_delta_out = "ibssa_transfers_sent_total{role=\"access\",kind=\"delta\"}";
  const std::string core_delta_bytes = "ibssa_core_version_bytes_total{kind=\"delta\"}";
  double in0 = PromSample(access, access_delta_in), out0 = PromSample(access, access_delta_out);
  std::string core = ssa::test::ReadFileText(MetricsOf("core"));
  double bytes0 = PromSample(core, core_delta_bytes);
  double extractions0 = PromSample(core, "ibssa_core_extractions_total");
  ssa::smdb::Smdb next;
  CHECK_OK(tree->ChangeLink("L1", 7, false, 30s, &next));
  CHECK_OK(tree->WaitConsumersAt(kConsumers, next.global_epoch, 30s));
  double e = static_cast<double>(next.global_epoch);
  WaitNodeSample("core", "ibssa_core_smdb_epoch", AtLeast(e));
  WaitNodeSample("core", core_delta_bytes, AtLeast(bytes0 + 1));
  WaitNodeSample("core", "ibssa_core_extractions_total", AtLeast(extractions0 + 1));
  WaitNodeSample("Hca4", "ibssa_epoch{role=\"access\",db=\"smdb\"}", AtLeast(e));
  WaitNodeSample("Hca4", access_delta_in, AtLeast(in0 + 1));
  WaitNodeSample("Hca4", access_delta_out, AtLeast(out0 + 1));

  // The access node's parent dies: it moves to another one.
  std::vector<TreeMember> ms;
  CHECK_OK(tree->Tree("Hca10", &ms));
  uint64_t parent = 0;
  for (const TreeMember& m : ms)
    if (m.at("role") == "access" && NumberOf(m, "lid") == tree->Lid("Hca4"))
      parent = NumberOf(m, "parent_lid");
  std::string victim = parent == tree->Lid("Hca2") ? "Hca2" : "Hca3";
  CHECK(parent == tree->Lid(victim));
  const std::string reparents = "ibssa_reparents_total{role=\"access\",db=\"smdb\"}";
  double r0 = PromSample(ssa::test::ReadFileText(MetricsOf("Hca4")), reparents);
  CHECK_OK(tree->process(victim)->Kill(SIGKILL));
  WaitNodeSample("Hca4", reparents, AtLeast(r0 + 1));
}

TEST(TreeOpsSim, CheckIsOkOnAHealthyTreeAndWarnsWhenAnAccessNodeDies) {
  StartTree(false);
  std::string out;
  int status = Check({}, &out);
  CHECK_EQUAL_TEXT(0, status, out.c_str());
  // Every member the drawing shows, the core too.
  STRCMP_CONTAINS("SSA TREE OK - 9 members", out.c_str());
  // --watch asks the core too: one drawing, then it ends (--count).
  int status_watch = -1;
  CHECK_OK(tree->RunTreeTool("Hca10", {"--watch", "--count", "1", "--interval", "0.1"}, &out,
                             &status_watch));
  CHECK_EQUAL_TEXT(0, status_watch, out.c_str());
  STRCMP_CONTAINS("--- ", out.c_str());
  STRCMP_CONTAINS("\ncore lid ", out.c_str());
  // Quiet: every member has told the core it holds the core's epoch.
  CHECK(ssa::test::PollUntil(30s, [&] {
    std::vector<TreeMember> view;
    if (!tree->Tree("Hca10", &view).ok() || view.empty()) return false;
    for (const TreeMember& m : view)
      if (m.at("epoch") != view.front().at("epoch")) return false;
    return true;
  }));
  // On a quiet tree it draws once and waits for a change: its own polls
  // (20 in 2 s) move the core's counters, not the tree's state. timeout(1)
  // ends it (status 124) with one drawing.
  CHECK_OK(tree->fabric()->Run(
      "Hca10",
      {"timeout", "2", tree->TreeToolPath(), "--watch", "--count", "3", "--interval", "0.1"}, &out,
      &status_watch));
  CHECK_EQUAL_TEXT(124, status_watch, out.c_str());
  size_t drawings = 0;
  for (size_t at = out.find("--- "); at != std::string::npos; at = out.find("--- ", at + 1))
    ++drawings;
  LONGS_EQUAL_TEXT(1, drawings, ("[" + out + "]").c_str());

  // Its consumers move to the other access node, which has no backup
  // to give them.
  CHECK_OK(tree->process("Hca4")->Kill(SIGKILL));
  bool warned = ssa::test::PollUntil(30s, [&] {
    return Check({}, &out) == 1 && out.find("no backup parent") != std::string::npos;
  });
  CHECK_TEXT(warned, out.c_str());
  STRCMP_CONTAINS("\nSSA TREE WARNING - ", out.c_str());
}

TEST(TreeOpsSim, CheckIsCriticalWhenAStoppedAccessNodeLags) {
  // Leases of 30 s: the stopped node stays in the core's book while it lags.
  StartTree(false, "lease_s=30");
  std::string out;
  CHECK_OK(tree->process("Hca4")->Kill(SIGSTOP));
  ssa::smdb::Smdb next;
  ssa::Status st = tree->ChangeLink("L1", 7, false, 30s, &next);
  std::string who = "access lid " + std::to_string(tree->Lid("Hca4")) + " ";
  bool critical = st.ok() && ssa::test::PollUntil(30s, [&] {
                    return Check({"--grace", "1"}, &out) == 2 &&
                           out.find("CRITICAL: " + who) != std::string::npos;
                  });
  tree->process("Hca4")->Kill(SIGCONT);  // else it could not be stopped at teardown
  CHECK_OK(st);
  CHECK_TEXT(critical, out.c_str());
  STRCMP_CONTAINS(("behind the core's " + std::to_string(next.global_epoch)).c_str(), out.c_str());
}

// OpenSM hung (stopped): its core neither publishes nor answers, which is
// critical; once it runs again the tree is whole again.
TEST(TreeOpsSim, CheckIsCriticalWhileTheCoreIsStopped) {
  StartTree(false);
  std::string out;
  CHECK_EQUAL(0, kill(tree->fabric()->opensm_pid(), SIGSTOP));
  int status = Check({"--timeout", "1000"}, &out);
  kill(tree->fabric()->opensm_pid(), SIGCONT);  // before any check can end the test
  CHECK_EQUAL_TEXT(2, status, out.c_str());
  STRCMP_CONTAINS("SSA TREE CRITICAL - no tree state", out.c_str());
  bool ok = ssa::test::PollUntil(30s, [&] { return Check({}, &out) == 0; });
  CHECK_TEXT(ok, out.c_str());
}
