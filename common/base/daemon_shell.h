// daemon_shell.h: the process shell every program of this project that
// runs an event loop until told to stop lives in (ibacm, ibssa,
// ssa-consumer): one behaviour and one set of messages for detaching,
// signals, the run directory and lock file, the log, systemd's
// notifications and the exit status.
//
//   DaemonShell shell("ibssa");
//   if (!shell.Detach(foreground)) return 1;       // before umad is opened
//   ... make and Configure() the daemon (DaemonShell::OpenLog for its log)
//   if (!shell.Lock(run_dir, lock_file, log)) return 1;
//   ... Start() the daemon (shell.Fail(log, "start", st) on error)
//   return shell.Run(loop, log, systemd, [&] { return d.Run(); },
//                    [&] { d.RequestStop(); }, [&] { d.Shutdown(); });
//
// or, for a daemon class with those steps as methods, after Detach:
//   D d(settings);
//   return shell.Serve(&d, systemd);
//
// Signals: SIGINT and SIGTERM stop the loop (logged), SIGHUP reopens the
// log; they arrive through a signalfd on the loop, so no handler races the
// loop's state. SIGPIPE is ignored (a peer that goes away is an error
// return, not a signal).
//
// Main thread only, before any other thread starts (Detach forks, and the
// signal mask is inherited by threads started after it).
#ifndef IBACM_SSA_COMMON_BASE_DAEMON_SHELL_H
#define IBACM_SSA_COMMON_BASE_DAEMON_SHELL_H

#include <functional>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/status.h"

namespace ssa {

class DaemonShell {
 public:
  explicit DaemonShell(std::string program);
  ~DaemonShell();  // removes the lock file if Lock() took it
  DaemonShell(const DaemonShell&) = delete;
  DaemonShell& operator=(const DaemonShell&) = delete;

  // Detaches from the terminal unless `foreground` (Daemonize: before
  // anything opens umad, whose state does not survive a fork), raises the
  // open-file limit, blocks SIGINT, SIGTERM and SIGHUP for the signalfd and
  // ignores SIGPIPE. False after printing why. Detached, the command that
  // started the daemon waits until Run() serves: every failure before
  // (options, lock, sockets) reaches its stderr and its exit status is 1.
  bool Detach(bool foreground);

  // Opens `log` on `target` ("stderr", "stdout", "syslog" or a file; empty:
  // stderr). A file that cannot be opened is not fatal: the daemon keeps
  // serving and logs to syslog instead (stderr may be /dev/null once
  // detached), saying so there. The one rule for every daemon.
  static void OpenLog(Logger* log, const std::string& target, const std::string& ident);

  // Creates `run_dir` and its missing parents when given, then takes
  // `lock_file` (pid inside, lockf): a second instance stops here, before
  // it could take the first one's sockets. False after reporting why
  // (Fail).
  bool Lock(const std::string& run_dir, const std::string& lock_file, Logger* log);

  // Watches the signals on `loop`, tells systemd READY=1 (with `systemd`)
  // and the command that started a detached daemon that it started,
  // runs `run` until it returns (`stop` is called on SIGINT/SIGTERM),
  // tells systemd STOPPING=1, stops watching, calls `shutdown`, removes
  // the lock file, and logs "exiting with status N" as its last line.
  // Returns that status: 0, or 1 after reporting run's error.
  int Run(EventLoop* loop, Logger* log, bool systemd, const std::function<Status()>& run,
          const std::function<void()>& stop, const std::function<void()>& shutdown);

  // The whole start of a daemon after Detach, for a D with Configure(),
  // options().run_dir and .lock_file, log(), Start(), loop(), Run(),
  // RequestStop() and Shutdown(): configures it, takes the lock (before
  // it listens, so a second daemon cannot take the first one's sockets),
  // starts it and runs it (Run). Returns the exit status.
  template <typename D>
  int Serve(D* daemon, bool systemd) {
    Status st = daemon->Configure();
    if (!st.ok()) return Fail(daemon->log(), "configure", st);
    if (!Lock(daemon->options().run_dir, daemon->options().lock_file, daemon->log())) return 1;
    st = daemon->Start();
    if (!st.ok()) return Fail(daemon->log(), "start", st);
    return Run(
        daemon->loop(), daemon->log(), systemd, [daemon] { return daemon->Run(); },
        [daemon] { daemon->RequestStop(); }, [daemon] { daemon->Shutdown(); });
  }

  // Reports a failure the same way everywhere: "<program>: <what>: <error>"
  // on stderr and, when `log` is given, as an error in the log. Returns the
  // exit status to use (1).
  int Fail(Logger* log, const std::string& what, const Status& st) const;

  // Signals Run() handled so far (tests).
  int signals_handled() const { return signals_handled_; }

 private:
  void Report(Logger* log, const std::string& text) const;

  std::string program_;
  std::string lock_path_;
  int lock_fd_ = -1;
  int startup_fd_ = -1;  // Daemonize's pipe to the waiting first process
  int signals_handled_ = 0;
};

}  // namespace ssa

#endif
