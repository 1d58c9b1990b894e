// tree_check.h: ssa-tree --check: whether the tree, as the core sees it
// (tree_view.h's members), is healthy, in the form monitoring systems
// (Nagios, Icinga, Sensu) read from a plugin: one line per finding, then a
// summary line, and the exit status 0 OK, 1 WARNING, 2 CRITICAL.
//
// Findings (man ssa-tree(1)):
//   CRITICAL  the core holds no SMDB; the core made no version since
//             OpenSM last asked for one (a sweep), or made one it does
//             not serve, for longer than the grace period; a distribution
//             or access node behind the core's epoch after the grace
//             period (everything below it is stale too)
//   WARNING   a consumer behind the core's epoch after the grace period;
//             a consumer with no backup parent (unless accepted); a parent over its role's
//             fan-out limit; a member re-parented, or refusing its
//             children, at least `repeat` times
//
// The grace period runs from when the core published its epoch: members
// tell the core their epoch when they renew (parents at once, consumers
// at their next renewal, a third of the lease), so a shorter grace than
// that flags healthy consumers.
//
// Pure functions; any thread.
#ifndef IBACM_SSA_UTIL_SSA_TREE_TREE_CHECK_H
#define IBACM_SSA_UTIL_SSA_TREE_TREE_CHECK_H

#include <string>
#include <vector>

#include "util/ssa_tree/tree_view.h"

namespace ssa {
namespace tree_view {

enum class Severity { kOk = 0, kWarning = 1, kCritical = 2 };
const char* SeverityName(Severity s);

struct CheckOptions {
  int grace_s = 30;  // seconds a member may stay behind a new epoch
  int fanout = 0;    // children per parent at most; 0: the core's limits
  int repeat = 5;    // re-parentings or refusals that make a finding
  // A consumer without a backup parent is a warning, unless the tree is
  // built without them (a small tree with one access node).
  bool backup_required = true;
};

struct Finding {
  Severity severity;
  std::string text;
};

struct CheckResult {
  Severity status = Severity::kOk;  // the worst finding's
  std::vector<Finding> findings;    // critical ones first
  std::string summary;              // "SSA TREE OK - ..." (one line, no newline)
};

CheckResult CheckTree(const std::vector<Member>& members, const CheckOptions& options);
// The findings' lines, then the summary; each ends in a newline.
std::string RenderCheck(const CheckResult& result);

}  // namespace tree_view
}  // namespace ssa

#endif
