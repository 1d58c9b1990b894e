// sim_child.h: starting, waiting for and stopping child processes.
//
// LaunchChild is fork + exec done carefully: everything is prepared before
// fork, the child only makes async-signal-safe calls, and an exec failure is
// reported to the parent through a close-on-exec pipe, so a misspelled
// program is a Status, not a mysterious exit 127. Children get
// PR_SET_PDEATHSIG so they die with the thread that forked them (keep that
// thread alive as long as the children should run).
//
// Plain functions; callable from any thread, but a given child should be
// waited for by one thread only.
#ifndef IBACM_SSA_TEST_SIM_SIM_CHILD_H
#define IBACM_SSA_TEST_SIM_SIM_CHILD_H

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {
namespace test {

struct LaunchSpec {
  // argv[0] is looked up in PATH (then /usr/sbin, /sbin) unless it has a '/'.
  std::vector<std::string> argv;
  // Set on top of this process's environment.
  std::map<std::string, std::string> env;
  // Working directory; "" keeps ours.
  std::string cwd;
  // stdout and stderr are appended to this file; "" keeps ours.
  std::string output_path;
  // stdin: a descriptor to dup, else /dev/null, unless inherit_stdin.
  int stdin_fd = -1;
  bool inherit_stdin = false;
  // Descriptors (normally close-on-exec) the program must inherit.
  std::vector<int> keep_fds;
  // A new process group (pgid == pid) so the child and its own children can be
  // signalled together and the terminal's Ctrl-C reaches only us.
  bool own_process_group = true;
  // With own_process_group: make that group the terminal's foreground group
  // (stdin must be our controlling terminal), as a shell does for a job.
  // The caller blocks SIGTTOU to take the terminal back later.
  bool take_terminal = false;
  // Sent to the child when the forking thread dies; 0 for none.
  int parent_death_signal = SIGKILL;
  // Register the group with ChildRegistry (killed if we are interrupted).
  bool register_for_cleanup = true;
};

Status LaunchChild(const LaunchSpec& spec, pid_t* pid);

// "ibsim" -> "/usr/bin/ibsim"; "" when not found. Names with '/' are kept.
std::string FindProgram(const std::string& name);

// True if `pid` exists and is not a zombie (works for any process).
bool IsPidAlive(pid_t pid);
// Live processes (of our user) whose environment holds `entry` ("KEY=VALUE").
std::vector<pid_t> FindProcessesWithEnv(const std::string& entry);

// Shell convention: the exit code, or 128 + the signal that killed it.
int ShellExitCode(int wait_status);
// "exited with status 3", "killed by signal 9 (Killed)".
std::string DescribeWaitStatus(int wait_status);

// Reaps `pid` (our child) if it has exited. Returns true then, with the raw
// waitpid status in *wait_status. Also unregisters it from ChildRegistry.
bool TryReap(pid_t pid, int* wait_status);
// Polls TryReap until the deadline. Returns false on timeout.
bool WaitForExit(pid_t pid, std::chrono::milliseconds timeout, int* wait_status);
// SIGTERM (to the group if `group`), up to `grace` for it to exit, then
// SIGKILL, and reaps it. Returns the raw wait status.
int TerminateChild(pid_t pid, bool group, std::chrono::milliseconds grace);

}  // namespace test
}  // namespace ssa

#endif
