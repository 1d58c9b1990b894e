// tree_bench_util.cc: see tree_bench_util.h.
#include "test/bench/tree_bench_util.h"

#include <time.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace ssa {
namespace bench {

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}
double Between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// /proc/self/status fields in bytes ("VmRSS", "VmHWM"), or another
// process's.
uint64_t ProcStatusBytes(const char* field, pid_t pid) {
  std::ifstream f(pid ? "/proc/" + std::to_string(pid) + "/status" : "/proc/self/status");
  std::string line;
  size_t n = strlen(field);
  while (std::getline(f, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':')
      return strtoull(line.c_str() + n + 1, nullptr, 10) * 1024;
  return 0;
}
// A process's proportional set size (/proc/PID/smaps_rollup "Pss"): pages
// shared with others (the consumer processes share what they were forked
// with) counted in shares, so the processes' sum is the memory they take.
uint64_t ProcPssBytes(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/smaps_rollup");
  std::string line;
  while (std::getline(f, line))
    if (line.compare(0, 4, "Pss:") == 0) return strtoull(line.c_str() + 4, nullptr, 10) * 1024;
  return 0;
}

// A /proc/meminfo field ("MemTotal:", ...) in bytes, 0 if missing.
uint64_t MemInfoBytes(const char* key) {
  std::ifstream mi("/proc/meminfo");
  std::string line;
  while (std::getline(mi, line)) {
    unsigned long long kb = 0;
    if (line.compare(0, strlen(key), key) == 0 &&
        sscanf(line.c_str() + strlen(key), "%llu", &kb) == 1)
      return kb * 1024;
  }
  return 0;
}

double Gib(uint64_t bytes) { return static_cast<double>(bytes) / (1ULL << 30); }

void Progress(const char* fmt, ...) {
  static const Clock::time_point start = Clock::now();
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  fprintf(stderr, "bench_tree [%7.1f s] %s\n", Since(start), buf);
}

std::string Num(double v, int decimals) {
  char b[64];
  snprintf(b, sizeof(b), "%.*f", decimals, v);
  return b;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}
Clock::time_point FromNs(int64_t ns) { return Clock::time_point(std::chrono::nanoseconds(ns)); }

std::vector<uint64_t> SpreadConsumers(const smdb::SmdbIndex& x, uint64_t sm_guid, size_t n) {
  std::vector<uint64_t> all;
  for (uint32_t e : x.endpoints()) {
    const auto& p = x.port(e);
    if (p.port_guid && p.base_lid && p.port_guid != sm_guid && x.node_of(p).type == smdb::kNodeCa)
      all.push_back(p.port_guid);
  }
  std::vector<uint64_t> out;
  for (size_t i = 0; i < n && !all.empty(); ++i) out.push_back(all[i * all.size() / n]);
  return out;
}

double ProcessCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void Figure(const std::string& name, const std::string& value) {
  printf("%s = %s\n", name.c_str(), value.c_str());
}
void Figure(const std::string& name, uint64_t value) {
  printf("%s = %" PRIu64 "\n", name.c_str(), value);
}

}  // namespace bench
}  // namespace ssa
