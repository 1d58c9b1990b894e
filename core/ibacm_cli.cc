// ibacm_cli.cc: the ibacm command line (ibacm_cli.h).
#include "core/ibacm_cli.h"

#include "config.h"

#include <getopt.h>

#include <cstdio>
#include <string>

#include "common/base/daemon_shell.h"
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
      "       --check-config     read the files as a start would, print every option's\n"
      "                          value and where it came from; exit 0, or 1 on any error\n"
      "   -V, --version          print the version and exit\n"
      "   -h, --help             this text\n",
      prog, SYSCONF_DIR, SYSCONF_DIR);
}

}  // namespace

namespace ssa {

int IbacmMain(int argc, char** argv, const NetlinkOpenFn& netlink_open) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  ssa::Daemon::Settings settings;
  settings.netlink_open = netlink_open;
  bool foreground = false, systemd = false;
  bool check_config = false;
  enum { kProviderDir = 256, kSystemd, kCheckConfig };
  static const struct option long_opts[] = {
      {"daemon", no_argument, nullptr, 'D'},
      {"foreground", no_argument, nullptr, 'P'},
      {"addr-file", required_argument, nullptr, 'A'},
      {"opts-file", required_argument, nullptr, 'O'},
      {"run-dir", required_argument, nullptr, 'R'},
      {"log", required_argument, nullptr, 'L'},
      {"provider-dir", required_argument, nullptr, kProviderDir},
      {"systemd", no_argument, nullptr, kSystemd},
      {"check-config", no_argument, nullptr, kCheckConfig},
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
      case kCheckConfig: check_config = true; break;
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
  if (check_config) {
    settings.check_only = true;
    ssa::Daemon daemon(settings);
    return daemon.CheckConfig(stdout);
  }
  if (systemd && settings.log_target.empty()) settings.log_target = "stderr";
  // Before Detach: LISTEN_PID names this process, not its grandchild.
  settings.activated_fds = ssa::TakeSystemdSockets(&settings.activation_error);
  ssa::DaemonShell shell("ibacm");
  if (!shell.Detach(foreground)) return 1;

  ssa::Daemon daemon(settings);
  return shell.Serve(&daemon, systemd);
}

}  // namespace ssa
