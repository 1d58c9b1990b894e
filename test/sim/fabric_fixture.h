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

#include "common/smdb/smdb_delta.h"
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

  // The plugin's delta file from version `a` to version `b` of its dump
  // directory, and the delta smdb::MakeDelta makes from a to b: each,
  // applied to a, gives the bytes of b's smdb.<epoch> file exactly. What
  // each applied to a (file's first), for more checks.
  std::vector<smdb::Smdb> CheckDeltasReproduce(const smdb::Smdb& a, const smdb::Smdb& b) {
    std::string dump = plugin.dump_dir() + "/";
    std::string b_bytes = ReadFileText(dump + "smdb." + std::to_string(b.global_epoch));
    std::string delta_path =
        dump + "delta." + std::to_string(a.global_epoch) + "-" + std::to_string(b.global_epoch);
    std::string file_delta = ReadFileText(delta_path);
    CHECK_TEXT(!file_delta.empty(), delta_path.c_str());
    std::string made;
    CHECK_OK(smdb::MakeDelta(a, b, &made));
    std::vector<smdb::Smdb> applied(2);
    for (size_t i = 0; i < 2; ++i) {
      const std::string& delta = i == 0 ? file_delta : made;
      CHECK_OK(smdb::ApplyDelta(a, reinterpret_cast<const uint8_t*>(delta.data()), delta.size(),
                                &applied[i]));
      std::string applied_bytes;
      CHECK_OK(applied[i].Serialize(&applied_bytes));
      CHECK_TEXT(applied_bytes == b_bytes, delta_path.c_str());
    }
    return applied;
  }
};

}  // namespace test
}  // namespace ssa

#endif
