// first_touch.cc: see first_touch.h.
#include "test/bench/first_touch.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

namespace ssa {
namespace bench {
namespace {

double ThreadCpuSeconds() {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

double FirstTouchSecondsPerGib(size_t bytes) {
  void* m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return -1;
  volatile char* p = static_cast<char*>(m);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  double t0 = ThreadCpuSeconds();
  for (size_t off = 0; off < bytes; off += page) p[off] = 1;
  double spent = ThreadCpuSeconds() - t0;
  munmap(m, bytes);
  return spent * static_cast<double>(size_t{1} << 30) / static_cast<double>(bytes);
}

}  // namespace bench
}  // namespace ssa
