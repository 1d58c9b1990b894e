// ibssa_options.h: the ibssa daemon's settings, from ibssa_opts.cfg (INI:
// keys before any section, or in [ibssa]; man ibssa_opts.cfg(5)) and the
// command line, which overrides the file (-R, -L, --role, --listen).
//
// A plain value, filled once at start-up on the main thread.
#ifndef IBACM_SSA_DISTRIB_IBSSA_OPTIONS_H
#define IBACM_SSA_DISTRIB_IBSSA_OPTIONS_H

#include <string>
#include <vector>

#include "common/base/config_file.h"
#include "common/base/log.h"
#include "common/base/status.h"

namespace ssa {

class OptionSet;
struct OptionNote;

namespace distrib {

// Role bits, as the join MAD carries them (common/tree/ssa_mad.h).
constexpr unsigned kRoleDistribution = 1u << 0;
constexpr unsigned kRoleAccess = 1u << 1;

struct IbssaOptions {
  unsigned roles = kRoleAccess;  // "role": distribution, access or both
  // Data channel: "ADDR:PORT" (port 0: any free port, announced in the
  // join), the address announced when ADDR is a wildcard, the transport.
  std::string listen = "0.0.0.0:7471";
  std::string announce;
  std::string transport = "tcp";  // tcp | rsocket
  // The port to join through: "" = the first active InfiniBand port, or
  // "CA:PORT" / a port GUID.
  std::string port;
  std::string log_file = "/var/log/ibssa.log";
  LogLevel log_level = LogLevel::kInfo;
  std::string lock_file = "/run/ibssa.pid";
  std::string run_dir;  // -R: lock file and state go there
  int max_children = 1024;
  int prdb_threads = 2;  // access: PRDB computation workers
  // access: memory for the route-suffix table (2 bytes per switch and LID)
  // that whole PRDBs are built with; 0: none (distrib/prdb_service.h).
  int prdb_route_table_mb = 64;
  // access: whether consumers' PRDBs carry the prefix rows for other
  // subnets' DGIDs (common/smdb/prefix_rows.h); no: built as before them,
  // for tests of consumers' fallback (ibssa_opts.cfg(5)).
  bool prefix_rows = true;
  int join_timeout_ms = 1000;  // one control MAD's timeout (retries follow)
  int join_retries = 3;
  // The daemon's metrics for node_exporter's textfile collector, rewritten
  // every metrics_interval seconds; empty: none (common/metrics/).
  std::string metrics_file;
  int metrics_interval_s = 15;
  std::string data_faults;  // fault injection (tests only; ibssa_opts.cfg(5))
  std::string mad_faults;

  // Binds the options file's keys to these members.
  void Bind(OptionSet* set);
  // Reads the file's entries through `set` (bound by Bind): the errors,
  // each naming the file and line (an unknown key, section or role, a bad
  // value). The daemon does not start with any.
  std::vector<OptionNote> Read(const ConfigFile& cfg, OptionSet* set);
  // Bind and Read, the errors as strings.
  std::vector<std::string> Apply(const ConfigFile& cfg);
  // "distribution", "access", "distribution,access" (either order).
  static Status ParseRoles(const std::string& text, unsigned* roles);
  static std::string RolesName(unsigned roles);
  void UseRunDir(const std::string& dir);
  // One line with every setting, for the log.
  std::string Describe() const;
};

}  // namespace distrib
}  // namespace ssa

#endif
