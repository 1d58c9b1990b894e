// raw_fd.h: file descriptors handled without going through an LD_PRELOAD
// shim.
//
// On the simulated fabric every process runs with libumad2sim.so preloaded.
// It interposes open/read/write/close/poll and treats every fd from 1024 up
// as one of its fake umad fds: read() and write() on such a real fd fail
// (EAGAIN), and close() indexes its device table with it and crashes
// (measured: 1,100 client sockets fine, 2,000 crash in close()). A daemon
// serving thousands of clients therefore reads, writes and closes the fds it
// opens at run time with the system calls themselves. Those fds never are
// umad fds, so nothing is lost on real hardware either. Any thread.
#ifndef IBACM_SSA_COMMON_BASE_RAW_FD_H
#define IBACM_SSA_COMMON_BASE_RAW_FD_H

#include <sys/syscall.h>
#include <unistd.h>

namespace ssa {

inline int RawClose(int fd) { return static_cast<int>(syscall(SYS_close, fd)); }
inline ssize_t RawWrite(int fd, const void* p, size_t n) {
  return static_cast<ssize_t>(syscall(SYS_write, fd, p, n));
}
inline ssize_t RawRead(int fd, void* p, size_t n) {
  return static_cast<ssize_t>(syscall(SYS_read, fd, p, n));
}

}  // namespace ssa

#endif
