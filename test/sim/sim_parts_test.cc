// sim_parts_test.cc: unit tests of the harness pieces that need no simulator:
// console reply parsing, log counting, attach slots, child processes, the
// order of preloaded libraries.
#include <arpa/inet.h>
#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <string>
#include <vector>

#include "common/base/big_endian.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_console.h"
#include "test/sim/sim_run_dir.h"
#include "test/sim/sim_slots.h"
#include "test/sim/sim_stacks.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/support/tool_output.h"

#include <CppUTest/TestHarness.h>

using namespace ssa::test;

TEST_GROUP(SimParts) {
  ssa::test::TempDir tmp{"simparts."};
  const std::string& dir = tmp.path();
  void setup() override { CHECK_OK(tmp.status()); }
};

TEST(SimParts, ParseAttachedReadsIbsimsListing) {
  // As printed by ibsim 0.10 for `Attached` (the SM line ends in " SM").
  std::vector<AttachedClient> c = ParseAttached(
      "Client 0: pid 11031 connected at \"Hca1\" port 0x100001, lid 1, qp 0 SM\n"
      "Client 3: pid 11128 connected at \"Hca2\" port 0x100004, lid 4, qp 0 \n"
      "command 'x' unknown - skipped\n");
  CHECK_EQUAL(2u, c.size());
  CHECK_EQUAL(0, c[0].id);
  CHECK_EQUAL(11031, c[0].pid);
  STRCMP_EQUAL("Hca1", c[0].node.c_str());
  CHECK_TRUE(c[0].is_sm);
  CHECK_EQUAL(3, c[1].id);
  STRCMP_EQUAL("Hca2", c[1].node.c_str());
  CHECK_FALSE(c[1].is_sm);
}

TEST(SimParts, MergePreloadPutsAsanFirstAndTsanAfterUmad2sim) {
  const std::string umad = "/u/libumad2sim.so";
  STRCMP_EQUAL("/l/libasan.so.8:/l/libubsan.so.1:/u/libumad2sim.so",
               MergePreload("/l/libasan.so.8:/l/libubsan.so.1", umad).c_str());
  STRCMP_EQUAL("/u/libumad2sim.so:/l/libtsan.so.2", MergePreload("/l/libtsan.so.2", umad).c_str());
  STRCMP_EQUAL("/x/libfoo.so:/u/libumad2sim.so:/l/libtsan.so.2",
               MergePreload("/l/libtsan.so.2::/x/libfoo.so", umad).c_str());
  STRCMP_EQUAL("/l/libtsan.so.2", MergePreload("/l/libtsan.so.2", "").c_str());
  STRCMP_EQUAL(umad.c_str(), MergePreload("", umad).c_str());
}

TEST(SimParts, LogLineCounterCountsOnlyNewCompleteLines) {
  std::string log = dir + "/osm.log";
  LogLineCounter counter(log, "SUBNET UP");
  CHECK_EQUAL(0, counter.Count());  // no file yet
  CHECK_OK(WriteStringToFile(log, "a\n0x02 -> SUBNET UP\nb\n0x02 -> SUBNET"));
  CHECK_EQUAL(1, counter.Count());
  FILE* f = fopen(log.c_str(), "a");
  fputs(" UP\nSUBNET UP\n", f);
  fclose(f);
  CHECK_EQUAL(3, counter.Count());
  CHECK_EQUAL(3, counter.Count());
}

TEST(SimParts, SlotsRefuseTheEleventhAndNameTheHolders) {
  AttachSlots slots(dir + "/slots");
  CHECK_OK(slots.Create());
  std::vector<SlotClaim> claims(AttachSlots::kCount);
  for (int i = 0; i < AttachSlots::kCount; ++i) {
    CHECK_OK(slots.Claim(&claims[i]));
    CHECK_OK(claims[i].SetHolder(1000 + i, "Hca" + std::to_string(i), "prog --arg"));
    CHECK_FALSE(claims[i].reap_advised());
  }
  CHECK_EQUAL(static_cast<size_t>(AttachSlots::kCount), slots.Holders().size());
  SlotClaim extra;
  ssa::Status s = slots.Claim(&extra);
  CHECK_EQUAL(-EBUSY, s.code());
  STRCMP_CONTAINS("allows 10 attached processes (OpenSM included); 10 are in use",
                  s.message().c_str());
  STRCMP_CONTAINS("slot 3: pid 1003 on Hca3: prog --arg", s.message().c_str());

  // Closing the descriptor frees the slot; its old holder is remembered, and
  // with all others held a reused slot may hide a stale ibsim client.
  claims[3] = SlotClaim();
  CHECK_EQUAL(static_cast<size_t>(AttachSlots::kCount - 1), slots.Holders().size());
  CHECK_OK(slots.Claim(&extra));
  CHECK_EQUAL(3, extra.index());
  CHECK_EQUAL(1003, extra.previous_pid());
  CHECK_TRUE(extra.reap_advised());
}

TEST(SimParts, LaunchChildReportsExecFailure) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/program"};
  pid_t pid = 0;
  ssa::Status s = LaunchChild(spec, &pid);
  CHECK_FALSE(s.ok());
  STRCMP_CONTAINS("execute /nonexistent/program", s.message().c_str());
  spec.argv = {"no-such-program-simfab"};
  STRCMP_CONTAINS("not found", LaunchChild(spec, &pid).message().c_str());
}

TEST(SimParts, ChildOutputEnvAndTermination) {
  LaunchSpec spec;
  spec.argv = {"sh", "-c", "echo \"$SIMFAB_X\" in $(pwd); exec sleep 100"};
  spec.env = {{"SIMFAB_X", "hello"}};
  spec.cwd = dir;
  spec.output_path = dir + "/out";
  pid_t pid = 0;
  CHECK_OK(LaunchChild(spec, &pid));
  CHECK_TRUE(PollUntil(std::chrono::seconds(10), [&] {
    std::string out;
    ReadFileToString(spec.output_path, &out);
    return out.find("hello in " + dir) != std::string::npos;
  }));
  CHECK_TRUE(IsPidAlive(pid));
  CHECK_EQUAL(getpgid(pid), pid);  // its own process group
  int st = TerminateChild(pid, true, std::chrono::seconds(5));
  CHECK_TRUE(WIFSIGNALED(st));
  CHECK_EQUAL(SIGTERM, WTERMSIG(st));
  CHECK_EQUAL(128 + SIGTERM, ShellExitCode(st));
  CHECK_FALSE(IsPidAlive(pid));
}

TEST(SimParts, ParseIbstatAndIbnetdiscover) {
  IbstatPort p = ParseIbstat(
      "CA 'ibsim0'\n\tCA type: simulator\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: "
      "LinkUp\n"
      "\t\tBase lid: 4\n\t\tSM lid: 1\n\t\tPort GUID: 0x0000000000100004\n");
  STRCMP_EQUAL("Active", p.state.c_str());
  CHECK_EQUAL(4, p.lid);
  CHECK_EQUAL(1, p.sm_lid);
  STRCMP_EQUAL("0x0000000000100004", p.port_guid.c_str());
  STRCMP_EQUAL("simulator", p.fields["CA type"].c_str());
  STRCMP_EQUAL(
      "4",
      IbstatField("\tPort 1:\n\t\tBase lid: 4\n\tPort 2:\n\t\tBase lid: 9\n", "Base lid").c_str());
  DiscoveredNodes d = ParseIbnetdiscover(
      "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 2 lmc 0\n"
      "[1]\t\"H-0000000000100000\"[1]\n"
      "Ca\t1 \"H-0000000000100000\"\t\t# \"Hca1\"\n");
  CHECK_EQUAL(1, d.switches);
  CHECK_EQUAL(1, d.cas);
  STRCMP_EQUAL("Switch1", d.descriptions[0].c_str());
  STRCMP_EQUAL("Hca1", d.descriptions[1].c_str());
}

TEST(SimParts, ParseSaqueryPathAndCompareItWithOurs) {
  CHECK_TRUE(ParseSaqueryPath("ibwarn: no record\n").empty());
  std::map<std::string, std::string> sa = ParseSaqueryPath(
      "PathRecord dump:\n\t\tservice_id..............0x0000000000000000\n"
      "\t\tdgid....................fe80::10:4\n\t\tdlid....................4\n"
      "PathRecord dump:\n\t\tdlid....................9\n");
  CHECK_EQUAL(3u, sa.size());  // the first record only
  STRCMP_EQUAL("fe80::10:4", sa["dgid"].c_str());
  STRCMP_EQUAL("4", sa["dlid"].c_str());
  ibv_path_record ours{};
  ours.dlid = ssa::ToBe16(5);
  std::string diff = SaqueryDifferences(sa, ours);
  STRCMP_CONTAINS("dlid: saquery 4, ours 0x5; ", diff.c_str());
  STRCMP_CONTAINS("dgid: saquery fe80::10:4, ours ::; ", diff.c_str());
  STRCMP_CONTAINS("sgid: not printed by saquery; ", diff.c_str());
  CHECK(diff.find("service_id") == std::string::npos);  // equal
  STRCMP_EQUAL("fe80::10:4", DefaultGidText(0x0000000000100004ULL).c_str());
}

// The main thread's stack as gdb prints it when umad2sim's exit handler
// deadlocks (doc/simulated-fabric.md), with the frames a TSan build adds
// between the exit handlers and umad2sim's handler, and without them.
TEST(SimParts, Umad2simsExitDeadlockIsRecognisedThroughSanitizerFrames) {
  const std::string tsan =
      "Thread 1 (Thread 0x7f08 (LWP 9135) \"ssa-consumer\"):\n"
      "#4  0x00007f0820260e3b in __interceptor_pthread_join (th=0x7f08, ret=0x0) at "
      "../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:1061\n"
      "#5  0x00007f08232dd3f4 in ?? () from /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so\n"
      "#6  0x00007f082022dee4 in cxa_at_exit_wrapper (arg=0x7f08) at "
      "../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:389\n"
      "#7  0x00007f081fa5c55d in __run_exit_handlers (status=0, listp=0x7f08) at "
      "./stdlib/exit.c:116\n"
      "#8  0x00007f081fa5c69a in __GI_exit (status=<optimized out>) at ./stdlib/exit.c:146\n";
  CHECK(ssa::test::StuckInUmad2simExit(tsan));
  const std::string plain =
      "Thread 1 (Thread 0x7f08 (LWP 9135) \"ibacm\"):\n"
      "#5  0x00007f08232dd3f4 in ?? () from /usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so\n"
      "#6  0x00007f081fa5c55d in __run_exit_handlers (status=0) at ./stdlib/exit.c:116\n";
  CHECK(ssa::test::StuckInUmad2simExit(plain));
  // Our own exit handler hanging is ours to fix, sanitizer frames or not.
  const std::string ours =
      "Thread 1 (Thread 0x7f08 (LWP 9135) \"ibacm\"):\n"
      "#5  0x00005632 in ssa::Daemon::~Daemon () at ../../core/daemon.cc:90\n"
      "#6  0x00007f082022dee4 in cxa_at_exit_wrapper (arg=0x7f08) at "
      "../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:389\n"
      "#7  0x00007f081fa5c55d in __run_exit_handlers (status=0) at ./stdlib/exit.c:116\n";
  CHECK_FALSE(ssa::test::StuckInUmad2simExit(ours));
  CHECK_FALSE(ssa::test::StuckInUmad2simExit("#0 main () at x.cc:1\n"));
}
