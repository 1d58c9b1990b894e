// raw_close.h: closing sockets without going through an LD_PRELOAD shim.
//
// On the simulated fabric every process runs with libumad2sim.so preloaded,
// which interposes close() to catch its fake umad fds; its wrapper indexes a
// fixed-size table by fd number and crashes for fds beyond roughly 1,100
// (measured: 1,100 client sockets fine, 2,000 crash in close()). A daemon
// serving thousands of clients must therefore close its sockets with the
// system call itself. Sockets never are umad fds, so nothing is lost on real
// hardware either. Any thread.
#ifndef IBACM_SSA_COMMON_BASE_RAW_CLOSE_H
#define IBACM_SSA_COMMON_BASE_RAW_CLOSE_H

#include <sys/syscall.h>
#include <unistd.h>

namespace ssa {

inline int RawClose(int fd) { return static_cast<int>(syscall(SYS_close, fd)); }

}  // namespace ssa

#endif
