// daemon_shell.cc: DaemonShell (daemon_shell.h).
#include "common/base/daemon_shell.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/base/daemon_util.h"
#include "common/base/file_io.h"

namespace ssa {

DaemonShell::DaemonShell(std::string program) : program_(std::move(program)) {}

DaemonShell::~DaemonShell() {
  if (lock_fd_ >= 0) {
    unlink(lock_path_.c_str());
    close(lock_fd_);
  }
}

bool DaemonShell::Detach(bool foreground) {
  if (!foreground && !Daemonize(&startup_fd_)) {
    Fail(nullptr, "daemonize", Status::FromErrno("fork/setsid"));
    return false;
  }
  RaiseFdLimit();
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return true;
}

void DaemonShell::OpenLog(Logger* log, const std::string& target, const std::string& ident) {
  Status st = log->Open(target, ident);
  if (st.ok()) return;
  log->Open("syslog", ident);
  log->Log(LogLevel::kWarn, "%s; logging to syslog", st.ToString().c_str());
}

bool DaemonShell::Lock(const std::string& run_dir, const std::string& lock_file, Logger* log) {
  if (!run_dir.empty()) {
    Status st = MakeDirs(run_dir);
    if (!st.ok()) {
      Fail(log, "run directory", st);
      return false;
    }
  }
  std::string error;
  int fd = TakeLockFile(lock_file, program_, &error);
  if (fd < 0) {
    Report(log, "lock file: " + error);  // the error names the errno already
    return false;
  }
  lock_fd_ = fd;
  lock_path_ = lock_file;
  return true;
}

int DaemonShell::Run(EventLoop* loop, Logger* log, bool systemd, const std::function<Status()>& run,
                     const std::function<void()>& stop, const std::function<void()>& shutdown) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  if (sfd < 0) {
    int code = Fail(log, "signalfd", Status::FromErrno("cannot watch signals"));
    shutdown();
    return code;
  }
  loop->WatchFd(sfd, EPOLLIN, [&, sfd](uint32_t) {
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
      ++signals_handled_;
      if (si.ssi_signo == SIGHUP) {
        log->Log(LogLevel::kInfo, "SIGHUP: reopening the log");
        log->Reopen();
      } else {
        log->Log(LogLevel::kInfo, "signal %u: shutting down", si.ssi_signo);
        stop();
      }
    }
  });
  if (systemd) NotifySystemd("READY=1");
  StartupDone(startup_fd_);
  startup_fd_ = -1;
  Status st = run();
  if (systemd) NotifySystemd("STOPPING=1");
  loop->UnwatchFd(sfd);
  close(sfd);
  shutdown();
  if (lock_fd_ >= 0) {
    unlink(lock_path_.c_str());
    close(lock_fd_);
    lock_fd_ = -1;
  }
  int code = st.ok() ? 0 : Fail(log, "run", st);
  // The last line: what an operator (and the test harness, telling a clean
  // stop from a hang in some library's exit handler) reads as "it ended".
  if (log) log->Log(LogLevel::kInfo, "exiting with status %d", code);
  return code;
}

int DaemonShell::Fail(Logger* log, const std::string& what, const Status& st) const {
  Report(log, what + ": " + st.ToString());
  return 1;
}

void DaemonShell::Report(Logger* log, const std::string& text) const {
  fprintf(stderr, "%s: %s\n", program_.c_str(), text.c_str());
  // Once is enough when the log is stderr too (before it is opened).
  if (log && !log->ToStderr()) log->Log(LogLevel::kError, "%s", text.c_str());
}

}  // namespace ssa
