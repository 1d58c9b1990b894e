// harness_test.cc: the simulated-fabric harness on real ibsim + OpenSM.
// Each test brings up a small fabric (well under a second) and checks what
// node processes see through libibumad tools (ibstat, ibnetdiscover).
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "test/sim/netgen.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_console.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_test_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/support/tool_output.h"

#include <CppUTest/TestHarness.h>

using namespace ssa::test;
using namespace std::chrono_literals;

namespace {

SimFabric::Options FourHcaOptions() {
  SimFabric::Options o;
  o.net_text = FourHcaNet();
  return o;
}

SimFabric::Options SmallTreeOptions() {
  FatTreeOptions t;
  t.hcas = 6;
  t.hcas_per_leaf = 3;
  t.uplinks_per_leaf = 2;
  t.leaf_radix = 8;
  GeneratedNet g;
  CHECK_OK(FatTreeNet(t, &g));
  SimFabric::Options o;
  o.net_text = g.text;
  o.ibsim_args = g.ibsim_args;
  return o;
}

size_t AttachedCount(SimFabric& f) {
  std::string reply;
  CHECK_OK(f.Console("Attached", &reply));
  return ParseAttached(reply).size();
}

}  // namespace

TEST_GROUP(Harness) {
  std::unique_ptr<SimFabric> fabric;
  std::unique_ptr<SimFabric> other;
  std::vector<std::unique_ptr<SimProcess>> procs;

  void teardown() override {
    procs.clear();
    bool failed = UtestShell::getCurrent()->hasFailed();
    for (auto* f : {&fabric, &other}) {
      if (!*f) continue;
      if (failed) {
        (*f)->set_failed();
        fprintf(stderr, "run directory kept: %s\n", (*f)->run_dir().c_str());
      }
      (*f)->Stop();
      f->reset();
    }
  }

  IbstatPort Ibstat(SimFabric & f, const std::string& node) {
    std::string out;
    CHECK_OK(f.Run(node, {"ibstat"}, &out, nullptr));
    return ParseIbstat(out);
  }

  DiscoveredNodes Discover(SimFabric & f, const std::string& node) {
    std::string out;
    CHECK_OK(f.Run(node, {"ibnetdiscover"}, &out, nullptr));
    return ParseIbnetdiscover(out);
  }

  int RunSimfabNode(SimFabric & f, const std::string& node, const std::vector<std::string>& cmd,
                    std::string* out) {
    std::vector<std::string> argv = {SIMFAB_BIN, "node", node, "--"};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    int code = -1;
    CHECK_OK(RunLocal(argv, {{"SIMFAB_DIR", f.run_dir()}}, out, &code));
    return code;
  }
};

TEST(Harness, FourHcaComesUp) {
  CHECK_OK(SimFabric::Start(FourHcaOptions(), &fabric));
  CHECK_TRUE(fabric->SubnetUpCount() >= 1);
  STRCMP_EQUAL("Hca1", fabric->sm_node().c_str());
  IbstatPort sm = Ibstat(*fabric, "Hca1");
  IbstatPort h2 = Ibstat(*fabric, "Hca2");
  IbstatPort h3 = Ibstat(*fabric, "Hca3");
  STRCMP_EQUAL("Active", h2.state.c_str());
  STRCMP_EQUAL("Active", h3.state.c_str());
  STRCMP_EQUAL("LinkUp", h2.physical_state.c_str());
  CHECK_TRUE(h2.lid > 0);
  CHECK_TRUE(h3.lid > 0);
  CHECK_TRUE(h2.lid != h3.lid);
  CHECK_TRUE(h2.port_guid != h3.port_guid);
  CHECK_TRUE(sm.lid > 0);
  CHECK_EQUAL(sm.lid, h2.sm_lid);
  CHECK_EQUAL(sm.lid, h3.sm_lid);

  // A clean Stop kills what it started and removes the run directory.
  std::string dir = fabric->run_dir(), sock = fabric->sock_name();
  pid_t ibsim = fabric->ibsim_pid(), opensm = fabric->opensm_pid();
  CHECK_OK(fabric->Stop());
  CHECK_FALSE(IsPidAlive(ibsim));
  CHECK_FALSE(IsPidAlive(opensm));
  CHECK_FALSE(PathExists(dir));
  CHECK_TRUE(ProcessesOnFabric(sock).empty());
}

TEST(Harness, StartFailureReportsWhyAndKeepsTheRunDir) {
  SimFabric::Options o;
  o.net_text = "Hca\t1 \"A\"\n[1]\t\"B\"[1]\n";  // B does not exist: ibsim gives up
  ssa::Status s = SimFabric::Start(o, &fabric);
  CHECK_FALSE(s.ok());
  CHECK_TRUE(fabric == nullptr);
  STRCMP_CONTAINS("ibsim exited", s.message().c_str());
  STRCMP_CONTAINS("can't find remote node \"B\"", s.message().c_str());
  size_t at = s.message().find("run directory kept: ");
  CHECK_TRUE(at != std::string::npos);
  std::string dir = s.message().substr(at + 20, s.message().find(')', at) - at - 20);
  CHECK_TRUE(PathExists(dir + "/ibsim.out"));
  CHECK_OK(RemoveTree(dir));
}

TEST(Harness, TwoFabricsIsolated) {
  CHECK_OK(SimFabric::Start(FourHcaOptions(), &fabric));
  CHECK_OK(SimFabric::Start(SmallTreeOptions(), &other));
  CHECK_TRUE(fabric->sock_name() != other->sock_name());
  CHECK_TRUE(fabric->run_dir() != other->run_dir());

  DiscoveredNodes four = Discover(*fabric, "Hca2");
  DiscoveredNodes tree = Discover(*other, "Hca2");
  CHECK_EQUAL(2, four.switches);
  CHECK_EQUAL(4, four.cas);
  CHECK_EQUAL(4, tree.switches);  // 2 leaves + 2 spines
  CHECK_EQUAL(6, tree.cas);
  auto has = [](const DiscoveredNodes& d, const char* name) {
    for (const std::string& s : d.descriptions)
      if (s == name) return true;
    return false;
  };
  CHECK_TRUE(has(four, "Switch1") && !has(four, "L1"));
  CHECK_TRUE(has(tree, "L1") && !has(tree, "Switch1"));
  CHECK_TRUE(has(tree, "Hca6") && !has(four, "Hca6"));

  // Each fabric's OpenSM is its own SM; node names are checked per fabric.
  STRCMP_EQUAL("Active", Ibstat(*other, "Hca6").state.c_str());
  std::unique_ptr<SimProcess> p;
  ssa::Status s = fabric->Spawn("Hca6", {"ibstat"}, &p);
  CHECK_EQUAL(-EINVAL, s.code());
}

TEST(Harness, ProcessLimit) {
  CHECK_OK(SimFabric::Start(FourHcaOptions(), &fabric));
  // OpenSM holds one slot; 8 long-lived attached processes (ibsysstat -S is a
  // umad server that idles) through the C++ API...
  const char* nodes[] = {"Hca2", "Hca3", "Hca4"};
  for (int i = 0; i < 8; ++i) {
    procs.emplace_back();
    CHECK_OK(fabric->Spawn(nodes[i % 3], {"ibsysstat", "-S"}, &procs.back()));
  }
  // ...and one through `simfab node`, which shares the same slots.
  LaunchSpec spec;
  spec.argv = {SIMFAB_BIN, "node", "Hca3", "--", "ibsysstat", "-S"};
  spec.env = {{"SIMFAB_DIR", fabric->run_dir()}};
  spec.output_path = fabric->run_dir() + "/cli-node.out";
  pid_t cli = 0;
  CHECK_OK(LaunchChild(spec, &cli));
  CHECK_TRUE(PollUntil(10s, [&] { return AttachedCount(*fabric) == 10; }));
  CHECK_EQUAL(10u, fabric->SlotHolders().size());

  // The 11th: a clear error from Spawn, Run and `simfab node` alike.
  std::unique_ptr<SimProcess> eleventh;
  ssa::Status s = fabric->Spawn("Hca2", {"ibstat"}, &eleventh);
  CHECK_EQUAL(-EBUSY, s.code());
  STRCMP_CONTAINS("allows 10 attached processes (OpenSM included); 10 are in use",
                  s.message().c_str());
  STRCMP_CONTAINS("on Hca1: opensm", s.message().c_str());
  CHECK_EQUAL(-EBUSY, fabric->Run("Hca2", {"ibstat"}, nullptr, nullptr).code());
  std::string out;
  CHECK_EQUAL(75, RunSimfabNode(*fabric, "Hca2", {"ibstat"}, &out));
  STRCMP_CONTAINS("allows 10 attached processes", out.c_str());

  // SIGKILL the `simfab node` process: ibsim keeps its client (no clean
  // detach), so ibsim is still full...
  kill(cli, SIGKILL);
  int st;
  CHECK_TRUE(WaitForExit(cli, 10s, &st));
  CHECK_EQUAL(10u, AttachedCount(*fabric));
  // ...but the next claimer of that slot frees the stale client first, so
  // this does not die with "sim_init: connect failed".
  STRCMP_EQUAL("Active", Ibstat(*fabric, "Hca2").state.c_str());

  // A spawned process killed by a signal frees its ibsim client at once.
  CHECK_OK(procs[0]->Kill(SIGKILL));
  int code = 0;
  CHECK_OK(procs[0]->Wait(10s, &code));
  CHECK_EQUAL(128 + SIGKILL, code);
  CHECK_EQUAL(8u, AttachedCount(*fabric));  // OpenSM + 7
  CHECK_EQUAL(0, RunSimfabNode(*fabric, "Hca4", {"ibstat"}, &out));
  STRCMP_EQUAL("Active", ParseIbstat(out).state.c_str());
}

TEST(Harness, LinkDownUp) {
  CHECK_OK(SimFabric::Start(FourHcaOptions(), &fabric));
  const int ups = fabric->SubnetUpCount();
  IbstatPort before = Ibstat(*fabric, "Hca4");

  CHECK_OK(fabric->LinkDown("Hca4"));
  CHECK_OK(fabric->WaitSubnetUp(ups + 1, 10s));
  IbstatPort h2 = Ibstat(*fabric, "Hca2");  // a new process on another node
  STRCMP_EQUAL("Active", h2.state.c_str());
  CHECK_TRUE(h2.lid > 0);
  STRCMP_EQUAL("Down", Ibstat(*fabric, "Hca4").state.c_str());
  CHECK_EQUAL(3, Discover(*fabric, "Hca2").cas);

  CHECK_OK(fabric->LinkUp("Hca4"));
  CHECK_OK(fabric->WaitSubnetUp(ups + 2, 10s));
  IbstatPort after = Ibstat(*fabric, "Hca4");
  STRCMP_EQUAL("Active", after.state.c_str());
  CHECK_EQUAL(before.lid, after.lid);  // OpenSM keeps a port's LID
  CHECK_EQUAL(4, Discover(*fabric, "Hca2").cas);

  // One of the two parallel inter-switch links: still one fabric.
  CHECK_OK(fabric->LinkDown("Switch1", 3));
  CHECK_OK(fabric->WaitSubnetUp(ups + 3, 10s));
  CHECK_EQUAL(4, Discover(*fabric, "Hca1").cas);
  CHECK_OK(fabric->LinkUp("Switch1", 3));
  CHECK_OK(fabric->WaitSubnetUp(ups + 4, 10s));

  // Dump's "# Net status" lines are output, ibsim's own errors are errors.
  std::string dump;
  CHECK_OK(fabric->Console("Dump \"Hca4\"", &dump));
  STRCMP_CONTAINS("Active/LinkUp", dump.c_str());
  CHECK_EQUAL(-EINVAL, fabric->LinkDown("Hca9").code());
  ssa::Status s = fabric->Console("Unlink \"Hca4\"[3]");
  CHECK_FALSE(s.ok());
  STRCMP_CONTAINS("can't unlink port 3", s.message().c_str());
}

TEST(Harness, StopKillsWhatCliNodesStarted) {
  CHECK_OK(SimFabric::Start(FourHcaOptions(), &fabric));
  const std::string sock = fabric->sock_name();
  // A `simfab node` process (not our child's child: it execs) that forks a
  // background process, which inherits the slot and the environment.
  LaunchSpec spec;
  spec.argv = {SIMFAB_BIN, "node", "Hca2", "--", "sh", "-c", "sleep 1000 & exec sleep 1001"};
  spec.env = {{"SIMFAB_DIR", fabric->run_dir()}};
  pid_t pid = 0;
  CHECK_OK(LaunchChild(spec, &pid));
  // ibsim, OpenSM and the two sleeps.
  CHECK_TRUE(PollUntil(10s, [&] { return ProcessesOnFabric(sock).size() == 4; }));
  CHECK_OK(fabric->Stop());
  CHECK_TRUE(ProcessesOnFabric(sock).empty());
  int st = 0;
  CHECK_TRUE(WaitForExit(pid, 10s, &st));
  CHECK_TRUE(WIFSIGNALED(st));
}

TEST(Harness, CliRunsCommandAndTearsDown) {
  // simfab run: the command sees the fabric, drives it, and its status is ours.
  std::string out;
  int code = -1;
  const char* script =
      "set -e; echo dir=$SIMFAB_DIR sock=$IBSIM_SOCKNAME;"
      "$SIMFAB_BIN node Hca3 -- ibstat | grep -q 'State: Active';"
      "$SIMFAB_BIN link-down Hca3; $SIMFAB_BIN node Hca2 -- ibstat | grep -q 'State: Active';"
      "$SIMFAB_BIN link-up Hca3; test $($SIMFAB_BIN up-count) -ge 3;"
      "$SIMFAB_BIN node Hca2 -- sleep 1000 & "
      "for i in $(seq 200); do $SIMFAB_BIN attached | grep -q 'on Hca2: sleep 1000' && exit 7;"
      "  sleep 0.05; done; exit 1";
  CHECK_OK(RunLocal({SIMFAB_BIN, "run", "--", "sh", "-c", script}, {}, &out, &code, 60s));
  CHECK_EQUAL(7, code);
  size_t at = out.find("dir=");
  CHECK_TRUE(at != std::string::npos);
  std::string dir = out.substr(at + 4, out.find(' ', at) - at - 4);
  std::string sock = out.substr(out.find("sock=") + 5, out.find('\n', at) - out.find("sock=") - 5);
  // The background node process was killed at teardown; a failed command
  // keeps the run directory.
  CHECK_TRUE(ProcessesOnFabric(sock).empty());
  CHECK_TRUE(PathExists(dir + "/osm.log"));
  STRCMP_CONTAINS("run directory kept", out.c_str());
  RemoveTree(dir);
}
