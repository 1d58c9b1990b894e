// ibacm_cli.cc: the ibacm command line (ibacm_cli.h).
#include "core/ibacm_cli.h"

#include "config.h"

#include <cstdio>
#include <string>

#include "common/base/daemon_cli.h"
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
  enum { kProviderDir = kDaemonCliFirstOwn };
  DaemonCli<Daemon::Settings> cli("ibacm", Usage, &settings);
  int status = cli.Parse(argc, argv, "A:",
                         {{"addr-file", required_argument, nullptr, 'A'},
                          {"provider-dir", required_argument, nullptr, kProviderDir}},
                         [&settings](int c) {
                           if (c == 'A') {
                             settings.addr_file = optarg;
                             settings.addr_file_given = true;
                           } else {
                             settings.provider_dir = optarg;  // kProviderDir
                           }
                           return kDaemonCliContinue;
                         });
  if (status != kDaemonCliContinue) return status;
  if (cli.check_config()) {
    settings.check_only = true;
    return cli.CheckConfig<Daemon>();
  }
  // Before Detach: LISTEN_PID names this process, not its grandchild.
  return cli.Serve<Daemon>(
      [&settings] { settings.activated_fds = TakeSystemdSockets(&settings.activation_error); });
}

}  // namespace ssa
