// sim_test_util.cc: output parsers and local process helpers for tests.
#include "test/sim/sim_test_util.h"
#include "common/base/text_util.h"

#include <cstdlib>
#include <sstream>

#include "test/sim/sim_child.h"
#include "test/sim/sim_util.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace test {
namespace {}  // namespace

IbstatPort ParseIbstat(const std::string& output) {
  IbstatPort port;
  std::istringstream in(output);
  std::string line;
  bool in_port = false;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.rfind("Port ", 0) == 0 && t.back() == ':') {
      if (in_port) break;  // first port only
      in_port = true;
      continue;
    }
    if (!in_port) continue;
    size_t colon = t.find(':');
    if (colon == std::string::npos) continue;
    std::string key = t.substr(0, colon), value = Trim(t.substr(colon + 1));
    if (key == "State")
      port.state = value;
    else if (key == "Physical state")
      port.physical_state = value;
    else if (key == "Base lid")
      port.lid = atoi(value.c_str());
    else if (key == "SM lid")
      port.sm_lid = atoi(value.c_str());
    else if (key == "Port GUID")
      port.port_guid = value;
  }
  return port;
}

DiscoveredNodes ParseIbnetdiscover(const std::string& output) {
  DiscoveredNodes nodes;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    bool is_switch = line.rfind("Switch", 0) == 0;
    if (!is_switch && line.rfind("Ca", 0) != 0) continue;
    (is_switch ? nodes.switches : nodes.cas)++;
    // Switch	8 "S-0000000000200000"		# "Switch1" base port 0 lid 2 lmc 0
    size_t hash = line.find('#');
    size_t open = hash == std::string::npos ? hash : line.find('"', hash);
    size_t close = open == std::string::npos ? open : line.find('"', open + 1);
    if (close != std::string::npos)
      nodes.descriptions.push_back(line.substr(open + 1, close - open - 1));
  }
  return nodes;
}

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

std::vector<int> ProcessesOnFabric(const std::string& sock_name) {
  std::vector<pid_t> pids = FindProcessesWithEnv("IBSIM_SOCKNAME=" + sock_name);
  return std::vector<int>(pids.begin(), pids.end());
}

}  // namespace test
}  // namespace ssa
