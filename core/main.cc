// main.cc: the ibacm command line. Parses options, daemonizes when asked,
// takes the lock file, routes signals into the event loop, runs a Daemon.
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/base/daemon_util.h"
#include "core/daemon.h"

namespace {

void Usage(const char* prog) {
  printf(
      "usage: %s [options]\n"
      "   -D, --daemon           run as a daemon (default)\n"
      "   -P, --foreground       run as a standard process\n"
      "   -A, --addr-file FILE   address configuration file (default %s/ibacm_addr.cfg)\n"
      "   -O, --opts-file FILE   option configuration file (default %s/ibacm_opts.cfg)\n"
      "   -R, --run-dir DIR      put the socket, port and pid files in DIR\n"
      "   -L, --log TARGET       log to TARGET (file, stderr, stdout or syslog)\n"
      "       --provider-dir DIR load providers from DIR\n"
      "       --systemd          run under systemd (foreground, READY notification)\n"
      "   -V, --version          print the version and exit\n"
      "   -h, --help             this text\n",
      prog, SYSCONF_DIR, SYSCONF_DIR);
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  ssa::Daemon::Settings settings;
  bool foreground = false, systemd = false;
  enum { kProviderDir = 256, kSystemd };
  static const struct option long_opts[] = {
      {"daemon", no_argument, nullptr, 'D'},
      {"foreground", no_argument, nullptr, 'P'},
      {"addr-file", required_argument, nullptr, 'A'},
      {"opts-file", required_argument, nullptr, 'O'},
      {"run-dir", required_argument, nullptr, 'R'},
      {"log", required_argument, nullptr, 'L'},
      {"provider-dir", required_argument, nullptr, kProviderDir},
      {"systemd", no_argument, nullptr, kSystemd},
      {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "DPA:O:R:L:Vh", long_opts, nullptr)) != -1) {
    switch (c) {
      case 'D': foreground = false; break;
      case 'P': foreground = true; break;
      case 'A':
        settings.addr_file = optarg;
        settings.addr_file_given = true;
        break;
      case 'O':
        settings.opts_file = optarg;
        settings.opts_file_given = true;
        break;
      case 'R': settings.run_dir = optarg; break;
      case 'L': settings.log_target = optarg; break;
      case kProviderDir: settings.provider_dir = optarg; break;
      case kSystemd:
        systemd = true;
        foreground = true;
        break;
      case 'V': printf("ibacm (ibacm-ssa) %s\n", PACKAGE_VERSION); return 0;
      case 'h': Usage(argv[0]); return 0;
      default: Usage(argv[0]); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "ibacm: unexpected argument '%s'\n", argv[optind]);
    Usage(argv[0]);
    return 2;
  }
  if (systemd && settings.log_target.empty()) settings.log_target = "stderr";
  // Before Daemonize: LISTEN_PID names this process, not its grandchild.
  settings.activated_fds = ssa::TakeSystemdSockets(&settings.activation_error);
  // Fork before anything opens umad: its state does not survive a fork.
  if (!foreground && !ssa::Daemonize()) {
    perror("ibacm: daemonize");
    return 1;
  }
  ssa::RaiseFdLimit();

  ssa::Daemon daemon(settings);
  // Signals arrive through a signalfd on the loop, so handlers never race
  // the loop's state.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGHUP);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  signal(SIGPIPE, SIG_IGN);

  ssa::Status st = daemon.Configure();
  if (!st.ok()) {
    fprintf(stderr, "ibacm: %s\n", st.ToString().c_str());
    return 1;
  }
  // The lock comes before listening, so a second daemon cannot take over
  // the first one's socket.
  std::string lock_error;
  int lock_fd = ssa::TakeLockFile(daemon.options().lock_file, "ibacm", &lock_error);
  if (lock_fd < 0) {
    fprintf(stderr, "ibacm: %s\n", lock_error.c_str());
    daemon.log()->Log(ssa::LogLevel::kError, "%s", lock_error.c_str());
    return 1;
  }
  st = daemon.Start();
  if (!st.ok()) {
    fprintf(stderr, "ibacm: %s\n", st.ToString().c_str());
    daemon.log()->Log(ssa::LogLevel::kError, "start failed: %s", st.ToString().c_str());
    unlink(daemon.options().lock_file.c_str());
    return 1;
  }
  int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
  daemon.loop()->WatchFd(sfd, EPOLLIN, [&](uint32_t) {
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
      if (si.ssi_signo == SIGHUP) {
        daemon.log()->Log(ssa::LogLevel::kInfo, "SIGHUP: reopening the log");
        daemon.log()->Reopen();
      } else {
        daemon.log()->Log(ssa::LogLevel::kInfo, "signal %u: shutting down", si.ssi_signo);
        daemon.RequestStop();
      }
    }
  });
  if (systemd) ssa::NotifySystemd("READY=1");
  st = daemon.Run();
  if (systemd) ssa::NotifySystemd("STOPPING=1");
  daemon.loop()->UnwatchFd(sfd);
  close(sfd);
  daemon.Shutdown();
  unlink(daemon.options().lock_file.c_str());
  close(lock_fd);
  if (!st.ok()) {
    fprintf(stderr, "ibacm: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}
