// loopback.h: a test's own TCP connection to a server on this machine (a
// data channel's parent, in-process or a daemon on the simulated fabric).
#ifndef IBACM_SSA_TEST_SUPPORT_LOOPBACK_H
#define IBACM_SSA_TEST_SUPPORT_LOOPBACK_H

namespace ssa {
namespace test {

// A blocking TCP connection to 127.0.0.1:`port`; the fd, or -1 if refused.
int ConnectLoopback(int port);
// A loopback TCP port free now (0 if none could be bound), for a
// configuration that must name a server's port before the server listens
// (the federation's peers name each other's).
int FreeLoopbackPort();
// A socket bound to 127.0.0.1:`port` and listening (0: any port), so that
// a server under test finds its port taken; the fd, or -1.
int ListenLoopback(int port);

}  // namespace test
}  // namespace ssa

#endif
