// poll.h: how tests wait for what another process or thread does (a file
// written, a log line, a tool's answer changing): a deadline, never a fixed
// sleep. The deadline only ends a hang; it never paces a test.
//
// A plain function; any thread.
#ifndef IBACM_SSA_TEST_SUPPORT_POLL_H
#define IBACM_SSA_TEST_SUPPORT_POLL_H

#include <chrono>
#include <functional>

namespace ssa {
namespace test {

// Calls `done` until it returns true or `timeout` passes, sleeping between
// calls (1 ms growing to 20 ms). Returns the last `done()`.
bool PollUntil(std::chrono::milliseconds timeout, const std::function<bool()>& done);

}  // namespace test
}  // namespace ssa

#endif
