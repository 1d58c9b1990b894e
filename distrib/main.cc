// main.cc: the ibssa command line (man ibssa(8)). Parses options and runs
// an IbssaDaemon in the project's daemon shell (common/base/daemon_shell.h)
// until SIGINT/SIGTERM; SIGHUP reopens the log.
#include "config.h"

#include <cstdio>
#include <string>

#include "common/base/daemon_cli.h"
#include "common/base/daemon_util.h"
#include "distrib/ibssa_daemon.h"
#include "distrib/plugin_check.h"

namespace {

void Usage(const char* prog) {
  printf(
      "usage: %s [options]\n"
      "   -O, --opts-file FILE   options file (default %s/ibssa_opts.cfg)\n"
      "   -R, --run-dir DIR      put the lock file in DIR\n"
      "   -L, --log TARGET       log to TARGET (a file, stderr, stdout or syslog)\n"
      "   -D, --daemon           run in the background (default)\n"
      "   -P, --foreground       stay in the foreground\n"
      "       --systemd          run under systemd (foreground, READY notification)\n"
      "       --role ROLES       distribution, access or distribution,access\n"
      "                          (overrides the file's role)\n"
      "       --listen ADDR:PORT data-channel address (port 0: any free port)\n"
      "       --check-config     read the options as a start would, print each one's\n"
      "                          value and where it came from; exit 0, or 1 on any error\n"
      "       --check-plugin-config OPENSM_CONF|OPTIONS\n"
      "                          the same for the OpenSM plugin's options: the\n"
      "                          event_plugin_options of OpenSM's configuration file,\n"
      "                          or that string itself (when it holds a '=')\n"
      "   -V, --version          print the version\n",
      prog, SYSCONF_DIR);
}

}  // namespace

int main(int argc, char** argv) {
  ssa::TuneAllocatorForDatabases();  // PRDB/SMDB copies: see daemon_util.h
  using ssa::distrib::IbssaDaemon;
  IbssaDaemon::Settings settings;
  settings.opts_file = SYSCONF_DIR "/ibssa_opts.cfg";
  std::string check_plugin;
  enum { kRole = ssa::kDaemonCliFirstOwn, kListen, kCheckPlugin };
  ssa::DaemonCli<IbssaDaemon::Settings> cli("ibssa", Usage, &settings);
  int status = cli.Parse(argc, argv, "",
                         {{"role", required_argument, nullptr, kRole},
                          {"listen", required_argument, nullptr, kListen},
                          {"check-plugin-config", required_argument, nullptr, kCheckPlugin}},
                         [&](int c) {
                           switch (c) {
                             case kRole: {
                               ssa::Status st =
                                   ssa::distrib::IbssaOptions::ParseRoles(optarg, &settings.roles);
                               if (!st.ok()) {
                                 fprintf(stderr, "ibssa: --role: %s\n", st.message().c_str());
                                 return 2;
                               }
                               break;
                             }
                             case kListen: settings.listen = optarg; break;
                             default: check_plugin = optarg; break;  // kCheckPlugin
                           }
                           return ssa::kDaemonCliContinue;
                         });
  if (status != ssa::kDaemonCliContinue) return status;
  if (!check_plugin.empty()) return ssa::distrib::CheckPluginConfig(check_plugin, stdout);
  if (cli.check_config()) return cli.CheckConfig<IbssaDaemon>();
  return cli.Serve<IbssaDaemon>();
}
