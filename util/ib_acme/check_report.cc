// check_report.cc: provider-test output (see check_report.h).
#include "util/ib_acme/check_report.h"

#include <chrono>
#include <cstdio>

namespace ssa {
namespace acme {

namespace {

std::string Ms(double ms) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.3f ms", ms);
  return buf;
}

std::string Count(const char* label, size_t n) {
  char buf[64];
  snprintf(buf, sizeof(buf), "  %-13s %zu\n", label, n);
  return buf;
}

}  // namespace

void TestSummary::Add(const TargetResult& r) {
  ++destinations;
  switch (r.outcome) {
    case TestOutcome::kResolved: ++resolved; break;
    case TestOutcome::kMatched:
      ++resolved;
      ++matched;
      break;
    case TestOutcome::kMismatched:
      ++resolved;
      ++mismatched;
      break;
    case TestOutcome::kVerifyError:
      ++resolved;
      ++errors;
      break;
    case TestOutcome::kResolveError: ++errors; return;
  }
  latency.Add(r.latency_ms);
}

bool IsProblem(const TargetResult& r) {
  return r.outcome != TestOutcome::kResolved && r.outcome != TestOutcome::kMatched;
}

std::string FormatResultLine(const TargetResult& r) {
  switch (r.outcome) {
    case TestOutcome::kResolved: return r.label + ": resolved (" + Ms(r.latency_ms) + ")";
    case TestOutcome::kMatched: return r.label + ": ok (" + Ms(r.latency_ms) + ")";
    case TestOutcome::kMismatched:
      return r.label + ": MISMATCH (" + Ms(r.latency_ms) + "): " + r.detail;
    case TestOutcome::kVerifyError:
      return r.label + ": ERROR (" + Ms(r.latency_ms) + "): " + r.detail;
    case TestOutcome::kResolveError:
    default: return r.label + ": ERROR: " + r.detail;
  }
}

std::string FormatSummary(const std::string& svc, const TestSummary& s) {
  std::string out = "Provider test: " + svc + "\n";
  out += Count("destinations:", s.destinations);
  out += Count("resolved:", s.resolved);
  if (s.verified) {
    out += Count("matched:", s.matched);
    out += Count("mismatched:", s.mismatched);
  } else {
    out += "  matched:      - (not verified)\n";
    out += "  mismatched:   - (not verified)\n";
  }
  out += Count("errors:", s.errors);
  if (s.latency.empty())
    out += "  latency:      - (nothing resolved)\n";
  else
    out += "  latency:      p50 " + Ms(s.latency.Percentile(50)) + ", p99 " +
           Ms(s.latency.Percentile(99)) + "\n";
  out += std::string("  result:       ") + (s.ok() ? "PASS" : "FAIL") + "\n";
  return out;
}

std::string FormatProgressBar(size_t done, size_t total, const TestSummary& s, int width) {
  size_t filled = total ? done * static_cast<size_t>(width) / total : static_cast<size_t>(width);
  std::string bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "] ";
  char counts[128];
  snprintf(counts, sizeof(counts), "%zu/%zu ok %zu mismatched %zu errors %zu", done, total,
           s.verified ? s.matched : s.resolved, s.mismatched, s.errors);
  return bar + counts;
}

void ProgressPrinter::Report(const TargetResult& r, const TestSummary& so_far) {
  ++done_;
  if (!terminal_) {
    fprintf(out_, "%s\n", FormatResultLine(r).c_str());
    fflush(out_);
    return;
  }
  // Problems scroll up above the bar, which is redrawn at once after one
  // and after the last result.
  bool problem = IsProblem(r);
  if (problem) bar_.PrintAbove(FormatResultLine(r));
  bar_.Draw(FormatProgressBar(done_, total_, so_far), problem || done_ >= total_);
}

void ProgressPrinter::Finish() {
  if (terminal_) bar_.End();
  fflush(out_);
}

}  // namespace acme
}  // namespace ssa
