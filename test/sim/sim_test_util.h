// sim_test_util.h: helpers shared by the simulated-fabric tests: running
// local (non-node) programs and finding a fabric's processes (the tools'
// output is parsed by test/support/tool_output.h). Test code only; single
// thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H
#define IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

// Runs a program on this machine (not as a fabric node) with extra
// environment, stdout+stderr to `output`.
Status RunLocal(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                std::string* output, int* exit_status,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));

// The daemon-wide counter `which` (ACM_CNTR_*) of the ibacm on `socket`,
// through PERF_QUERY.
Status DaemonCounter(const std::string& socket, int which, uint64_t* out);

// Pids of live processes whose environment has IBSIM_SOCKNAME=`sock_name`.
std::vector<int> ProcessesOnFabric(const std::string& sock_name);

}  // namespace test
}  // namespace ssa

#endif
