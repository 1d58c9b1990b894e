// sim_process.h: a process running as one node of a simulated fabric.
//
// Created by SimFabric::Spawn, owned by the caller. It borrows its SimFabric:
// while both exist, the fabric knows the process and kills it in Stop(); if
// the fabric stops first, the handle is detached and only reports how the
// process ended. Destroying a handle kills a process still running (SIGKILL
// to its process group) and reaps it, so nothing outlives its handle either.
// Not thread-safe: use it from the thread that owns the fabric.
#ifndef IBACM_SSA_TEST_SIM_SIM_PROCESS_H
#define IBACM_SSA_TEST_SIM_SIM_PROCESS_H

#include <sys/types.h>

#include <chrono>
#include <string>

#include "common/base/status.h"

namespace ssa {
namespace test {

class SimFabric;

class SimProcess {
 public:
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& node() const { return node_; }
  // Its working directory (umad2sim's sys-<pid>/ lands here).
  const std::string& workdir() const { return workdir_; }
  // stdout and stderr, together.
  std::string output_path() const { return workdir_ + "/output.log"; }
  std::string output() const;

  // Reaps the process if it has exited.
  bool IsRunning();
  // Waits up to `timeout` for it to exit. `exit_status` (may be null) gets
  // the shell-style status: the exit code, or 128 + the killing signal.
  Status Wait(std::chrono::milliseconds timeout, int* exit_status);
  // Sends `sig` to its process group (it and whatever it forked).
  Status Kill(int sig);
  // SIGTERM, up to `grace`, then SIGKILL; reaps it.
  void Terminate(std::chrono::milliseconds grace);
  // The raw waitpid status once it has exited.
  bool exited() const { return exited_; }
  int wait_status() const { return wait_status_; }

 private:
  friend class SimFabric;
  SimProcess(SimFabric* fabric, pid_t pid, std::string node, std::string workdir)
      : fabric_(fabric), pid_(pid), node_(std::move(node)), workdir_(std::move(workdir)) {}
  // Records the exit and tells the fabric (which may free ibsim slots).
  void OnReaped(int wait_status);

  SimFabric* fabric_;  // borrowed; null once the fabric has stopped
  pid_t pid_;
  std::string node_;
  std::string workdir_;
  bool exited_ = false;
  int wait_status_ = 0;
};

}  // namespace test
}  // namespace ssa

#endif
