// sim_console.cc: marker-bracketed ibsim console commands.
#include "test/sim/sim_console.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "test/sim/sim_child.h"
#include "test/sim/sim_util.h"

namespace ssa {
namespace test {
namespace {

std::string UniqueToken() {
  static std::atomic<unsigned> counter{0};
  auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
         std::to_string(static_cast<unsigned long>(now) % 1000000007UL);
}

// Appends what `path` has beyond `*offset`.
void ReadMore(const std::string& path, off_t* offset, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[16384];
  for (;;) {
    ssize_t n = pread(fd, buf, sizeof(buf), *offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    *offset += n;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
}

// The command's own output: prompts, ibsim's asynchronous warnings and blank
// lines removed.
std::string CleanReply(std::string raw) {
  for (size_t p; (p = raw.find("sim> ")) != std::string::npos;) raw.erase(p, 5);
  std::istringstream in(raw);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("ibwarn:", 0) == 0 || line.rfind("ibpanic:", 0) == 0) continue;
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::vector<AttachedClient> ParseAttached(const std::string& reply) {
  std::vector<AttachedClient> clients;
  std::istringstream in(reply);
  std::string line;
  while (std::getline(in, line)) {
    AttachedClient c;
    int pid = 0;
    char node[256] = "";
    if (sscanf(line.c_str(), "Client %d: pid %d connected at \"%255[^\"]\"", &c.id, &pid, node) !=
        3)
      continue;
    c.pid = pid;
    c.node = node;
    // The line ends in " SM" for the client flagged IsSM (OpenSM).
    size_t end = line.find_last_not_of(" \t\r");
    c.is_sm = end != std::string::npos && end >= 2 && line.compare(end - 2, 3, " SM") == 0;
    clients.push_back(c);
  }
  return clients;
}

Status IbsimConsole::Send(const std::string& text) {
  int fd = ctl_fd_;
  if (fd < 0) {
    // O_NONBLOCK: fail with ENXIO instead of hanging when no ibsim reads it.
    fd = open(layout_.ctl().c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Status::FromErrno("cannot open ibsim's console " + layout_.ctl());
  }
  size_t done = 0;
  Status status;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno == EAGAIN) {
      struct pollfd p = {fd, POLLOUT, 0};
      if (poll(&p, 1, 1000) == 0) {
        status = Status::Error(ETIMEDOUT, "ibsim's console fifo stays full");
        break;
      }
    } else if (errno != EINTR) {
      status = Status::FromErrno("cannot write to ibsim's console");
      break;
    }
  }
  if (fd != ctl_fd_) close(fd);
  return status;
}

Status IbsimConsole::Command(const std::string& command, std::string* reply,
                             std::chrono::milliseconds timeout) {
  if (command.find_first_of("\r\n") != std::string::npos)
    return Status::Error(EINVAL, "one console command per call, without newlines");
  if (!IsPidAlive(ibsim_pid_))
    return Status::Error(ESRCH, "ibsim (pid " + std::to_string(ibsim_pid_) + ") is not running");
  std::string token = UniqueToken();
  std::string begin = "# simfab " + token + " begin";
  std::string end = "# simfab " + token + " end";
  std::string text = begin + "\n" + command + "\n" + end + "\n";
  if (text.size() > PIPE_BUF) return Status::Error(EINVAL, "console command too long");

  struct stat st;
  off_t offset = stat(layout_.ibsim_out().c_str(), &st) == 0 ? st.st_size : 0;
  Status s = Send(text);
  if (!s.ok()) return s;

  std::string seen;
  bool alive = true;
  bool done = PollUntil(timeout, [&] {
    ReadMore(layout_.ibsim_out(), &offset, &seen);
    if (seen.find(end) != std::string::npos) return true;
    alive = IsPidAlive(ibsim_pid_);
    return !alive;
  });
  if (!done || seen.find(end) == std::string::npos) {
    std::string why =
        alive ? "did not answer within " + std::to_string(timeout.count()) + " ms" : "exited";
    return Status::Error(alive ? ETIMEDOUT : ESRCH, "ibsim " + why + " (command '" + command +
                                                        "'); ibsim.out ends with:\n" +
                                                        TailOfFile(layout_.ibsim_out(), 1000));
  }
  size_t e = seen.find(end);
  size_t b = seen.find(begin);
  b = (b == std::string::npos || b > e) ? 0 : b + begin.size();
  std::string out = CleanReply(seen.substr(b, e - b));
  if (reply) *reply = out;

  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    // ibsim's errors read "# nodeid ... not found", "# can't unlink ...";
    // its normal "#" output does not continue with a lower-case word
    // ("# Net status - ...", "#  dumped 6 nodes", "#\tlinearcap ...").
    bool error_line = line.size() > 2 && line.compare(0, 2, "# ") == 0 && islower(line[2]);
    if (error_line || line.find("unknown - skipped") != std::string::npos)
      return Status::Error(EINVAL, "ibsim rejected '" + command + "': " + line);
  }
  return Status::Ok();
}

Status IbsimConsole::ListAttached(std::vector<AttachedClient>* clients) {
  std::string reply;
  Status s = Command("Attached", &reply);
  if (!s.ok()) return s;
  *clients = ParseAttached(reply);
  return Status::Ok();
}

Status IbsimConsole::ReleaseDeadClients(int* released) {
  *released = 0;
  int lock = open(layout_.reap_lock().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return Status::FromErrno("cannot open " + layout_.reap_lock());
  while (flock(lock, LOCK_EX) != 0 && errno == EINTR) {
  }
  std::vector<AttachedClient> clients;
  Status s = ListAttached(&clients);
  for (const AttachedClient& c : clients) {
    if (!s.ok()) break;
    if (IsPidAlive(c.pid)) continue;
    s = Command("X " + std::to_string(c.id), nullptr);
    if (s.ok()) ++*released;
  }
  close(lock);  // releases the flock
  return s;
}

}  // namespace test
}  // namespace ssa
