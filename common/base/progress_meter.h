// progress_meter.h: "N of M done" for long command-line operations, on
// stderr so that stdout keeps only the (stable, parseable) results.
//
// On a terminal one line is redrawn in place at most 10 times a second; in
// a log or a pipe a plain line is written every `plain_every` (5 s by
// default), so a CI log shows that the work moves without drowning in it.
// Nothing is printed for operations that finish before the first line is
// due. One thread; the caller calls Update as often as it likes.
//
// InPlaceLine is the terminal part on its own: one status line redrawn in
// place (rate-limited), with lines printed above it scrolling up. ib_acme's
// provider check draws its progress bar with it.
#ifndef IBACM_SSA_COMMON_BASE_PROGRESS_METER_H
#define IBACM_SSA_COMMON_BASE_PROGRESS_METER_H

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace ssa {

// One status line on a terminal, redrawn in place ("\r", erase line).
class InPlaceLine {
 public:
  using Clock = std::chrono::steady_clock;

  // At most one redraw per `every`, unless forced.
  InPlaceLine(FILE* out, Clock::duration every) : out_(out), every_(every) {}
  // Draws `text` over the line if forced, on the first call, or when
  // `every` has passed since the last drawing; returns whether it did.
  bool Draw(const std::string& text, bool force = false);
  // Prints `line` and a newline where the status line was; the status line
  // is redrawn by the next Draw (force it to show it at once).
  void PrintAbove(const std::string& line);
  // Ends a drawn status line with a newline, so what follows starts clean.
  void End();

 private:
  FILE* out_;
  Clock::duration every_;
  bool drawn_ = false;
  Clock::time_point last_;
};

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
  InPlaceLine line_;  // terminal only; ProgressMeter times its redraws itself
};

}  // namespace ssa

#endif
