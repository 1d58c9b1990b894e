// daemon_util.cc: see daemon_util.h.
#include "common/base/daemon_util.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ssa {

void RaiseFdLimit() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

namespace {

// The first process of Daemonize: copies what the daemon writes to stderr
// until the pipe closes; a NUL byte (StartupDone) last means it started.
int AwaitStartup(int fd, pid_t child) {
  char buf[4096];
  bool started = false;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size_t text = static_cast<size_t>(n);
    started = buf[n - 1] == '\0';
    if (started) --text;
    if (text > 0 && write(2, buf, text) < 0) {
      // Nowhere left to say it; the exit status still tells.
    }
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return started ? 0 : 1;
}

}  // namespace

bool Daemonize(int* startup_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) return false;
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid > 0) {
    close(fds[1]);
    _exit(AwaitStartup(fds[0], pid));
  }
  close(fds[0]);
  if (setsid() < 0) return false;
  pid = fork();
  if (pid < 0) return false;
  if (pid > 0) _exit(0);
  if (chdir("/") < 0) return false;
  int fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, 0);
    dup2(fd, 1);
    if (fd > 2) close(fd);
  }
  dup2(fds[1], 2);
  *startup_fd = fds[1];
  return true;
}

void StartupDone(int startup_fd) {
  if (startup_fd < 0) return;
  int fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, 2);
    if (fd > 2) close(fd);
  }
  // stderr no longer holds the pipe: the NUL and this close end the wait.
  while (write(startup_fd, "", 1) < 0 && errno == EINTR) {
  }
  close(startup_fd);
}

int TakeLockFile(const std::string& path, const std::string& program, std::string* error) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) {
    *error = "cannot open lock file " + path + ": " + strerror(errno);
    return -1;
  }
  if (lockf(fd, F_TLOCK, 0) < 0) {
    *error = "another " + program + " holds " + path + " (" + strerror(errno) + ")";
    close(fd);
    return -1;
  }
  if (ftruncate(fd, 0) == 0) {
    std::string pid = std::to_string(getpid()) + "\n";
    if (write(fd, pid.data(), pid.size()) < 0) {
      // The lock is what matters; a pid that could not be written is cosmetic.
    }
  }
  return fd;
}

void NotifySystemd(const char* state) {
  const char* path = getenv("NOTIFY_SOCKET");
  if (!path || !*path) return;
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  size_t len = strlen(path);
  if (len >= sizeof(addr.sun_path)) return;
  memcpy(addr.sun_path, path, len);
  if (addr.sun_path[0] == '@') addr.sun_path[0] = '\0';  // abstract namespace
  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  sendto(fd, state, strlen(state), 0, reinterpret_cast<sockaddr*>(&addr),
         static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + len));
  close(fd);
}

namespace {
// A decimal number in [1, max], nothing else; 0 when it is not one.
long ParsePositive(const char* text, long max) {
  if (!text || !*text) return 0;
  char* end = nullptr;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 1 || v > max) return 0;
  return v;
}
}  // namespace

std::vector<int> TakeSystemdSockets(std::string* error) {
  error->clear();
  std::string pid_text = getenv("LISTEN_PID") ? getenv("LISTEN_PID") : "";
  std::string fds_text = getenv("LISTEN_FDS") ? getenv("LISTEN_FDS") : "";
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");
  if (pid_text.empty() && fds_text.empty()) return {};
  long pid = ParsePositive(pid_text.c_str(), 0x7fffffff);
  if (pid == 0) {
    *error = "LISTEN_PID='" + pid_text + "' is not a process id; ignoring socket activation";
    return {};
  }
  // Meant for the process that started us (a wrapper that did not exec).
  if (pid != static_cast<long>(getpid())) return {};
  constexpr int kFirst = 3;  // SD_LISTEN_FDS_START
  long n = ParsePositive(fds_text.c_str(), 0x7fffffff - kFirst);
  if (n == 0) {
    *error = "LISTEN_FDS='" + fds_text + "' is not a descriptor count; ignoring socket activation";
    return {};
  }
  for (long i = 0; i < n; ++i) {
    if (fcntl(kFirst + static_cast<int>(i), F_GETFD) < 0) {
      *error = "LISTEN_FDS=" + fds_text + " but descriptor " + std::to_string(kFirst + i) +
               " is not open; ignoring socket activation";
      return {};
    }
  }
  std::vector<int> fds;
  for (long i = 0; i < n; ++i) {
    int fd = kFirst + static_cast<int>(i);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    fds.push_back(fd);
  }
  return fds;
}

void TuneAllocatorForDatabases() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
  if (!getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 8 << 20);
  if (!getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace ssa
