// ssa-tree --check (util/ssa_tree/tree_check.h): each finding from a tree
// state that has it, the exit status monitoring systems read, and
// ssa-tree --watch: off a terminal a drawing appended per change, on one
// (a pseudo-terminal) the screen cleared first; ended by --count or SIGTERM.
#include "util/ssa_tree/tree_check.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/support/check_ok.h"
#include "test/support/poll.h"
#include "test/support/temp_dir.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa::tree_view;

namespace {

const std::string kTool = std::string(ABS_TOP_BUILDDIR) + "/util/ssa_tree/ssa-tree";

// A core at `epoch` published `published_s_ago` seconds ago, and members.
std::string Core(int epoch, int published_s_ago, const std::string& extra = "") {
  return "{\"role\": \"core\", \"guid\": \"0x10\", \"lid\": 1, \"epoch\": " +
         std::to_string(epoch) +
         ", \"children\": 1, \"refused\": 40, \"reconnects\": 0, \"fanout_core\": 64, "
         "\"fanout_distribution\": 64, \"fanout_access\": 2, \"requested_s_ago\": 50, "
         "\"extracted_s_ago\": 50, \"published_s_ago\": " +
         std::to_string(published_s_ago) + ", \"produced_epoch\": " + std::to_string(epoch) +
         extra + "}";
}
std::string Node(const char* role, int lid, int parent, int backup, int epoch, int children = 0,
                 int reconnects = 0) {
  return "{\"role\": \"" + std::string(role) + "\", \"guid\": \"0x" + std::to_string(lid) +
         "\", \"lid\": " + std::to_string(lid) + ", \"parent_lid\": " + std::to_string(parent) +
         ", \"backup_lid\": " + std::to_string(backup) + ", \"epoch\": " + std::to_string(epoch) +
         ", \"children\": " + std::to_string(children) +
         ", \"refused\": 0, \"reconnects\": " + std::to_string(reconnects) + "}";
}
std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Tree(const std::vector<std::string>& entries) {
  std::string s = "[";
  for (size_t i = 0; i < entries.size(); ++i) s += (i ? ",\n" : "\n") + entries[i];
  return s + "\n]\n";
}

CheckResult Check(const std::string& json, CheckOptions o = CheckOptions()) {
  std::vector<Member> members;
  CHECK_OK(ParseMembers(json, &members));
  return CheckTree(members, o);
}

// A healthy tree: a distribution node, two access nodes, two consumers.
std::string Healthy(int consumer_epoch = 9, int published = 100) {
  return Tree({Core(9, published), Node("distribution", 2, 1, 0, 9, 2),
               Node("access", 4, 2, 0, 9, 1), Node("access", 5, 2, 0, 9, 1),
               Node("consumer", 7, 4, 5, consumer_epoch), Node("consumer", 8, 5, 4, 9)});
}

}  // namespace

TEST_GROUP(TreeCheck){};

TEST(TreeCheck, AHealthyTreeIsOkWithOneSummaryLine) {
  CheckResult r = Check(Healthy());
  CHECK(r.status == Severity::kOk);
  CHECK(r.findings.empty());
  // The core's 40 refusals are the "retry" answers of start-up: no finding.
  // Six members, as the drawing shows them: the core too.
  STRCMP_EQUAL("SSA TREE OK - 6 members, core epoch 9, no findings\n", RenderCheck(r).c_str());
}

TEST(TreeCheck, ALaggingConsumerIsAWarningOnlyAfterTheGracePeriod) {
  CHECK(Check(Healthy(8, 10)).status == Severity::kOk);  // published 10 s ago, grace 30
  CheckResult r = Check(Healthy(8, 100));
  CHECK(r.status == Severity::kWarning);
  STRCMP_CONTAINS("WARNING: consumer lid 7 guid 0x7: at epoch 8, 1 behind the core's 9",
                  RenderCheck(r).c_str());
  CheckOptions o;
  o.grace_s = 5;
  CHECK(Check(Healthy(8, 10), o).status == Severity::kWarning);
}

TEST(TreeCheck, ALaggingParentIsCritical) {
  CheckResult r = Check(Tree({Core(9, 100), Node("distribution", 2, 1, 0, 9, 1),
                              Node("access", 4, 2, 0, 7, 1), Node("consumer", 7, 4, 2, 7)}));
  CHECK(r.status == Severity::kCritical);
  std::string text = RenderCheck(r);
  STRCMP_CONTAINS("CRITICAL: access lid 4 guid 0x4: at epoch 7, 2 behind the core's 9",
                  text.c_str());
  STRCMP_CONTAINS("(its subtree is stale)", text.c_str());
  // Critical findings first, the summary last.
  CHECK_EQUAL(0u, text.find("CRITICAL: "));
  STRCMP_CONTAINS("\nSSA TREE CRITICAL - 4 members, core epoch 9, 1 critical, 1 warning\n",
                  text.c_str());
}

TEST(TreeCheck, AConsumerWithoutABackupParentIsAWarning) {
  CheckResult r =
      Check(Tree({Core(9, 100), Node("access", 4, 1, 0, 9, 1), Node("consumer", 7, 4, 0, 9)}));
  CHECK(r.status == Severity::kWarning);
  STRCMP_CONTAINS("WARNING: consumer lid 7 guid 0x7: no backup parent\n", RenderCheck(r).c_str());
}

TEST(TreeCheck, ATreeBuiltWithoutBackupParentsCanBeAccepted) {
  CheckOptions o;
  o.backup_required = false;  // ssa-tree --check --allow-no-backup
  CheckResult r =
      Check(Tree({Core(9, 100), Node("access", 4, 1, 0, 9, 1), Node("consumer", 7, 4, 0, 9)}), o);
  CHECK(r.status == Severity::kOk);
  STRCMP_EQUAL("SSA TREE OK - 3 members, core epoch 9, no findings\n", RenderCheck(r).c_str());
}

// ssa-tree --watch redraws when this changes: not for the bytes each of
// its own polls adds to the core's counters, but for an epoch, a parent,
// a member joining.
TEST(TreeCheck, TheWatchedStateIgnoresTrafficCounters) {
  std::vector<Member> a, b;
  CHECK_OK(ParseMembers(Healthy(), &a));
  b = a;
  b[0]["bytes_sent"] = "999999";
  b[1]["full_transfers"] = "77";
  b[2]["refused"] = "3";
  STRCMP_EQUAL(StateKey(a).c_str(), StateKey(b).c_str());
  b[4]["epoch"] = "8";
  CHECK(StateKey(a) != StateKey(b));
  b = a;
  b[4]["backup_lid"] = "0";
  CHECK(StateKey(a) != StateKey(b));
  b = a;
  b.pop_back();
  CHECK(StateKey(a) != StateKey(b));
}

TEST(TreeCheck, AnAccessNodeOverItsFanOutLimitIsAWarning) {
  // The core's fanout_access is 2.
  CheckResult r = Check(Tree({Core(9, 100), Node("access", 4, 1, 0, 9, 3)}));
  CHECK(r.status == Severity::kWarning);
  STRCMP_CONTAINS("access lid 4 guid 0x4: 3 children, over the fan-out limit of 2",
                  RenderCheck(r).c_str());
  CheckOptions o;
  o.fanout = 3;
  CHECK(Check(Tree({Core(9, 100), Node("access", 4, 1, 0, 9, 3)}), o).status == Severity::kOk);
}

TEST(TreeCheck, RepeatedReparentingIsAWarning) {
  std::string t = Tree({Core(9, 100), Node("access", 4, 1, 0, 9, 0, 6)});
  STRCMP_CONTAINS("access lid 4 guid 0x4: re-parented 6 times", RenderCheck(Check(t)).c_str());
  CheckOptions o;
  o.repeat = 7;
  CHECK(Check(t, o).status == Severity::kOk);
}

TEST(TreeCheck, ACoreThatMadeNoVersionSinceOpenSmAskedIsCritical) {
  // OpenSM asked 45 s ago; the last extraction finished 300 s ago.
  std::string t = Tree({Core(9, 300, ", \"requested_s_ago\": 45, \"extracted_s_ago\": 300")});
  // (The later keys win, as in any JSON reader's map.)
  CheckResult r = Check(t);
  CHECK(r.status == Severity::kCritical);
  STRCMP_CONTAINS("CRITICAL: core: no version made since OpenSM asked for one 45 s ago",
                  RenderCheck(r).c_str());
  // A version made but not served.
  r = Check(Tree({Core(9, 300, ", \"produced_epoch\": 10, \"extracted_s_ago\": 40")}));
  STRCMP_CONTAINS("core: made epoch 10 40 s ago but serves epoch 9", RenderCheck(r).c_str());
  r = Check(Tree({Core(0, -1)}));
  STRCMP_CONTAINS("CRITICAL: core: holds no SMDB yet", RenderCheck(r).c_str());
}

// The program: the exit status is the severity (Nagios' convention), 3 on
// bad usage, 2 when there is no state to judge.
TEST(TreeCheck, TheProgramExitsWithTheSeverity) {
  ssa::test::TempDir dir("ssa-check-");
  CHECK_OK(dir.status());
  std::string f = dir.path() + "/tree.json";
  auto run = [&](const std::string& args) {
    int rc = system((kTool + " " + args + " >" + dir.path() + "/out 2>&1").c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  std::ofstream(f) << Healthy();
  CHECK_EQUAL(0, run("--check --state " + f));
  std::ofstream(f) << Healthy(8);
  CHECK_EQUAL(1, run("--check --state " + f));
  std::ofstream(f) << Tree({Core(9, 100), Node("access", 4, 1, 0, 7)});
  CHECK_EQUAL(2, run("--check --state " + f));
  CHECK_EQUAL(2, run("--check --state " + dir.path() + "/missing.json"));
  CHECK_EQUAL(3, run("--check --grace nonsense --state " + f));
  STRCMP_CONTAINS("--grace 'nonsense': expected a number above 0",
                  ReadAll(dir.path() + "/out").c_str());
}

namespace {

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// ssa-tree with stdout to `out` (not a terminal); its pid.
pid_t Spawn(const std::vector<std::string>& args, const std::string& out) {
  pid_t pid = fork();
  if (pid == 0) {
    FILE* f = freopen(out.c_str(), "w", stdout);
    if (!f) _exit(127);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kTool.c_str()));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kTool.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// Waits (bounded: a hang fails the test, it does not pace it) until `pid`
// exits; its exit status, or -1.
int WaitExit(pid_t pid, std::chrono::seconds bound) {
  auto end = std::chrono::steady_clock::now() + bound;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST(TreeCheck, WatchAppendsARedrawPerChangeWhenNotOnATerminal) {
  ssa::test::TempDir dir("ssa-watch-");
  CHECK_OK(dir.status());
  std::string f = dir.path() + "/tree.json", out = dir.path() + "/out";
  std::ofstream(f) << Healthy();
  pid_t pid = Spawn({"--watch", "--state", f, "--interval", "0.02", "--count", "2"}, out);
  CHECK(pid > 0);
  CHECK(ssa::test::PollUntil(std::chrono::seconds(20), [&] {
    return ReadAll(out).find("consumer lid 8") != std::string::npos;
  }));
  // The same state again draws nothing; a new epoch draws the tree again.
  std::string text = ReadAll(out);
  CHECK_EQUAL(1u, Count(text, "--- "));
  std::string next = Healthy();
  for (size_t at = next.find("\"epoch\": 9"); at != std::string::npos;
       at = next.find("\"epoch\": 9", at))
    next.replace(at, 10, "\"epoch\": 10");
  std::ofstream(f + ".new") << next;
  CHECK_EQUAL(0, rename((f + ".new").c_str(), f.c_str()));
  CHECK_EQUAL(0, WaitExit(pid, std::chrono::seconds(20)));
  text = ReadAll(out);
  CHECK_EQUAL(2u, Count(text, "--- "));
  STRCMP_CONTAINS("epoch 10 (lag 0)", text.c_str());
  // Plain text: no terminal control sequences.
  CHECK(text.find('\033') == std::string::npos);
}

TEST(TreeCheck, WatchEndsOnSigterm) {
  ssa::test::TempDir dir("ssa-watch-");
  CHECK_OK(dir.status());
  std::string f = dir.path() + "/tree.json", out = dir.path() + "/out";
  std::ofstream(f) << Healthy();
  pid_t pid = Spawn({"--watch", "--state", f, "--interval", "3600"}, out);
  CHECK(pid > 0);
  CHECK(ssa::test::PollUntil(std::chrono::seconds(20),
                             [&] { return ReadAll(out).find("--- ") != std::string::npos; }));
  kill(pid, SIGTERM);
  CHECK_EQUAL(0, WaitExit(pid, std::chrono::seconds(20)));
}

// On a terminal (a pseudo-terminal from util-linux's script(1)) each
// drawing starts by clearing the screen.
TEST(TreeCheck, WatchClearsTheScreenOnATerminal) {
  if (access("/usr/bin/script", X_OK) != 0) {
    UT_PRINT("script(1) not installed (bsdutils): the terminal mode is not tested");
    return;
  }
  ssa::test::TempDir dir("ssa-watch-");
  CHECK_OK(dir.status());
  std::string f = dir.path() + "/tree.json", out = dir.path() + "/out";
  std::ofstream(f) << Healthy();
  std::string cmd = "/usr/bin/script -qec '" + kTool + " --watch --count 1 --state " + f +
                    "' /dev/null >" + out + " 2>&1";
  CHECK_EQUAL(0, system(cmd.c_str()));
  std::string text = ReadAll(out);
  CHECK_EQUAL_TEXT(0u, text.find("\033[H\033[2J--- "), text.c_str());
  STRCMP_CONTAINS("consumer lid 8", text.c_str());
}
