// log.cc: Logger implementation.
#include "common/base/log.h"

#include <sys/time.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace ssa {

namespace {
const char* const kLevelNames[] = {"error", "warn", "info", "debug", "trace"};

int SyslogPriority(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return LOG_ERR;
    case LogLevel::kWarn: return LOG_WARNING;
    case LogLevel::kInfo: return LOG_INFO;
    default: return LOG_DEBUG;
  }
}
}  // namespace

const char* LogLevelName(LogLevel level) {
  int i = static_cast<int>(level);
  return (i >= 0 && i <= 4) ? kLevelNames[i] : "?";
}

bool ParseLogLevel(const std::string& text, LogLevel* out) {
  for (int i = 0; i <= 4; ++i) {
    if (text == kLevelNames[i]) {
      *out = static_cast<LogLevel>(i);
      return true;
    }
  }
  // Upstream ibacm: 0 basic, 1 verbose, 2 everything.
  if (text == "0") {
    *out = LogLevel::kInfo;
    return true;
  }
  if (text == "1") {
    *out = LogLevel::kDebug;
    return true;
  }
  if (text == "2") {
    *out = LogLevel::kTrace;
    return true;
  }
  return false;
}

std::vector<std::pair<std::string, LogLevel>> LogLevelWords() {
  std::vector<std::pair<std::string, LogLevel>> words;
  for (int i = 0; i <= 4; ++i) words.emplace_back(kLevelNames[i], static_cast<LogLevel>(i));
  for (const char* n : {"0", "1", "2"}) {
    LogLevel level;
    ParseLogLevel(n, &level);
    words.emplace_back(n, level);
  }
  return words;
}

bool Logger::ToStderr() {
  MutexLock lock(&mutex_);
  return !sink_ && !syslog_ && file_ == stderr;
}

Logger::~Logger() {
  MutexLock lock(&mutex_);
  CloseLocked();
}

void Logger::CloseLocked() {
  if (owns_file_ && file_) fclose(file_);
  if (syslog_) closelog();
  file_ = nullptr;
  owns_file_ = false;
  syslog_ = false;
}

Status Logger::Open(const std::string& target, const std::string& ident) {
  MutexLock lock(&mutex_);
  CloseLocked();
  ident_ = ident;
  target_ = target.empty() ? "stderr" : target;
  if (target_ == "stderr") {
    file_ = stderr;
  } else if (target_ == "stdout") {
    file_ = stdout;
  } else if (target_ == "syslog") {
    openlog(ident_.c_str(), LOG_PID, LOG_DAEMON);
    syslog_ = true;
  } else {
    file_ = fopen(target_.c_str(), "a");
    if (!file_) {
      Status st = Status::FromErrno("cannot open log file " + target_);
      file_ = stderr;  // keep logging somewhere
      target_ = "stderr";
      return st;
    }
    owns_file_ = true;
    setvbuf(file_, nullptr, _IOLBF, 0);
  }
  return Status::Ok();
}

Status Logger::Reopen() {
  std::string target, ident;
  {
    MutexLock lock(&mutex_);
    if (!owns_file_) return Status::Ok();
    target = target_;
    ident = ident_;
  }
  return Open(target, ident);
}

void Logger::set_sink(Sink sink) {
  MutexLock lock(&mutex_);
  sink_ = std::move(sink);
}

void Logger::Log(LogLevel level, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  VLog(level, fmt, args);
  va_end(args);
}

void Logger::VLog(LogLevel level, const char* fmt, va_list args) {
  if (!Enabled(level)) return;
  char small[512];
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(small, sizeof(small), fmt, copy);
  va_end(copy);
  if (n < 0) return;
  if (static_cast<size_t>(n) < sizeof(small)) {
    Write(level, std::string(small, n));
    return;
  }
  std::vector<char> big(n + 1);
  vsnprintf(big.data(), big.size(), fmt, args);
  Write(level, std::string(big.data(), n));
}

void Logger::Write(LogLevel level, const std::string& message) {
  if (!Enabled(level)) return;
  MutexLock lock(&mutex_);
  if (sink_) {
    sink_(level, message);
    return;
  }
  if (syslog_) {
    syslog(SyslogPriority(level), "%s", message.c_str());
    return;
  }
  if (!file_) return;
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  gmtime_r(&tv.tv_sec, &tm);
  char stamp[32];
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  fprintf(file_, "%s.%06ldZ %s[%d] %s: %s\n", stamp, static_cast<long>(tv.tv_usec), ident_.c_str(),
          static_cast<int>(getpid()), LogLevelName(level), message.c_str());
  if (file_ == stderr || file_ == stdout) fflush(file_);
}

}  // namespace ssa
