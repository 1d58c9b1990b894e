// ls_daemon_parse.h: reads back, with our own codec, a message the daemon
// sent the kernel on RDMA_NL_LS, for the tests that check what it sent.
#ifndef IBACM_SSA_TEST_UNIT_LS_DAEMON_PARSE_H
#define IBACM_SSA_TEST_UNIT_LS_DAEMON_PARSE_H

#include <cstdint>
#include <vector>

#include "core/kernel_ls/ls_codec.h"
#include "test/support/check_ok.h"

#include <CppUTest/TestHarness.h>

namespace ssa {
namespace test {

// The one netlink message in `bytes`, decoded (fails the test if it is not).
inline kernel_ls::LsDaemonMessage ParseLsDaemonMessage(const std::vector<uint8_t>& bytes) {
  NlMessageReader r(bytes.data(), bytes.size());
  NlMessage m;
  CHECK_TRUE(r.Next(&m));
  kernel_ls::LsDaemonMessage out;
  CHECK_OK(kernel_ls::DecodeDaemonMessage(m, &out));
  return out;
}

}  // namespace test
}  // namespace ssa

#endif  // IBACM_SSA_TEST_UNIT_LS_DAEMON_PARSE_H
