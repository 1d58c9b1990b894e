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
//
// Under ThreadSanitizer RawClose() tells the sanitizer of the close through
// its system call hooks. TSan follows the fds its interceptors see created
// (open(), not openat()); a close it does not see leaves the number with
// its old owner, and a use of the number that another thread then got from
// openat() was reported as a data race with the old owner's open() (the
// path tables' publisher and a reader in one process).
#ifndef IBACM_SSA_COMMON_BASE_RAW_FD_H
#define IBACM_SSA_COMMON_BASE_RAW_FD_H

#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define IBACM_SSA_RAW_FD_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IBACM_SSA_RAW_FD_TSAN 1
#endif
#endif
#ifdef IBACM_SSA_RAW_FD_TSAN
// The sanitizer runtime's hooks (<sanitizer/linux_syscall_hooks.h>, which
// GCC does not ship).
extern "C" void __sanitizer_syscall_pre_impl_close(long fd);
extern "C" void __sanitizer_syscall_post_impl_close(long res, long fd);
#endif

namespace ssa {

inline int RawClose(int fd) {
#ifdef IBACM_SSA_RAW_FD_TSAN
  __sanitizer_syscall_pre_impl_close(fd);
  long rc = syscall(SYS_close, fd);
  __sanitizer_syscall_post_impl_close(rc, fd);
  return static_cast<int>(rc);
#else
  return static_cast<int>(syscall(SYS_close, fd));
#endif
}
inline ssize_t RawWrite(int fd, const void* p, size_t n) {
  return static_cast<ssize_t>(syscall(SYS_write, fd, p, n));
}
inline ssize_t RawRead(int fd, void* p, size_t n) {
  return static_cast<ssize_t>(syscall(SYS_read, fd, p, n));
}

}  // namespace ssa

#endif
