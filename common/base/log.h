// log.h: the daemons' logger: file, stderr or syslog, with levels and
// timestamps.
//
// One Logger per daemon (or per test), owned by whoever wires the daemon
// together and borrowed by everything else. Log() may be called from any
// thread: lines are written whole under an internal mutex.
//
// Levels, most to least severe: error, warn, info, debug, trace. Upstream
// ibacm's numeric log_level 0/1/2 maps to info/debug/trace.
#ifndef IBACM_SSA_COMMON_BASE_LOG_H
#define IBACM_SSA_COMMON_BASE_LOG_H

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/base/mutex.h"
#include "common/base/status.h"

namespace ssa {

enum class LogLevel { kError = 0, kWarn = 1, kInfo = 2, kDebug = 3, kTrace = 4 };

const char* LogLevelName(LogLevel level);
// Accepts names ("error".."trace") and upstream numbers ("0"/"1"/"2").
bool ParseLogLevel(const std::string& text, LogLevel* out);
// The words ParseLogLevel accepts and what each means, names first: for an
// option table (OptionSet::Enum), so every reader lists the same ones.
std::vector<std::pair<std::string, LogLevel>> LogLevelWords();

class Logger {
 public:
  // Receives every line that passes the level filter, instead of the target.
  using Sink = std::function<void(LogLevel, const std::string& line)>;

  Logger() = default;
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  // target: "stderr" (also ""), "stdout", "syslog", or a file path, which is
  // opened for append. `ident` names the program in each line.
  Status Open(const std::string& target, const std::string& ident);
  // Reopens a file target (after logrotate moved it away).
  Status Reopen();

  void set_level(LogLevel level) { level_.store(static_cast<int>(level)); }
  // True while lines go to stderr (the target before Open, too).
  bool ToStderr();
  bool Enabled(LogLevel level) const { return static_cast<int>(level) <= level_.load(); }
  void set_sink(Sink sink);

  void Log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));
  void VLog(LogLevel level, const char* fmt, va_list args);
  void Write(LogLevel level, const std::string& message);

 private:
  void CloseLocked() REQUIRES(mutex_);

  std::atomic<int> level_{static_cast<int>(LogLevel::kInfo)};
  Mutex mutex_;
  std::string target_ GUARDED_BY(mutex_) = "stderr";
  std::string ident_ GUARDED_BY(mutex_) = "ibacm-ssa";
  FILE* file_ GUARDED_BY(mutex_) = stderr;
  bool owns_file_ GUARDED_BY(mutex_) = false;
  bool syslog_ GUARDED_BY(mutex_) = false;
  Sink sink_ GUARDED_BY(mutex_);
};

}  // namespace ssa

// Formats only when the level is enabled.
#define SSA_LOG(logger, lvl, ...)                                                                \
  do {                                                                                           \
    if ((logger).Enabled(::ssa::LogLevel::lvl)) (logger).Log(::ssa::LogLevel::lvl, __VA_ARGS__); \
  } while (0)

#endif
