// metrics_file.h: a daemon's metrics as a file for node_exporter's textfile
// collector (--collector.textfile.directory), rewritten every interval.
//
// The daemons serve no HTTP of their own: node_exporter, already on every
// node a site monitors, reads `*.prom` files from a directory. A reader
// must never see half a file, so each write goes to a temporary file in
// the same directory and is renamed over the old one (atomic on one file
// system). At a clean stop the file is removed, so a stopped daemon's
// numbers are not scraped as if current (node_exporter's
// node_textfile_mtime_seconds tells the age of what is left after a
// crash).
//
// A write that fails (directory gone, disk full) is counted and logged
// rate-limited; the daemon goes on serving and tries again next interval.
//
// Owned by the daemon; borrows the reactor and logger. Loop thread only.
#ifndef IBACM_SSA_COMMON_METRICS_METRICS_FILE_H
#define IBACM_SSA_COMMON_METRICS_METRICS_FILE_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "common/base/file_io.h"
#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/metrics/prom_text.h"

namespace ssa {
namespace metrics {

class MetricsFile;

// The families every daemon's file starts or ends with, named
// <prefix>_up, <prefix>_start_time_seconds (Unix time) and
// <prefix>_metrics_write_failures_total (`file` may be null: left out), so
// that ibacm, ibssa and the plugin say them alike.
void AddDaemonFamilies(PromText* out, const std::string& prefix, int64_t start_time);
void AddWriteFailures(PromText* out, const std::string& prefix, const MetricsFile* file);

class MetricsFile {
 public:
  // Fills the families of one snapshot.
  using CollectFn = std::function<void(PromText* out)>;

  MetricsFile(Reactor* reactor, Logger* log, std::string path, std::chrono::milliseconds interval,
              CollectFn collect);
  ~MetricsFile();
  MetricsFile(const MetricsFile&) = delete;
  MetricsFile& operator=(const MetricsFile&) = delete;

  // Writes the first snapshot now and every interval after.
  void Start();
  // Stops the timer and removes the file.
  void Stop();
  // One snapshot now (also what the timer calls); false if not written.
  bool WriteNow();

  uint64_t writes() const { return writes_; }
  uint64_t failures() const { return failures_; }

 private:
  void Arm();

  Reactor* reactor_;
  Logger* log_;
  std::string path_;
  std::chrono::milliseconds interval_;
  CollectFn collect_;
  Reactor::TimerId timer_ = 0;
  bool running_ = false;
  uint64_t writes_ = 0;
  uint64_t failures_ = 0;
  RateLimitedLog fail_log_;
};

}  // namespace metrics
}  // namespace ssa

#endif
