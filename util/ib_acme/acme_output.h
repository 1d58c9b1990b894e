// acme_output.h: the text ib_acme prints, in upstream's formats, as strings
// so tests can pin them down without a daemon.
//
// Pure functions: any thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_ACME_OUTPUT_H
#define IBACM_SSA_UTIL_IB_ACME_ACME_OUTPUT_H

#include <infiniband/sa.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/acm/acm_wire.h"

namespace ssa {
namespace acme {

// "Path information\n  dgid: ...\n ... packet lifetime: N\n": the block
// upstream's show_path() prints for a resolved path.
std::string FormatPathInformation(const ibv_path_record& path);

// -P row format: the header line "svc,Error Count,...\n" (printed once per
// run) and one "svc,1,2,...\n" line per answer.
std::string FormatPerfHeader(size_t counter_count);
std::string FormatPerfRow(const std::string& svc, const std::vector<uint64_t>& counters);
// -P col: "svc\n" then "Error Count : 0\n" per counter.
std::string FormatPerfColumns(const std::string& svc, const std::vector<uint64_t>& counters);

// -e: the header line (printed once per run) and one row per endpoint:
// "svc,0x<guid>,<port>,0x<pkey>,<index>,<provider>,<addr>,<addr>...\n".
std::string FormatEndpointHeader();
std::string FormatEndpointRow(const std::string& svc, int index, const acm::EpConfig& ep);

// The errno the stock client library (libibacm) turns an ACM status into:
// ESRCADDR/EDESTADDR -> EADDRNOTAVAIL, ENOMEM/EINVAL/ENODATA/ENOTCONN/
// ETIMEDOUT -> themselves, anything else -> EINVAL; 0 for success.
int AcmStatusToErrno(uint8_t status);

// The text of a source address the daemon selected, as the stock library
// prints it after "Source: " (a name, or an IPv4/IPv6 address).
std::string SourceAddressText(const acm::EpAddr& source);

// "return status 0x%x\n" of a (possibly negative) return code.
std::string FormatReturnStatus(int ret);

}  // namespace acme
}  // namespace ssa

#endif
