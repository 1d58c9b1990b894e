// fabric_fixture.h: the setup and teardown the simulated-fabric test groups
// share, as CppUTest fixtures (TEST_GROUP_BASE(<group>, <fixture>)):
//   FabricFixture        a fabric the test starts (StartFabric), stopped at
//                        teardown with its run directory kept when the test
//                        failed; Run() of a short command as a node.
//   PluginFabricFixture  the same with OpenSM loading the ibssa_osm plugin,
//                        its files in a TempDir kept when the test failed;
//                        teardown fails when OpenSM did not exit cleanly.
// A group with its own teardown calls the fixture's last.
//
// Test code; single thread (the fabric's rules).
#ifndef IBACM_SSA_TEST_SIM_FABRIC_FIXTURE_H
#define IBACM_SSA_TEST_SIM_FABRIC_FIXTURE_H

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

#include <CppUTest/TestHarness.h>

namespace ssa {
namespace test {

class FabricFixture : public Utest {
 public:
  std::unique_ptr<SimFabric> fabric;

  void teardown() override {
    if (fabric && UtestShell::getCurrent()->hasFailed()) fabric->set_failed();
    if (fabric) fabric->Stop();
    fabric.reset();
  }

  // `net` (ibsim's format) with `ibsim_args`, OpenSM as its SM.
  void StartFabric(const std::string& net, const std::vector<std::string>& ibsim_args = {}) {
    SimFabric::Options o;
    o.net_text = net;
    o.ibsim_args = ibsim_args;
    CHECK_OK(SimFabric::Start(o, &fabric));
  }

  // `argv` run as `node`; its output. The test fails unless it exits 0
  // within `timeout`.
  std::string Run(const std::string& node, const std::vector<std::string>& argv,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
    std::string out;
    int status = -1;
    CHECK_OK(fabric->Run(node, argv, &out, &status, timeout));
    CHECK_EQUAL_TEXT(0, status, out.c_str());
    return out;
  }
};

class PluginFabricFixture : public Utest {
 public:
  TempDir dir;
  PluginSetup plugin;  // its files in `dir`
  std::unique_ptr<SimFabric> fabric;

  void setup() override {
    CHECK_OK(dir.status());
    plugin.dir = dir.path();
  }
  void teardown() override {
    if (UtestShell::getCurrent()->hasFailed()) {
      dir.keep();
      if (fabric) fabric->set_failed();
    }
    // OpenSM unloads the plugin on the way out: a sanitizer report there
    // (leak, bad free) shows only as OpenSM's exit status, which Stop checks.
    Status stop = fabric ? fabric->Stop() : Status::Ok();
    if (!stop.ok()) dir.keep();
    fabric.reset();
    CHECK_OK(stop);
  }
};

}  // namespace test
}  // namespace ssa

#endif
