// main.cc: the ibssa command line (man ibssa(8)). Parses options and runs
// an IbssaDaemon in the project's daemon shell (common/base/daemon_shell.h)
// until SIGINT/SIGTERM; SIGHUP reopens the log.
#include "config.h"

#include <getopt.h>

#include <cstdio>
#include <string>

#include "common/base/daemon_shell.h"
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
  ssa::distrib::IbssaDaemon::Settings settings;
  settings.opts_file = SYSCONF_DIR "/ibssa_opts.cfg";
  bool foreground = false, systemd = false;
  bool check_config = false;
  std::string check_plugin;
  enum { kSystemd = 256, kRole, kListen, kCheckConfig, kCheckPlugin };
  static const struct option long_opts[] = {
      {"opts-file", required_argument, nullptr, 'O'},
      {"run-dir", required_argument, nullptr, 'R'},
      {"log", required_argument, nullptr, 'L'},
      {"daemon", no_argument, nullptr, 'D'},
      {"foreground", no_argument, nullptr, 'P'},
      {"systemd", no_argument, nullptr, kSystemd},
      {"role", required_argument, nullptr, kRole},
      {"listen", required_argument, nullptr, kListen},
      {"check-config", no_argument, nullptr, kCheckConfig},
      {"check-plugin-config", required_argument, nullptr, kCheckPlugin},
      {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0},
  };
  int c;
  while ((c = getopt_long(argc, argv, "O:R:L:DPVh", long_opts, nullptr)) != -1) {
    switch (c) {
      case 'O':
        settings.opts_file = optarg;
        settings.opts_file_given = true;
        break;
      case 'R': settings.run_dir = optarg; break;
      case 'L': settings.log_target = optarg; break;
      case 'D': foreground = false; break;
      case 'P': foreground = true; break;
      case kSystemd:
        systemd = true;
        foreground = true;
        break;
      case kRole: {
        ssa::Status st = ssa::distrib::IbssaOptions::ParseRoles(optarg, &settings.roles);
        if (!st.ok()) {
          fprintf(stderr, "ibssa: --role: %s\n", st.message().c_str());
          return 2;
        }
        break;
      }
      case kListen: settings.listen = optarg; break;
      case kCheckConfig: check_config = true; break;
      case kCheckPlugin: check_plugin = optarg; break;
      case 'V': printf("ibssa (ibacm-ssa) %s\n", PACKAGE_VERSION); return 0;
      case 'h': Usage(argv[0]); return 0;
      default: Usage(argv[0]); return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "ibssa: unexpected argument '%s'\n", argv[optind]);
    Usage(argv[0]);
    return 2;
  }
  if (!check_plugin.empty()) return ssa::distrib::CheckPluginConfig(check_plugin, stdout);
  if (check_config) {
    ssa::distrib::IbssaDaemon daemon(settings);
    return daemon.CheckConfig(stdout);
  }
  if (systemd && settings.log_target.empty()) settings.log_target = "stderr";
  ssa::DaemonShell shell("ibssa");
  if (!shell.Detach(foreground)) return 1;

  ssa::distrib::IbssaDaemon daemon(settings);
  return shell.Serve(&daemon, systemd);
}
