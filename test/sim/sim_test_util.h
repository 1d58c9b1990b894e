// sim_test_util.h: helpers shared by the simulated-fabric tests: running
// local (non-node) programs and finding a fabric's processes (the tools'
// output is parsed by test/support/tool_output.h). Test code only; single
// thread.
#ifndef IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H
#define IBACM_SSA_TEST_SIM_SIM_TEST_UTIL_H

#include <signal.h>
#include <sys/types.h>

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

// Stops a process (SIGSTOP) and continues it (SIGCONT) at Continue() or,
// however the test ends, when destroyed: a stopped process would not end
// on the teardown's SIGTERM.
class ScopedStop {
 public:
  explicit ScopedStop(pid_t pid) : pid_(pid), stopped_(kill(pid, SIGSTOP) == 0) {}
  ~ScopedStop() { Continue(); }
  ScopedStop(const ScopedStop&) = delete;
  ScopedStop& operator=(const ScopedStop&) = delete;
  bool stopped() const { return stopped_; }
  // True once the process runs again.
  bool Continue() {
    if (stopped_ && kill(pid_, SIGCONT) == 0) stopped_ = false;
    return !stopped_;
  }

 private:
  pid_t pid_;
  bool stopped_;
};

}  // namespace test
}  // namespace ssa

#endif
