// poll.h: waiting in tests for something another process or thread does
// (a file written, a tool's answer changing): `ok` is asked again every
// `every` until it holds or `bound` has passed. The bound only ends a
// hang; it never paces a test.
//
// Header only; any thread.
#ifndef IBACM_SSA_TEST_SUPPORT_POLL_H
#define IBACM_SSA_TEST_SUPPORT_POLL_H

#include <chrono>
#include <functional>
#include <thread>

namespace ssa {
namespace test {

inline bool PollUntil(const std::function<bool()>& ok, std::chrono::milliseconds bound,
                      std::chrono::milliseconds every = std::chrono::milliseconds(10)) {
  auto end = std::chrono::steady_clock::now() + bound;
  while (!ok()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(every);
  }
  return true;
}

}  // namespace test
}  // namespace ssa

#endif
