// acme_options.h: ib_acme's command line, parsed into one plain struct.
//
// The upstream options keep upstream's parsing exactly: GNU getopt with the
// option string "e::f:s:d:vcA::O::D:P::S:C:V", and upstream's reading of the
// optional arguments of -e, -A, -O and -P, which also take the NEXT word when
// it does not start with '-' ("-P col" as well as "-Pcol"). Upstream's
// validity rules decide when the usage text is printed instead.
//
// Provider testing (our addition) has long options only, plus -T:
//   -T, --test-provider    provider-testing mode
//   --dest-file FILE       destinations, one per line (bracket ranges allowed)
//   --hosts FILE           every address of a hosts file (/etc/hosts style,
//                          or ibacm_hosts.data with an expected GID per line)
//   --lid-range A-B        every LID from A to B
//   --verify sa|daemon|none  how each answer is checked (default sa)
//   --sa-port CA:PORT      local port for direct SA queries
//   --timeout MS           per SA try (3 tries; default 5000); the daemon
//                          gets 3 x MS per request
// Any of --dest-file, --hosts and --lid-range implies -T.
//
// --shm: every resolve (-d with any -f, -T) goes through libibssa_path (the
// daemon's shared-memory path tables, its socket for the rest) instead of
// the socket; the output is the same.
//
// Pure: reads argv (which getopt may permute) and getopt's globals, nothing
// else. Not thread-safe (getopt's state is global); call from main's thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_ACME_OPTIONS_H
#define IBACM_SSA_UTIL_IB_ACME_ACME_OPTIONS_H

#include <cstdint>
#include <string>

namespace ssa {
namespace acme {

// -f: how -s and -d are read. kUnspecified guesses as upstream does.
enum class AddrFormat : char {
  kUnspecified = 'u',
  kIp = 'i',
  kName = 'n',
  kLid = 'l',
  kGid = 'g',
};

// -P and its argument.
enum class PerfMode {
  kNone,
  kRow,             // -P: the global counters, one CSV row per service
  kColumn,          // -P col: the same, one "name : value" line per counter
  kEndpointIndex,   // -P N: endpoint N's counters
  kAllEndpoints,    // -P all: every endpoint's counters
  kEndpointAddress  // -P s: the counters of the endpoint with address -s
};

// Provider testing: how a resolved path is checked.
enum class VerifyMode {
  kSa,      // our own SA PathRecord query through umad (needs a local port)
  kDaemon,  // the daemon asks the SA (a path request with QUERY_SA), as -v does
  kNone,    // resolve only
};

struct ProviderTestOptions {
  bool enabled = false;
  std::string dest_file;
  std::string hosts_file;
  bool has_lid_range = false;
  uint16_t lid_first = 0;
  uint16_t lid_last = 0;
  VerifyMode verify = VerifyMode::kSa;
  std::string sa_port;  // "CA:PORT"; empty: the port the path starts from
  int timeout_ms = 5000;
};

struct AcmeOptions {
  // Upstream's options, with upstream's defaults (Debian's build: the unix
  // socket server mode, /etc/rdma).
  AddrFormat addr_format = AddrFormat::kUnspecified;
  bool has_src = false;
  std::string src_arg;  // -s
  bool has_dest = false;
  std::string dest_arg;  // -d
  bool verify = false;   // -v
  bool nodelay = false;  // -c
  int repetitions = 1;   // -C
  bool enum_ep = false;  // -e
  int ep_index = 0;      // -e N and -P N share it, as upstream's do
  PerfMode perf = PerfMode::kNone;
  std::string svc_arg = "/run/ibacm-unix.sock";  // -S
  bool make_addr = false;                        // -A
  std::string addr_file = "ibacm_addr.cfg";
  bool make_opts = false;  // -O
  std::string opts_file = "ibacm_opts.cfg";
  std::string dest_dir = "/etc/rdma";  // -D
  bool verbose = false;                // -V
  bool shm = false;                    // --shm

  ProviderTestOptions test;
};

constexpr const char kDefaultConfDir[] = "/etc/rdma";

enum class ParseOutcome {
  kRun,    // options are usable
  kUsage,  // print the usage text and exit 1, as upstream does
  kHelp,   // --help: print the full usage and exit 0
};

// Parses argv. `report_errors` lets getopt print "invalid option" lines to
// stderr as upstream's does; tests turn it off. On kUsage, `*error` says
// what was wrong when it is not getopt's own complaint (may be empty).
ParseOutcome ParseAcmeOptions(int argc, char** argv, AcmeOptions* out, std::string* error,
                              bool report_errors = true);

// Upstream's -P argument rules: "col"/"all" (first three letters, any case),
// "s", a positive endpoint number, anything else is the row format.
void ParsePerfArgument(const std::string& arg, AcmeOptions* out);

}  // namespace acme
}  // namespace ssa

#endif
