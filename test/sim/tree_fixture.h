// tree_fixture.h: the setup and teardown every SSA tree test group shares
// (TreeSim, TreeFaultSim, SsaProviderSim, the fidelity groups), as a
// CppUTest fixture: TEST_GROUP_BASE(<group>, ssa::test::TreeFixture).
//
// The tree (TreeHarness) lives in a TempDir; a test that runs ibacm keeps
// it in `ibacm`. Teardown stops ibacm and then the tree, keeping the run
// directories of a failed test, and fails when OpenSM did not exit
// cleanly.
//
// Test code; single thread (the fabric's rules).
#ifndef IBACM_SSA_TEST_SIM_TREE_FIXTURE_H
#define IBACM_SSA_TEST_SIM_TREE_FIXTURE_H

#include <memory>

#include "test/sim/ibacm_node.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

#include <CppUTest/TestHarness.h>

namespace ssa {
namespace test {

class TreeFixture : public Utest {
 public:
  TempDir dir;
  std::unique_ptr<TreeHarness> tree;
  std::unique_ptr<IbacmNode> ibacm;  // when the test runs one

  void setup() override { tree = std::make_unique<TreeHarness>(&dir); }
  void teardown() override {
    if (tree && UtestShell::getCurrent()->hasFailed()) tree->set_failed();
    if (ibacm) ibacm->Stop();
    ibacm.reset();
    Status st = tree ? tree->Stop() : Status::Ok();
    tree.reset();
    CHECK_OK(st);
  }
};

}  // namespace test
}  // namespace ssa

#endif
