// acme_usage.cc: the usage text (see acme_usage.h).
#include "util/ib_acme/acme_usage.h"

namespace ssa {
namespace acme {

std::string UpstreamUsage(const std::string& program) {
  std::string u;
  u += "usage 1: " + program + "\n";
  u += "Query specified ibacm service for data\n";
  u += "   [-e [N]]         - display one or all endpoints:\n";
  u += "                        No index: all endpoints\n";
  u += "                        N: endpoint N (N = 1, 2, ...)\n";
  u += "   [-f addr_format] - i(p), n(ame), l(id), g(gid), or u(nspecified)\n";
  u += "                      address format for -s and -d options, default: 'u'\n";
  u += "   [-s src_addr]    - source address for path queries\n";
  u += "   [-d dest_addr]   - destination addresses for path queries\n";
  u += "   [-v]             - verify ACM response against SA query response\n";
  u += "   [-c]             - read ACM cached data only\n";
  u += "   [-P [opt]]       - query performance data from destination service:\n";
  u += "                        No option: output combined data in row format.\n";
  u += "                        col: output combined data in column format.\n";
  u += "                        N: output data for endpoint N (N = 1, 2,...)\n";
  u += "                        all: output data for all endpoints\n";
  u += "                        s: output data for the endpoint with the\n";
  u += "                           address specified in -s option\n";
  u += "   [-S svc_addr]    - address of ACM service, default: local service\n";
  u += "   [-C repetitions] - repeat count for resolution\n";
  u += "usage 2: " + program + "\n";
  u += "Generate default ibacm service configuration and option files\n";
  u += "   -A [addr_file]   - generate local address configuration file\n";
  u += "                      (default is ibacm_addr.cfg)\n";
  u += "   -O [opt_file]    - generate local ibacm_opts.cfg options file\n";
  u += "                      (default is ibacm_opts.cfg)\n";
  u += "   -D dest_dir      - specify destination directory for output files\n";
  u += "                      (default is /etc/rdma)\n";
  u += "   -V               - enable verbose output\n";
  return u;
}

std::string ProviderTestUsage(const std::string& program) {
  std::string u;
  u += "usage 3: " + program + " -T\n";
  u += "Test the service's provider: resolve every destination, check each against the SA\n";
  u += "   [-d dest_addr]   - destinations (bracket ranges as above)\n";
  u += "   [--dest-file F]  - destinations from file F, one per line\n";
  u += "   [--hosts F]      - every address of hosts file F (/etc/hosts or ibacm_hosts.data)\n";
  u += "   [--lid-range A-B]- every LID from A to B\n";
  u += "   [-f addr_format] - as above; default: numbers are LIDs, IP literals IPs, else names\n";
  u += "   [-s src_addr]    - source address\n";
  u += "   [-c]             - read ACM cached data only\n";
  u += "   [-S svc_addr]    - ACM service(s) to test\n";
  u += "   [--verify M]     - sa: ask the SA directly (needs a local port, default)\n";
  u += "                      daemon: have the daemon ask the SA (QUERY_SA, as -v)\n";
  u += "                      none: resolve only\n";
  u += "   [--sa-port CA:P] - local port for --verify sa\n";
  u += "   [--timeout MS]   - per SA try (3 tries), default 5000; 3 x MS per daemon request\n";
  u += "   [--shm]          - resolve through libibssa_path (the daemon's shared-memory\n";
  u += "                      path tables), also for usage 1's -d\n";
  u += "Exit status: 0 all matched, 1 any mismatch or error, 2 could not test\n";
  return u;
}

}  // namespace acme
}  // namespace ssa
