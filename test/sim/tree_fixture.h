// tree_fixture.h: the setup and teardown every SSA tree test group shares
// (TreeSim, TreeFaultSim, SsaProviderSim, the fidelity groups), as a
// CppUTest fixture: TEST_GROUP_BASE(<group>, ssa::test::TreeFixture).
//
// The tree (TreeHarness) lives in a TempDir; a test that runs ibacm keeps
// it in `ibacm`. WaitSample reads a metrics file (ibacm's, ibssa's, the
// plugin's) until a sample satisfies the test, within a bound. Teardown stops ibacm and then the
// tree, keeping the run directories of a failed test, and fails when OpenSM did not exit cleanly.
//
// Test code; single thread (the fabric's rules).
#ifndef IBACM_SSA_TEST_SIM_TREE_FIXTURE_H
#define IBACM_SSA_TEST_SIM_TREE_FIXTURE_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "test/sim/ibacm_node.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/poll.h"
#include "test/support/prom_check.h"
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
    // ibacm must stop cleanly: exit status 0, which is also how a
    // sanitizer build's report (ASan's exit 1, TSan's 66) reaches the test.
    Status ibacm_st = ibacm ? ibacm->Stop() : Status::Ok();
    ibacm.reset();
    Status st = tree ? tree->Stop() : Status::Ok();
    tree.reset();
    CHECK_OK(ibacm_st);
    CHECK_OK(st);
  }

  // Sample `series` (name and labels as written) of the metrics file at
  // `path` once `ok` holds for it (-1: absent), polled for up to 30 s.
  double WaitSample(const std::string& path, const std::string& series,
                    const std::function<bool(double)>& ok) {
    double v = -1;
    bool seen = PollUntil(std::chrono::seconds(30), [&] {
      v = PromSample(ReadFileText(path), series);
      return ok(v);
    });
    CHECK_TEXT(seen, (path + ": " + series + " stayed at " + std::to_string(v)).c_str());
    return v;
  }
  // For WaitSample: a value of at least `want`.
  static std::function<bool(double)> AtLeast(double want) {
    return [want](double v) { return v >= want; };
  }
};

}  // namespace test
}  // namespace ssa

#endif
