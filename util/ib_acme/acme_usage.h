// acme_usage.h: ib_acme's usage text. UpstreamUsage() is printed, as
// upstream prints it, when the arguments are unusable (identical text, so
// scripts and people see what they know); --help adds ProviderTestUsage().
// Pure functions.
#ifndef IBACM_SSA_UTIL_IB_ACME_ACME_USAGE_H
#define IBACM_SSA_UTIL_IB_ACME_ACME_USAGE_H

#include <string>

namespace ssa {
namespace acme {

std::string UpstreamUsage(const std::string& program);
std::string ProviderTestUsage(const std::string& program);

}  // namespace acme
}  // namespace ssa

#endif
