// harness_failure_test.cc: a test process that fails, aborts or is killed
// while its fabric runs must not leave ibsim, OpenSM or node processes behind.
//
// The parent tests re-execute this binary to run HarnessChild's one test (an
// IGNORE_TEST, so a normal run skips it; -ri runs it). The child starts a
// fabric and a node process, writes "run_dir sock ibsim_pid opensm_pid
// node_pid" to $SIMFAB_CHILD_REPORT, then ends the way $SIMFAB_CHILD_MODE says.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "test/sim/netgen.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

#include <CppUTest/TestHarness.h>

using namespace ssa::test;
using namespace std::chrono_literals;

// ---------------------------------------------------------------- child side

TEST_GROUP(HarnessChild) {
  std::unique_ptr<SimFabric> fabric;
  std::unique_ptr<SimProcess> node;
  void teardown() override {
    // What every fabric test should do: keep the evidence of a failure.
    if (fabric && UtestShell::getCurrent()->hasFailed()) fabric->set_failed();
    node.reset();
    fabric.reset();
  }
};

IGNORE_TEST(HarnessChild, StartFabricThenEnd) {
  const char* mode = getenv("SIMFAB_CHILD_MODE");
  const char* report = getenv("SIMFAB_CHILD_REPORT");
  if (!mode || !report) return;  // run by hand with -ri: nothing to do
  SimFabric::Options o;
  o.net_text = FourHcaNet();
  o.run_dir_parent = getenv("SIMFAB_CHILD_RUN_PARENT") ? getenv("SIMFAB_CHILD_RUN_PARENT") : "";
  CHECK_OK(SimFabric::Start(o, &fabric));
  CHECK_OK(fabric->Spawn("Hca2", {"ibsysstat", "-S"}, &node));
  std::ostringstream line;
  line << fabric->run_dir() << " " << fabric->sock_name() << " " << fabric->ibsim_pid() << " "
       << fabric->opensm_pid() << " " << node->pid() << "\n";
  CHECK_OK(WriteStringToFile(std::string(report) + ".tmp", line.str()));
  CHECK_EQUAL(0, rename((std::string(report) + ".tmp").c_str(), report));

  std::string m = mode;
  if (m == "abort") {
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    abort();
  }
  if (m == "wait") {
    for (;;) pause();  // until the parent's SIGTERM
  }
  FAIL("deliberate failure while the fabric runs");
}

// ---------------------------------------------------------------- parent side

namespace {

struct ChildReport {
  std::string run_dir;
  std::string sock;
  pid_t ibsim = 0;
  pid_t opensm = 0;
  pid_t node = 0;
};

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
}

}  // namespace

TEST_GROUP(HarnessFailure) {
  ssa::test::TempDir tmp{"simfab-failtest."};
  const std::string& dir = tmp.path();
  void setup() override { CHECK_OK(tmp.status()); }

  // Runs the child in `mode`; returns its raw wait status and its report.
  int RunChild(const std::string& mode, ChildReport* r) {
    std::string report = dir + "/report";
    LaunchSpec spec;
    spec.argv = {SelfExe(), "-ri", "-sg", "HarnessChild", "-sn", "StartFabricThenEnd"};
    spec.env = {{"SIMFAB_CHILD_MODE", mode},
                {"SIMFAB_CHILD_REPORT", report},
                {"SIMFAB_CHILD_RUN_PARENT", dir}};
    spec.cwd = dir;
    spec.output_path = dir + "/child.out";  // keeps its CppUTest summary out of our log
    pid_t pid = 0;
    CHECK_OK(LaunchChild(spec, &pid));
    if (mode == "wait") {
      CHECK_TRUE(PollUntil(60s, [&] { return PathExists(report) || !IsPidAlive(pid); }));
      kill(pid, SIGTERM);  // only the child: its handler must do the rest
    }
    int st = 0;
    CHECK_TEXT(WaitForExit(pid, 60s, &st), "child test process did not end");
    std::string text;
    CHECK_OK(ReadFileToString(report, &text));
    std::istringstream in(text);
    in >> r->run_dir >> r->sock >> r->ibsim >> r->opensm >> r->node;
    CHECK_TRUE(r->ibsim > 0 && r->opensm > 0 && r->node > 0);
    return st;
  }

  void CheckNothingLeft(const ChildReport& r) {
    // PDEATHSIG and the handler act at once, but the kernel may need a moment.
    CHECK_TRUE(PollUntil(10s, [&] {
      return !IsPidAlive(r.ibsim) && !IsPidAlive(r.opensm) && !IsPidAlive(r.node) &&
             ProcessesOnFabric(r.sock).empty();
    }));
  }
};

TEST(HarnessFailure, FailureStillTearsDown) {
  ChildReport r;
  int st = RunChild("check", &r);
  CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) != 0);  // CppUTest reported the failure
  CheckNothingLeft(r);
  // set_failed() in teardown: the run directory is kept for inspection.
  CHECK_TRUE(PathExists(r.run_dir + "/osm.log"));
  CHECK_TRUE(PathExists(r.run_dir + "/ibsim.out"));
}

TEST(HarnessFailure, AbortStillTearsDown) {
  ChildReport r;
  int st = RunChild("abort", &r);
  CHECK_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
  CheckNothingLeft(r);                // PR_SET_PDEATHSIG
  CHECK_TRUE(PathExists(r.run_dir));  // nobody could remove it: documented
}

TEST(HarnessFailure, SigtermStillTearsDown) {
  ChildReport r;
  int st = RunChild("wait", &r);
  // The handler killed the fabric and re-raised: the child still died of it.
  CHECK_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
  CheckNothingLeft(r);
}
