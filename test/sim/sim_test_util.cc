// sim_test_util.cc: local process helpers for tests.
#include "test/sim/sim_test_util.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "common/acm/acm_client.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_util.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace test {

Status RunLocal(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                std::string* output, int* exit_status, std::chrono::milliseconds timeout) {
  std::string dir;
  Status s = MakeTempDir(DefaultTempParent(), "simfab-local.", &dir);
  if (!s.ok()) return s;
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = env;
  spec.output_path = dir + "/output";
  pid_t pid;
  s = LaunchChild(spec, &pid);
  int st = 0;
  if (s.ok() && !WaitForExit(pid, timeout, &st)) {
    TerminateChild(pid, true, std::chrono::milliseconds(0));
    s = Status::Error(ETIMEDOUT, JoinArgs(argv) + " did not finish in time");
  }
  if (output) ReadFileToString(spec.output_path, output);
  if (exit_status) *exit_status = ShellExitCode(st);
  RemoveTree(dir);
  return s;
}

Status DaemonCounter(const std::string& socket, int which, uint64_t* out) {
  AcmClient client;
  Status st = client.Connect(socket);
  acm::PerfResponse r;
  if (st.ok()) st = client.PerfQuery(0, &r);
  if (!st.ok()) return st;
  if (which < 0 || r.counters.size() <= static_cast<size_t>(which))
    return Status::Error(ERANGE,
                         "PERF_QUERY answered " + std::to_string(r.counters.size()) + " counters");
  *out = r.counters[which];
  return Status::Ok();
}

std::vector<int> ProcessesOnFabric(const std::string& sock_name) {
  std::vector<pid_t> pids = FindProcessesWithEnv("IBSIM_SOCKNAME=" + sock_name);
  return std::vector<int>(pids.begin(), pids.end());
}

}  // namespace test
}  // namespace ssa
