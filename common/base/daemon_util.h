// daemon_util.h: what a daemon's main() does before and around its loop,
// shared by ibacm and ibssa: detaching from the terminal, the pid/lock
// file, systemd's readiness notification and socket activation, and the
// open-file limit.
//
// Main thread only, before any other thread starts (Daemonize forks).
#ifndef IBACM_SSA_COMMON_BASE_DAEMON_UTIL_H
#define IBACM_SSA_COMMON_BASE_DAEMON_UTIL_H

#include <string>
#include <vector>

namespace ssa {

// Raises the soft open-file limit to the hard one: every client and every
// child connection is a descriptor.
void RaiseFdLimit();

// The classic double fork: the caller returns in the grandchild, detached,
// in "/", with stdin and stdout on /dev/null. False (errno set) if a step
// failed. Call it before anything opens umad: its state does not survive a
// fork.
//
// The process that called it does not exit at once: it waits until the
// daemon has started, so that a daemon that cannot start fails where it
// was started, with its message on that terminal (and systemd or a script
// sees the exit status). Until then the grandchild's stderr is a pipe to
// it, whose write end is *startup_fd; the grandchild ends the wait with
// StartupDone(*startup_fd) once it serves: the first process then exits 0.
// If the grandchild exits first, the first process relays what it wrote
// to stderr and exits 1.
bool Daemonize(int* startup_fd);
// Ends the wait Daemonize's first process is in: it exits 0. stderr goes
// to /dev/null from here on (nobody reads the pipe any more).
void StartupDone(int startup_fd);

// Opens and locks `path` (lockf), writing our pid into it; returns the fd
// to keep open for the daemon's life, or -1 with *error saying why (e.g.
// another `program` holds it).
int TakeLockFile(const std::string& path, const std::string& program, std::string* error);

// systemd's sd_notify(`state`), e.g. "READY=1" or "STOPPING=1", without
// linking libsystemd; nothing when NOTIFY_SOCKET is unset.
void NotifySystemd(const char* state);

// systemd's socket activation (what sd_listen_fds(1) does), without linking
// libsystemd: when LISTEN_PID names this process, the LISTEN_FDS
// descriptors systemd passed from 3 on, each made close-on-exec. The
// variables (and LISTEN_FDNAMES) are unset either way, so nothing this
// process starts mistakes them for its own. Empty when not activated;
// *error says why when the variables are there but malformed (then no
// descriptor is taken). Call it before Daemonize: the pid changes there.
std::vector<int> TakeSystemdSockets(std::string* error);

// Sets glibc's allocator for programs that hold and replace databases of
// hundreds of kilobytes to megabytes (PRDBs, SMDBs): blocks up to 8 MB come
// from the heap, not from their own mmap, and up to 256 MB of free heap
// top is kept rather than returned at once. Glibc's defaults (a dynamic
// mmap threshold from 128 kB, heap trimmed past twice that) can make every
// PRDB update at an access node with a thousand consumers map, fault in
// and unmap its 530 kB copies: bench_tree at 2,000 consumers updated in
// 3.6 s with memory growing 0.6 GiB, and in 1.0-2.5 s, mostly flat, with
// this (doc/performance.md, single runs on a shared machine). Call once
// at the start of main(); MALLOC_MMAP_THRESHOLD_ and
// MALLOC_TRIM_THRESHOLD_ in the environment still win.
void TuneAllocatorForDatabases();

}  // namespace ssa

#endif
