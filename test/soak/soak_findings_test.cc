// soak_findings_test.cc: what the chaos soak found, each reduced to the
// smallest scenario that shows it (doc/soak.md, "What the soak found").
// A finding whose fix is not in yet is an IGNORE_TEST (run them with
//   build/test/soak/soak_tests -ri -g SoakFindings);
// each becomes a TEST with its fix.
#include <chrono>
#include <memory>
#include <string>

#include "common/smdb/smdb_prdb.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::test::TreeHarness;

TEST_GROUP(SoakFindings) {
  ssa::test::TempDir dir;
  std::unique_ptr<TreeHarness> tree;

  void setup() override { tree = std::make_unique<TreeHarness>(&dir); }
  void teardown() override {
    if (UtestShell::getCurrent()->hasFailed()) tree->set_failed();
    ssa::Status st = tree->Stop();
    tree.reset();
    CHECK_OK(st);
  }
};

// A port leaves the subnet (its link goes down; OpenSM drops it and the
// SA has no path to its LID any more). The access node patches each
// consumer's PRDB with only the pairs the route diff lists, and the diff
// lists only LIDs of the new SMDB (common/smdb/route_diff.cc: owner_lids
// and route_lids come from the new index's assigned LIDs), so the record
// of the LID that left is never removed: the consumer keeps answering the
// old path (seed 7 of the 10-minute soak: 953 wrong answers once OpenSM
// kept Hca9 out for 35 s). Fixed: such a diff says lids_left, and the
// access node builds those PRDBs whole.
TEST(SoakFindings, APatchedPrdbDropsThePathToAPortThatLeft) {
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  CHECK_OK(tree->Start(o));
  CHECK_OK(tree->StartIbssa("Hca2", "distribution"));
  CHECK_OK(tree->StartIbssa("Hca3", "access"));
  CHECK_OK(tree->StartConsumer("Hca6"));
  CHECK_OK(tree->WaitConsumersAt({"Hca6"}, tree->smdb().global_epoch, 30s));
  const uint16_t gone = tree->Lid("Hca9");
  auto holds_path_to_gone = [&](uint64_t* epoch) {
    ssa::smdb::Prdb prdb;
    CHECK_OK(ssa::smdb::Prdb::ReadFile(tree->ConsumerDump("Hca6"), &prdb));
    *epoch = prdb.global_epoch;
    for (const ssa::smdb::PrdbPath& p : prdb.paths.records)
      if (p.dlid == gone) return true;
    return false;
  };
  uint64_t epoch = 0;
  CHECK(holds_path_to_gone(&epoch));

  uint64_t before = tree->smdb().global_epoch;
  int ups = tree->fabric()->SubnetUpCount();
  CHECK_OK(tree->fabric()->LinkDown("Hca9"));
  CHECK_OK(tree->fabric()->WaitSubnetUp(ups + 1, 30s));
  ssa::smdb::Smdb next;
  CHECK_OK(tree->WaitSmdbAfter(before, 30s, &next));
  CHECK(ssa::test::FindNode(next, "Hca9") == nullptr);  // the SMDB has no Hca9
  CHECK_OK(tree->WaitConsumersAt({"Hca6"}, next.global_epoch, 30s));
  bool kept = holds_path_to_gone(&epoch);
  CHECK_TEXT(!kept, ("the PRDB of epoch " + std::to_string(epoch) + " still has a path to LID " +
                     std::to_string(gone) + ", whose port left the subnet (the SA: no record)")
                        .c_str());
}
