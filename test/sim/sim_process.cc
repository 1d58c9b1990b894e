// sim_process.cc: handle of one node process.
#include "test/sim/sim_process.h"

#include <signal.h>

#include "test/sim/sim_child.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_util.h"

namespace ssa {
namespace test {

SimProcess::~SimProcess() {
  if (!exited_) Terminate(std::chrono::milliseconds(0));
  if (fabric_) fabric_->Forget(this);
}

std::string SimProcess::output() const {
  std::string text;
  ReadFileToString(output_path(), &text);
  return text;
}

void SimProcess::OnReaped(int wait_status) {
  exited_ = true;
  wait_status_ = wait_status;
  if (fabric_) fabric_->OnProcessReaped(this, wait_status);
}

bool SimProcess::IsRunning() {
  if (exited_) return false;
  int st;
  if (!TryReap(pid_, &st)) return true;
  OnReaped(st);
  return false;
}

Status SimProcess::Wait(std::chrono::milliseconds timeout, int* exit_status) {
  if (!exited_) {
    int st;
    if (!WaitForExit(pid_, timeout, &st))
      return Status::Error(ETIMEDOUT, "pid " + std::to_string(pid_) + " on " + node_ +
                                          " still running after " +
                                          std::to_string(timeout.count()) + " ms");
    OnReaped(st);
  }
  if (exit_status) *exit_status = ShellExitCode(wait_status_);
  return Status::Ok();
}

Status SimProcess::Kill(int sig) {
  if (exited_) return Status::Error(ESRCH, "pid " + std::to_string(pid_) + " has exited");
  // Its own process group first: it and whatever it forked.
  if (kill(-pid_, sig) != 0 && kill(pid_, sig) != 0)
    return Status::FromErrno("kill pid " + std::to_string(pid_));
  return Status::Ok();
}

void SimProcess::Terminate(std::chrono::milliseconds grace) {
  if (exited_) return;
  OnReaped(TerminateChild(pid_, true, grace));
}

}  // namespace test
}  // namespace ssa
