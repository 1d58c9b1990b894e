// netlink_loop_fixture.h: the base of the test groups that run a netlink
// client (address watcher, kernel path service) on an event loop against
// the fake netlink, with its log captured in `lines`.
#ifndef IBACM_SSA_TEST_UNIT_NETLINK_LOOP_FIXTURE_H
#define IBACM_SSA_TEST_UNIT_NETLINK_LOOP_FIXTURE_H

#include <sstream>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "test/support/check_ok.h"
#include "test/unit/fake_netlink.h"

#include <CppUTest/TestHarness.h>

namespace ssa {
namespace test {

class NetlinkLoopTest : public Utest {
 public:
  EventLoop loop;
  Logger log;
  std::ostringstream lines;
  testing::FakeNetlink netlink;
  testing::FakeNetlinkSocket* sock = nullptr;

  void setup() override {
    CHECK_OK(loop.Init());
    log.set_level(LogLevel::kDebug);
    log.set_sink([this](LogLevel, const std::string& line) { lines << line << "\n"; });
  }
  // The client's socket of `protocol`, once it has opened it.
  void TakeSocket(int protocol) {
    sock = netlink.socket(protocol);
    CHECK(sock != nullptr);
  }
};

}  // namespace test
}  // namespace ssa

#endif  // IBACM_SSA_TEST_UNIT_NETLINK_LOOP_FIXTURE_H
