// address_file.h: the text of the address file ib_acme -A writes
// (ibacm_addr.cfg format, "address device port pkey" lines): the host name
// (up to its first dot) for the first active port, and host-N for every
// port, as upstream's ib_acme writes it, plus commented sample lines for the
// P_Keys beyond each port's first (the daemon opens an endpoint for each).
// Pure functions over the ports libibumad reported.
#ifndef IBACM_SSA_UTIL_IB_ACME_ADDRESS_FILE_H
#define IBACM_SSA_UTIL_IB_ACME_ADDRESS_FILE_H

#include <string>
#include <vector>

#include "common/mad/umad_ports.h"

namespace ssa {
namespace acme {

// The host name up to its first '.' (upstream's strtok(host, ".")).
std::string ShortHostName(const std::string& host_name);

// The address lines for `host` over `ports` (in order; port 0 skipped):
// "host dev port default" for the first active port, then
// "host-N dev port default" for each port, N counting from 1.
std::vector<std::string> AddressLines(const std::string& host, const std::vector<UmadPort>& ports);

// The whole file: our header comment, the address lines, and the commented
// samples for extra P_Keys.
std::string AddressFileText(const std::string& host, const std::vector<UmadPort>& ports);

}  // namespace acme
}  // namespace ssa

#endif
