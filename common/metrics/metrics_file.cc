// metrics_file.cc: see metrics_file.h.
#include "common/metrics/metrics_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ssa {
namespace metrics {

void AddDaemonFamilies(PromText* out, const std::string& prefix, int64_t start_time) {
  out->Family(prefix + "_up", PromText::Type::kGauge,
              "1 while the daemon runs (the file is removed at a clean stop).");
  out->Add(1);
  out->Family(prefix + "_start_time_seconds", PromText::Type::kGauge,
              "When the daemon started, Unix time.");
  out->Add(static_cast<double>(start_time));
}

void AddWriteFailures(PromText* out, const std::string& prefix, const MetricsFile* file) {
  if (!file) return;
  out->Family(prefix + "_metrics_write_failures_total", PromText::Type::kCounter,
              "Times the metrics file could not be written.");
  out->Add(static_cast<double>(file->failures()));
}

MetricsFile::MetricsFile(Reactor* reactor, Logger* log, std::string path,
                         std::chrono::milliseconds interval, CollectFn collect)
    : reactor_(reactor),
      log_(log),
      path_(std::move(path)),
      interval_(interval),
      collect_(std::move(collect)),
      fail_log_(log, std::chrono::minutes(1)) {}

MetricsFile::~MetricsFile() { Stop(); }

void MetricsFile::Start() {
  running_ = true;
  SSA_LOG(*log_, kInfo, "metrics: writing %s every %lld ms", path_.c_str(),
          static_cast<long long>(interval_.count()));
  WriteNow();
  Arm();
}

void MetricsFile::Arm() {
  timer_ = reactor_->AddTimer(interval_, [this] {
    timer_ = 0;
    WriteNow();
    if (running_) Arm();
  });
}

void MetricsFile::Stop() {
  if (!running_) return;
  running_ = false;
  if (timer_) reactor_->CancelTimer(timer_);
  timer_ = 0;
  unlink(path_.c_str());
}

bool MetricsFile::WriteNow() {
  PromText out;
  collect_(&out);
  Status st = out.error().empty() ? WriteFileAtomically(path_, out.text())
                                  : Status::Error(EINVAL, "bad metrics: " + out.error());
  if (st.ok()) {
    ++writes_;
    return true;
  }
  ++failures_;
  fail_log_.Log(LogLevel::kWarn, "write", "metrics: %s (the daemon keeps serving)",
                st.ToString().c_str());
  return false;
}

}  // namespace metrics
}  // namespace ssa
