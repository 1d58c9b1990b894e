// rate_limit.cc: see rate_limit.h.
#include "common/base/rate_limit.h"

#include <cstdio>

namespace ssa {

bool RateLimitedLog::Log(LogLevel level, const std::string& kind, const char* fmt, ...) {
  Kind& k = kinds_[kind];
  ++k.total;
  Clock::time_point now = Clock::now();
  if (k.logged && now - k.last < interval_) {
    ++k.suppressed;
    return false;
  }
  if (!log_->Enabled(level)) return false;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  std::string line = buf;
  if (k.suppressed) line += " (" + std::to_string(k.suppressed) + " more like this suppressed)";
  log_->Write(level, line);
  k.logged = true;
  k.last = now;
  k.suppressed = 0;
  return true;
}

}  // namespace ssa
