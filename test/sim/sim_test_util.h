// sim_test_util.h: helpers shared by the simulated-fabric tests: parsing tool
// output and running local (non-node) programs. Test code only; single thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H
#define IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

// What `ibstat` prints for the first port.
struct IbstatPort {
  std::string state;           // "Active", "Down", ...
  std::string physical_state;  // "LinkUp", ...
  int lid = -1;
  int sm_lid = -1;
  std::string port_guid;  // "0x0000000000100004"
};
IbstatPort ParseIbstat(const std::string& output);

// Node records in `ibnetdiscover` output: lines starting with "Switch", "Ca".
struct DiscoveredNodes {
  int switches = 0;
  int cas = 0;
  std::vector<std::string> descriptions;  // the quoted node descriptions
};
DiscoveredNodes ParseIbnetdiscover(const std::string& output);

// Runs a program on this machine (not as a fabric node) with extra
// environment, stdout+stderr to `output`.
Status RunLocal(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                std::string* output, int* exit_status,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Pids of live processes whose environment has IBSIM_SOCKNAME=`sock_name`.
std::vector<int> ProcessesOnFabric(const std::string& sock_name);

}  // namespace test
}  // namespace ssa

#endif
