// daemon_cli.h: the part of the command line every daemon of this project
// (ibacm, ibssa) shares, so each option means and prints the same thing in
// both: -O/--opts-file, -R/--run-dir, -L/--log, -D/--daemon,
// -P/--foreground, --systemd, --check-config, -V/--version, -h/--help, the
// usage errors (exit 2) and, after parsing, the start in the daemon shell
// (daemon_shell.h).
//
//   DaemonCli<D::Settings> cli("ibssa", Usage, &settings);
//   int st = cli.Parse(argc, argv, "", {{"role", required_argument, nullptr,
//                      kRole}}, [&](int c) { ...; return kDaemonCliContinue; });
//   if (st != kDaemonCliContinue) return st;
//   if (cli.check_config()) return cli.CheckConfig<D>();
//   return cli.Serve<D>();
#ifndef IBACM_SSA_COMMON_BASE_DAEMON_CLI_H
#define IBACM_SSA_COMMON_BASE_DAEMON_CLI_H

#include <getopt.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/base/daemon_shell.h"

namespace ssa {

// Long-only options of the shared set; a daemon numbers its own long-only
// options from kDaemonCliFirstOwn so they cannot collide.
enum : int { kDaemonCliSystemd = 256, kDaemonCliCheckConfig, kDaemonCliFirstOwn };

// Returned by Parse and by an own-option handler: keep going (any other
// value is the exit status to return).
constexpr int kDaemonCliContinue = -1;

// The flags of the shared options that are not settings of the daemon.
struct DaemonCliFlags {
  bool foreground = false;
  bool systemd = false;  // implies foreground
  bool check_config = false;
};

// Parses argv with getopt_long: the shared options plus `own_short` and
// `own_long`. -D/-P/--systemd/--check-config set `flags`; -V prints
// "<program> (ibacm-ssa) VERSION" and -h the usage (exit 0); every other
// option is passed to `handle` (optarg set), which returns kDaemonCliContinue
// or an exit status. An unknown option or a word that is not an option
// prints the usage and gives 2. Returns kDaemonCliContinue after the last
// option, else the exit status.
int ParseDaemonCommandLine(const char* program, void (*usage)(const char* prog), int argc,
                           char** argv, const char* own_short,
                           const std::vector<struct option>& own_long, DaemonCliFlags* flags,
                           const std::function<int(int c)>& handle);

template <typename Settings>
class DaemonCli {
 public:
  // `settings` (opts_file, opts_file_given, run_dir, log_target) receives
  // the shared options; it must outlive this object.
  DaemonCli(const char* program, void (*usage)(const char* prog), Settings* settings)
      : program_(program), usage_(usage), settings_(settings) {}

  // See ParseDaemonCommandLine; `own` sees only the daemon's own options.
  int Parse(int argc, char** argv, const char* own_short,
            const std::vector<struct option>& own_long, const std::function<int(int c)>& own) {
    return ParseDaemonCommandLine(program_, usage_, argc, argv, own_short, own_long, &flags_,
                                  [this, &own](int c) {
                                    switch (c) {
                                      case 'O':
                                        settings_->opts_file = optarg;
                                        settings_->opts_file_given = true;
                                        return kDaemonCliContinue;
                                      case 'R':
                                        settings_->run_dir = optarg;
                                        return kDaemonCliContinue;
                                      case 'L':
                                        settings_->log_target = optarg;
                                        return kDaemonCliContinue;
                                      default: return own(c);
                                    }
                                  });
  }

  bool check_config() const { return flags_.check_config; }

  // --check-config: reads the files as a start would and prints every
  // option (D::CheckConfig). The exit status.
  template <typename D>
  int CheckConfig() {
    D daemon(*settings_);
    return daemon.CheckConfig(stdout);
  }

  // The start: under systemd the log defaults to stderr (the journal);
  // `before_detach` runs in the process systemd started (its socket
  // activation names that pid), then the daemon detaches unless in the
  // foreground and a D made from the settings is served. The exit status.
  template <typename D>
  int Serve(const std::function<void()>& before_detach = nullptr) {
    if (flags_.systemd && settings_->log_target.empty()) settings_->log_target = "stderr";
    if (before_detach) before_detach();
    DaemonShell shell(program_);
    if (!shell.Detach(flags_.foreground)) return 1;
    D daemon(*settings_);
    return shell.Serve(&daemon, flags_.systemd);
  }

 private:
  const char* program_;
  void (*usage_)(const char* prog);
  Settings* settings_;
  DaemonCliFlags flags_;
};

}  // namespace ssa

#endif
