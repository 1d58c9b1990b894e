// sim_util.h: small file and polling helpers for the simulated-fabric harness.
// Temporary directories are test/support/temp_dir.h's, shared with the
// unit tests.
//
// Plain functions and one small class (LogLineCounter, owned by its user and
// used from one thread). Nothing here keeps global state.
#ifndef IBACM_SSA_TEST_SIM_SIM_UTIL_H
#define IBACM_SSA_TEST_SIM_SIM_UTIL_H

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/support/poll.h"  // PollUntil: how the harness waits

namespace ssa {
namespace test {

Status ReadFileToString(const std::string& path, std::string* out);
// Creates or truncates `path`.
Status WriteStringToFile(const std::string& path, const std::string& text);
// The last `max_bytes` of a file, cut at a line start; "" if unreadable.
std::string TailOfFile(const std::string& path, size_t max_bytes = 2000);
bool PathExists(const std::string& path);
std::string Basename(const std::string& path);
// A process's resident set (VmRSS), in KiB; 0 when it is gone.
long ProcessRssKib(pid_t pid);
// argv joined with spaces, for messages.
std::string JoinArgs(const std::vector<std::string>& args);

// Counts the lines of a growing log file that contain `needle`, reading only
// what was appended since the previous call (OpenSM's log only grows).
class LogLineCounter {
 public:
  LogLineCounter(std::string path, std::string needle)
      : path_(std::move(path)), needle_(std::move(needle)) {}
  // Lines seen so far; a missing file counts 0.
  int Count();

 private:
  std::string path_;
  std::string needle_;
  off_t offset_ = 0;
  std::string partial_;  // last line read, not yet terminated by '\n'
  int count_ = 0;
};

}  // namespace test
}  // namespace ssa

#endif
