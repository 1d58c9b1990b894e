// loopback.h: a test's own TCP connection to a server on this machine (a
// data channel's parent, in-process or a daemon on the simulated fabric).
#ifndef IBACM_SSA_TEST_SUPPORT_LOOPBACK_H
#define IBACM_SSA_TEST_SUPPORT_LOOPBACK_H

namespace ssa {
namespace test {

// A blocking TCP connection to 127.0.0.1:`port`; the fd, or -1 if refused.
int ConnectLoopback(int port);

}  // namespace test
}  // namespace ssa

#endif
