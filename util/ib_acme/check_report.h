// check_report.h: what a provider test reports: one result per destination,
// the running counts and the final summary, as text.
//
// Two presentations, picked by the caller: on a terminal a progress bar
// redrawn in place, with only problems printed as lines above it; otherwise
// (pipes, files, tests) one plain line per destination. The summary is the
// same in both.
//
// Counting: every destination is either resolved by the daemon or an error.
// A resolved one is then matched (the SA agrees on every compared field),
// mismatched (a field differs, the SA has no such path, or the hosts file
// expected another DGID) or an error (the SA could not be asked). Without
// verification resolved ones are only counted as resolved.
//
// Pure formatting plus a small stateful progress printer; one thread.
#ifndef IBACM_SSA_UTIL_IB_ACME_CHECK_REPORT_H
#define IBACM_SSA_UTIL_IB_ACME_CHECK_REPORT_H

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

#include "common/base/progress_meter.h"
#include "util/ib_acme/latency_stats.h"

namespace ssa {
namespace acme {

enum class TestOutcome {
  kResolved,  // resolved, not verified (--verify none)
  kMatched,
  kMismatched,
  kResolveError,  // the daemon did not resolve it
  kVerifyError,   // resolved, but the SA's view could not be had
};

struct TargetResult {
  std::string label;  // TestTarget::Label()
  TestOutcome outcome = TestOutcome::kResolveError;
  double latency_ms = 0;  // the daemon's resolve, as the client saw it
  std::string detail;     // differences or the error
};

struct TestSummary {
  size_t destinations = 0;
  size_t resolved = 0;
  size_t matched = 0;
  size_t mismatched = 0;
  size_t errors = 0;
  bool verified = true;  // false with --verify none
  LatencyStats latency;  // one sample per resolved destination

  void Add(const TargetResult& r);
  bool ok() const { return mismatched == 0 && errors == 0; }
};

// "lid 3: ok (0.213 ms)", "lid 3: MISMATCH (0.2 ms): sl 0 != 1 (SA)",
// "name x: ERROR: resolve failed: ...". No newline.
std::string FormatResultLine(const TargetResult& r);
bool IsProblem(const TargetResult& r);

// The summary block, ending in a newline.
std::string FormatSummary(const std::string& svc, const TestSummary& s);

// "[#######.............] 7/20 ok 6 mismatched 1 errors 0"; `width` is
// the bar's inner width.
std::string FormatProgressBar(size_t done, size_t total, const TestSummary& s, int width = 30);

// Prints results as they come: plain lines, or on a terminal the bar
// (common/base/progress_meter.h's InPlaceLine, redrawn at most every
// 100 ms: a terminal is slower than a big fabric's answers).
class ProgressPrinter {
 public:
  ProgressPrinter(FILE* out, bool terminal, size_t total)
      : out_(out), terminal_(terminal), total_(total), bar_(out, std::chrono::milliseconds(100)) {}
  void Report(const TargetResult& r, const TestSummary& so_far);
  // Ends the bar's line (terminal) before the summary.
  void Finish();

 private:
  FILE* out_;
  bool terminal_;
  size_t total_;
  size_t done_ = 0;
  InPlaceLine bar_;
};

}  // namespace acme
}  // namespace ssa

#endif
