// path_compare.h: field-by-field comparison of the path the daemon answered
// with the one the SA gives, for provider testing.
//
// Compared are the fields ib_acme shows for a path (DGID, SGID, DLID, SLID,
// flow label, hop limit, traffic class, reversible, P_Key, SL, MTU, rate,
// packet lifetime); MTU, rate and packet lifetime by value, without their
// selector bits (the SA answers "exactly", a provider may leave them 0).
// Service ID, NumbPath and preference are request-dependent and ignored.
//
// Pure functions: any thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_PATH_COMPARE_H
#define IBACM_SSA_UTIL_IB_ACME_PATH_COMPARE_H

#include <infiniband/sa.h>

#include <string>
#include <vector>

namespace ssa {
namespace acme {

struct FieldDifference {
  std::string field;     // "dgid", "sl", ...
  std::string daemon;    // the value the daemon answered, as ib_acme prints it
  std::string expected;  // the SA's (or the hosts file's) value
};

std::vector<FieldDifference> ComparePaths(const ibv_path_record& daemon, const ibv_path_record& sa);

// "dgid fe80::3 != fe80::20:1 (SA); mtu 4 != 3 (SA)"; `source` names where
// the expected values come from.
std::string DescribeDifferences(const std::vector<FieldDifference>& diffs,
                                const std::string& source = "SA");

std::string GidToText(const ibv_gid& gid);

}  // namespace acme
}  // namespace ssa

#endif
