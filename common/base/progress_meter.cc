// progress_meter.cc: see progress_meter.h.
#include "common/base/progress_meter.h"

namespace ssa {

ProgressMeter::ProgressMeter(FILE* out, bool terminal, std::string what, size_t total,
                             Clock::duration plain_every)
    : out_(out),
      terminal_(terminal),
      what_(std::move(what)),
      total_(total),
      every_(terminal ? std::chrono::milliseconds(100) : plain_every),
      start_(Clock::now()),
      // The first report waits a full period even on a terminal: short
      // runs stay quiet.
      next_(start_ + (terminal ? std::chrono::seconds(1) : plain_every)) {}

std::string ProgressMeter::Format(const std::string& what, size_t done, size_t total,
                                  double seconds) {
  char buf[256];
  unsigned percent = total ? static_cast<unsigned>(done * 100 / total) : 100;
  double rate = seconds > 0 ? done / seconds : 0;
  snprintf(buf, sizeof(buf), "%zu/%zu %s (%u%%), %.0f/s", done, total, what.c_str(), percent, rate);
  return buf;
}

void ProgressMeter::Print(size_t done, Clock::time_point now) {
  std::string line =
      Format(what_, done, total_, std::chrono::duration<double>(now - start_).count());
  if (terminal_)
    fprintf(out_, "\r\033[K%s", line.c_str());
  else
    fprintf(out_, "%s\n", line.c_str());
  fflush(out_);
  drawn_ = true;
}

void ProgressMeter::Update(size_t done) {
  Clock::time_point now = Clock::now();
  if (now < next_) return;
  next_ = now + every_;
  Print(done, now);
}

void ProgressMeter::Finish(size_t done) {
  if (!drawn_) return;
  Print(done, Clock::now());
  if (terminal_) fputc('\n', out_);
  fflush(out_);
}

}  // namespace ssa
