// poll.cc: see poll.h.
#include "test/support/poll.h"

#include <algorithm>
#include <thread>

namespace ssa {
namespace test {

bool PollUntil(std::chrono::milliseconds timeout, const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    if (done()) return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return done();
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    std::this_thread::sleep_for(std::min(pause, left));
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

}  // namespace test
}  // namespace ssa
