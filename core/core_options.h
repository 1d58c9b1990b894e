// core_options.h: the ibacm daemon's own settings, from the command line and
// the [core] section of acm_opts.cfg (or an unchanged upstream
// ibacm_opts.cfg, whose "name value" lines are the core's options).
//
// A plain value, filled once at start-up on the main thread.
#ifndef IBACM_SSA_CORE_CORE_OPTIONS_H
#define IBACM_SSA_CORE_CORE_OPTIONS_H

#include <string>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/status.h"

namespace ssa {

class OptionSet;
struct OptionNote;

// One "provider" line: "NAME TARGET" (core/provider_selector.h) and where
// it was read ("file:line"), for messages about its name.
struct ProviderRuleLine {
  std::string value;
  std::string where;
};

struct CoreOptions {
  // Upstream ibacm core options, upstream defaults.
  std::string log_file = "/var/log/ibacm.log";
  std::string log_level = "info";
  std::string lock_file = "/run/ibacm.pid";
  int server_port = 6125;
  std::string server_mode = "unix";  // unix | loop | open
  bool acme_plus_kernel_only = false;
  std::string provider_lib_path = PROVIDER_DIR;
  bool support_ips_in_addr_cfg = false;
  int timeout_ms = 2000;  // upstream "timeout"
  int retries = 2;
  int sa_depth = 16;  // more than upstream's 1: a slow SA must not serialize unrelated requests
  int umad_debug_level = 0;
  // "provider NAME PREFIX|default" lines (and our device:port form), in order.
  std::vector<ProviderRuleLine> provider_rules;

  // Our additions.
  // Where the socket, port and pid files go when a run directory is given
  // (-R); empty means upstream's fixed paths under /run.
  std::string run_dir;
  std::string unix_socket_path = "/run/ibacm-unix.sock";
  std::string unix_socket_link = "/run/ibacm.sock";  // upstream's compatibility link
  std::string port_file = "/run/ibacm-tcp.port";
  std::string port_file_link = "/run/ibacm.port";
  int port_poll_ms = 5000;  // how often ports are re-read for changes
  // Clients connected at once; 0: the descriptor limit less what the
  // daemon keeps for itself (ClientServer::DefaultMaxClients).
  int max_clients = 0;
  int client_timeout_ms = 5000;  // to finish a message once begun; 0: for ever
  // One client's share (core/client_server.h): messages in one turn of a
  // client that sent several, and requests it may have unanswered before
  // it is not read until answers go out.
  int client_read_budget = 8;
  int client_max_inflight = 32;
  // The kernel's path-record requests over netlink (upstream always serves
  // them), and the timeout (ms) the kernel is told to wait for an answer.
  bool kernel_path_service = true;
  int kernel_path_timeout_ms = 2000;
  // Follow IP address changes of IPoIB interfaces (rtnetlink), as upstream.
  bool addr_watch = true;
  // Metrics for node_exporter's textfile collector: written to this file
  // every metrics_interval seconds; empty: none (common/metrics/).
  std::string metrics_file;
  int metrics_interval_s = 15;
  std::string addr_file = SYSCONF_DIR "/ibacm_addr.cfg";
  std::string opts_file = SYSCONF_DIR "/ibacm_opts.cfg";

  // Binds the core's keys to these members (the keys
  // common/base/option_registry.h lists for "core").
  void Bind(OptionSet* set);
  // Reads the entries of `cfg` that belong to the core through `set` (bound
  // by Bind) and returns the errors, each naming the file and line. In an
  // upstream-format file the options other readers read are left for the
  // providers; one that nobody reads is an error, unless the upstream
  // bridge is in use (upstream_provider set), which passes such options on
  // to the upstream library it loads. In an INI file a key in [core] (or
  // before any section) that the core does not read is an error, naming the
  // section it belongs in or the nearest core key.
  std::vector<OptionNote> Read(const ConfigFile& cfg, OptionSet* set);
  // Bind and Read, the errors as strings.
  std::vector<std::string> Apply(const ConfigFile& cfg);
  // Points every runtime file into `dir` (the -R option).
  void UseRunDir(const std::string& dir);
};

}  // namespace ssa

#endif
