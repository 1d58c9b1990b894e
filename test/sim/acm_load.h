// acm_load.h: many clients resolving continuously through one ibacm
// socket, for the soak tests. Every connection keeps exactly one resolve
// outstanding, checks that the answer is the one it waits for (its TID,
// once), and sends the next; destinations rotate through a list.
//
// Runs on the calling thread with its own epoll set (a test runs it on a
// thread of its own while it changes the fabric). Test code.
#ifndef IBACM_SSA_TEST_SIM_ACM_LOAD_H
#define IBACM_SSA_TEST_SIM_ACM_LOAD_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "common/acm/acm_wire.h"
#include "common/base/status.h"

namespace ssa {
namespace test {

struct AcmLoadOptions {
  std::string socket;
  int clients = 100;
  acm::EpAddr source;
  std::vector<acm::EpAddr> destinations;
  std::chrono::milliseconds duration{10000};
  // After `duration` no new request is sent; answers still due are waited
  // for this long before they count as lost.
  std::chrono::milliseconds drain{5000};
  // Pause between an answer and a connection's next request (0: none, a
  // closed loop that keeps the daemon's CPU busy).
  std::chrono::milliseconds think{0};
  // Set by another thread: stop sending now (then drain as usual).
  const std::atomic<bool>* stop = nullptr;
};

struct AcmLoadResult {
  int connected = 0;
  uint64_t sent = 0;
  uint64_t answered = 0;  // answers to the request a connection waited for
  uint64_t success = 0;   // ... with status success
  uint64_t enodata = 0;   // ... ENODATA
  uint64_t other_errors = 0;
  uint64_t unexpected = 0;  // answers nobody waited for (a wrong TID, a duplicate)
  uint64_t malformed = 0;   // bytes that are not a resolve answer
  uint64_t closed = 0;      // connections the server closed
  uint64_t lost = 0;        // requests never answered
  double p50_us = 0, p99_us = 0, max_us = 0;
  std::string Describe() const;
};

// Connects options.clients clients (fails if one cannot connect) and runs.
// `progress` (may be null) counts answers while it runs.
Status RunAcmLoad(const AcmLoadOptions& options, std::atomic<uint64_t>* progress,
                  AcmLoadResult* out);

// RunAcmLoad on a thread of its own, started at construction. The
// destructor stops and joins it, so a failed check cannot leave it running.
class AcmLoadThread {
 public:
  explicit AcmLoadThread(AcmLoadOptions options);
  ~AcmLoadThread();
  AcmLoadThread(const AcmLoadThread&) = delete;
  AcmLoadThread& operator=(const AcmLoadThread&) = delete;

  uint64_t answered() const { return answered_.load(); }
  // True once `more` answers came after the call, within `timeout`.
  bool AnswersGoOn(uint64_t more, std::chrono::milliseconds timeout) const;
  // Waits for the end: after options.duration, or at once with `stop_now`.
  Status Finish(bool stop_now, AcmLoadResult* out);

 private:
  AcmLoadOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> answered_{0};
  AcmLoadResult result_;
  Status status_;
  std::thread thread_;
};

}  // namespace test
}  // namespace ssa

#endif
