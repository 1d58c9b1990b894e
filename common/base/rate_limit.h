// rate_limit.h: keeping repeated log lines few. A hostile or broken peer
// can send thousands of bad messages a second, a failing service fails
// every call; the log must stay readable and the disk must not fill, while
// every event is still counted. Two ways:
//
//  - by time, RateLimitedLog: at most one line per interval per kind, then
//    one line saying how many were suppressed;
//
//      RateLimitedLog bad_mads(log, std::chrono::seconds(5));
//      bad_mads.Log(LogLevel::kWarn, "bad-mad", "from LID %u: %s", slid, why.c_str());
//
//  - by count, ShouldLogCount: the owner counts the events and logs the
//    first 10 of a kind, then every 1000th (the line carries the count).
//
// RateLimitedLog is not thread-safe: one per owner, used on the owner's
// thread. The count functions are pure.
#ifndef IBACM_SSA_COMMON_BASE_RATE_LIMIT_H
#define IBACM_SSA_COMMON_BASE_RATE_LIMIT_H

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <map>
#include <string>

#include "common/base/log.h"

namespace ssa {

// True when the `count`th event of a kind (counted from 1) is to be logged:
// the first 10, then every 1000th.
inline bool ShouldLogCount(uint64_t count) { return count <= 10 || count % 1000 == 0; }
// The same when a count went from `before` to `now` (> before) at once:
// true if any count in (before, now] would have been logged.
inline bool ShouldLogCountSince(uint64_t before, uint64_t now) {
  return before < 10 || now / 1000 != before / 1000;
}

class RateLimitedLog {
 public:
  using Clock = std::chrono::steady_clock;
  // `log` is borrowed and must outlive this.
  RateLimitedLog(Logger* log, Clock::duration interval) : log_(log), interval_(interval) {}

  // Logs at `level` unless a line of the same `kind` was logged less than
  // an interval ago; the next line logged for the kind says how many were
  // suppressed meanwhile. Returns true if the line was written.
  bool Log(LogLevel level, const std::string& kind, const char* fmt, ...)
      __attribute__((format(printf, 4, 5)));
  // Events of `kind` so far, logged or not.
  uint64_t count(const std::string& kind) const {
    auto it = kinds_.find(kind);
    return it == kinds_.end() ? 0 : it->second.total;
  }

 private:
  struct Kind {
    Clock::time_point last{};
    bool logged = false;
    uint64_t suppressed = 0;
    uint64_t total = 0;
  };
  Logger* log_;
  Clock::duration interval_;
  std::map<std::string, Kind> kinds_;
};

}  // namespace ssa

#endif
