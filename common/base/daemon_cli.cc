// daemon_cli.cc: the shared daemon command line (daemon_cli.h).
#include "common/base/daemon_cli.h"

#include "config.h"

#include <string>

namespace ssa {

int ParseDaemonCommandLine(const char* program, void (*usage)(const char* prog), int argc,
                           char** argv, const char* own_short,
                           const std::vector<struct option>& own_long, DaemonCliFlags* flags,
                           const std::function<int(int c)>& handle) {
  std::vector<struct option> long_opts = {
      {"opts-file", required_argument, nullptr, 'O'},
      {"run-dir", required_argument, nullptr, 'R'},
      {"log", required_argument, nullptr, 'L'},
      {"daemon", no_argument, nullptr, 'D'},
      {"foreground", no_argument, nullptr, 'P'},
      {"systemd", no_argument, nullptr, kDaemonCliSystemd},
      {"check-config", no_argument, nullptr, kDaemonCliCheckConfig},
      {"version", no_argument, nullptr, 'V'},
      {"help", no_argument, nullptr, 'h'},
  };
  long_opts.insert(long_opts.end(), own_long.begin(), own_long.end());
  long_opts.push_back({nullptr, 0, nullptr, 0});
  const std::string short_opts = std::string("O:R:L:DPVh") + own_short;
  int c;
  while ((c = getopt_long(argc, argv, short_opts.c_str(), long_opts.data(), nullptr)) != -1) {
    switch (c) {
      case 'D': flags->foreground = false; break;
      case 'P': flags->foreground = true; break;
      case kDaemonCliSystemd:
        flags->systemd = true;
        flags->foreground = true;
        break;
      case kDaemonCliCheckConfig: flags->check_config = true; break;
      case 'V': printf("%s (ibacm-ssa) %s\n", program, PACKAGE_VERSION); return 0;
      case 'h': usage(argv[0]); return 0;
      case '?': usage(argv[0]); return 2;
      default: {
        int st = handle(c);
        if (st != kDaemonCliContinue) return st;
        break;
      }
    }
  }
  if (optind < argc) {
    fprintf(stderr, "%s: unexpected argument '%s'\n", program, argv[optind]);
    usage(argv[0]);
    return 2;
  }
  return kDaemonCliContinue;
}

}  // namespace ssa
