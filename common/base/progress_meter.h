// progress_meter.h: "N of M done" for long command-line operations, on
// stderr so that stdout keeps only the (stable, parseable) results.
//
// On a terminal one line is redrawn in place at most 10 times a second; in
// a log or a pipe a plain line is written every `plain_every` (5 s by
// default), so a CI log shows that the work moves without drowning in it.
// Nothing is printed for operations that finish before the first line is
// due. One thread; the caller calls Update as often as it likes.
#ifndef IBACM_SSA_COMMON_BASE_PROGRESS_METER_H
#define IBACM_SSA_COMMON_BASE_PROGRESS_METER_H

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace ssa {

class ProgressMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // `what` names the unit, e.g. "SA queries answered".
  ProgressMeter(FILE* out, bool terminal, std::string what, size_t total,
                Clock::duration plain_every = std::chrono::seconds(5));
  void Update(size_t done);
  // Ends a terminal line (if one was drawn) with the final figure.
  void Finish(size_t done);

  // The text of one report, e.g. "1200/5000 SA queries answered (24%), 350/s".
  static std::string Format(const std::string& what, size_t done, size_t total, double seconds);

 private:
  void Print(size_t done, Clock::time_point now);

  FILE* out_;
  bool terminal_;
  std::string what_;
  size_t total_;
  Clock::duration every_;
  Clock::time_point start_, next_;
  bool drawn_ = false;
};

}  // namespace ssa

#endif
