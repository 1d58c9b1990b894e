// progress_meter.cc: see progress_meter.h.
#include "common/base/progress_meter.h"

namespace ssa {

bool InPlaceLine::Draw(const std::string& text, bool force) {
  Clock::time_point now = Clock::now();
  if (!force && drawn_ && now - last_ < every_) return false;
  fprintf(out_, "\r\033[K%s", text.c_str());
  fflush(out_);
  drawn_ = true;
  last_ = now;
  return true;
}

void InPlaceLine::PrintAbove(const std::string& line) {
  fprintf(out_, "\r\033[K%s\n", line.c_str());
}

void InPlaceLine::End() {
  if (drawn_) fputc('\n', out_);
  fflush(out_);
}

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
      next_(start_ + (terminal ? std::chrono::seconds(1) : plain_every)),
      line_(out, every_) {}

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
  if (terminal_) {
    line_.Draw(line, true);
  } else {
    fprintf(out_, "%s\n", line.c_str());
    fflush(out_);
  }
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
  if (terminal_) line_.End();
  fflush(out_);
}

}  // namespace ssa
