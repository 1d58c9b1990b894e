// shm_contender.h: bench_resolve's libibssa_path contender: path lookups
// by LID through a daemon's shared-memory tables (no socket: a lookup the
// tables cannot answer fails the run), from one or many threads.
#ifndef IBACM_SSA_TEST_BENCH_SHM_CONTENDER_H
#define IBACM_SSA_TEST_BENCH_SHM_CONTENDER_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"

struct ibssa_path;

namespace ssa {
namespace bench {

class ShmContender {
 public:
  ~ShmContender();
  // Opens the tables of the daemon on `socket` and waits (up to
  // `wait_ms`) until they answer `lid`.
  Status Open(const std::string& socket, uint16_t lid, int wait_ms);
  // Lookups of `lid` per second from `threads` threads for `seconds` (-1
  // if one failed). With `latency_us`, each lookup is timed on its own
  // (the clock's cost included) and appended.
  double Rate(uint16_t lid, int threads, double seconds, std::vector<double>* latency_us);
  uint64_t epoch() const;

 private:
  ibssa_path* h_ = nullptr;
};

}  // namespace bench
}  // namespace ssa

#endif
