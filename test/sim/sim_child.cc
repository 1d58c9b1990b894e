// sim_child.cc: fork/exec, reaping and stopping of child processes.
#include "test/sim/sim_child.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "test/sim/sim_registry.h"
#include "test/sim/sim_util.h"

extern char** environ;

namespace ssa {
namespace test {
namespace {

// What the child reports through the status pipe when it cannot exec.
struct ChildFailure {
  int stage;  // index into kStageNames
  int err;
};
const char* const kStageNames[] = {"set up the child", "open stdin", "open the output file",
                                   "change directory to", "execute"};
enum Stage { kSetup, kStdin, kOutput, kChdir, kExec };

[[noreturn]] void ChildFail(int pipe_fd, Stage stage) {
  ChildFailure f{stage, errno};
  ssize_t ignored = write(pipe_fd, &f, sizeof(f));
  (void)ignored;
  _exit(127);
}

std::vector<std::string> BuildEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const char* eq = strchr(*e, '=');
    std::string key = eq ? std::string(*e, eq - *e) : std::string(*e);
    if (overrides.count(key)) continue;
    env.emplace_back(*e);
  }
  for (const auto& kv : overrides) env.push_back(kv.first + "=" + kv.second);
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(&s[0]);
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string FindProgram(const std::string& name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  std::string path = getenv("PATH") ? getenv("PATH") : "";
  // The InfiniBand tools live in sbin, which a non-root PATH often lacks.
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return "";
}

Status LaunchChild(const LaunchSpec& spec, pid_t* pid_out) {
  if (spec.argv.empty()) return Status::Error(EINVAL, "no program to start");
  std::string program = FindProgram(spec.argv[0]);
  if (program.empty())
    return Status::Error(ENOENT, "program '" + spec.argv[0] + "' not found in PATH");

  // Everything the child needs is built here: after fork it may only make
  // async-signal-safe calls (other threads may hold malloc's locks).
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<std::string> env_strings = BuildEnvironment(spec.env);
  std::vector<char*> envp = CStrings(env_strings);
  const char* cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  const char* output = spec.output_path.empty() ? nullptr : spec.output_path.c_str();

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) return Status::FromErrno("pipe2");
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    Status s = Status::FromErrno("fork");
    close(status_pipe[0]);
    close(status_pipe[1]);
    return s;
  }
  if (pid == 0) {
    int report = status_pipe[1];
    if (spec.own_process_group) setpgid(0, 0);
    if (spec.own_process_group && spec.take_terminal) {
      // A background group may only take the terminal with SIGTTOU ignored;
      // the disposition goes back to default below.
      struct sigaction ign = {};
      ign.sa_handler = SIG_IGN;
      sigaction(SIGTTOU, &ign, nullptr);
      tcsetpgrp(STDIN_FILENO, getpid());
    }
    if (spec.parent_death_signal) {
      if (prctl(PR_SET_PDEATHSIG, spec.parent_death_signal) != 0) ChildFail(report, kSetup);
      // The parent may have died before prctl took effect.
      if (getppid() != parent) _exit(127);
    }
    // Undo what the parent may have blocked or redirected (simfab run blocks
    // SIGINT/SIGTERM/SIGCHLD to sigwait for them).
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction dfl = {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD, SIGTTOU})
      sigaction(sig, &dfl, nullptr);

    if (spec.stdin_fd >= 0) {
      if (dup2(spec.stdin_fd, 0) < 0) ChildFail(report, kStdin);
    } else if (!spec.inherit_stdin) {
      int fd = open("/dev/null", O_RDONLY);
      if (fd < 0 || dup2(fd, 0) < 0) ChildFail(report, kStdin);
      if (fd > 2) close(fd);
    }
    if (output) {
      int fd = open(output, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) ChildFail(report, kOutput);
      if (fd > 2) close(fd);
    }
    if (cwd && chdir(cwd) != 0) ChildFail(report, kChdir);
    for (int fd : spec.keep_fds)
      if (fcntl(fd, F_SETFD, 0) != 0) ChildFail(report, kSetup);
    execve(program.c_str(), argv.data(), envp.data());
    ChildFail(report, kExec);
  }

  close(status_pipe[1]);
  if (spec.own_process_group) setpgid(pid, pid);  // also here: no race with kill(-pid)
  if (spec.own_process_group && spec.take_terminal) tcsetpgrp(STDIN_FILENO, pid);
  if (spec.register_for_cleanup) ChildRegistry::Add(pid);
  ChildFailure failure{};
  ssize_t n;
  do {
    n = read(status_pipe[0], &failure, sizeof(failure));
  } while (n < 0 && errno == EINTR);
  close(status_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(failure))) {
    int ignored;
    WaitForExit(pid, std::chrono::seconds(5), &ignored);
    std::string what = kStageNames[failure.stage];
    if (failure.stage == kChdir) what += " " + spec.cwd;
    if (failure.stage == kOutput) what += " " + spec.output_path;
    if (failure.stage == kExec) what += " " + program;
    return Status::Error(failure.err,
                         "child process could not " + what + ": " + strerror(failure.err));
  }
  *pid_out = pid;
  return Status::Ok();
}

bool IsPidAlive(pid_t pid) {
  if (pid <= 0) return false;
  if (kill(pid, 0) != 0 && errno != EPERM) return false;
  // kill() succeeds on zombies; /proc tells them apart.
  std::string stat;
  if (!ReadFileToString("/proc/" + std::to_string(pid) + "/stat", &stat).ok()) return false;
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 >= stat.size()) return true;
  char state = stat[paren + 2];
  return state != 'Z' && state != 'X';
}

std::vector<pid_t> FindProcessesWithEnv(const std::string& entry) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (!proc) return pids;
  while (struct dirent* e = readdir(proc)) {
    pid_t pid = atoi(e->d_name);
    if (pid <= 0) continue;
    std::string env;  // NUL-separated; unreadable for other users' processes
    if (!ReadFileToString(std::string("/proc/") + e->d_name + "/environ", &env).ok()) continue;
    for (size_t start = 0; start < env.size();) {
      size_t end = env.find('\0', start);
      if (end == std::string::npos) end = env.size();
      if (env.compare(start, end - start, entry) == 0) {
        if (IsPidAlive(pid)) pids.push_back(pid);
        break;
      }
      start = end + 1;
    }
  }
  closedir(proc);
  return pids;
}

int ShellExitCode(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

std::string DescribeWaitStatus(int wait_status) {
  if (WIFEXITED(wait_status))
    return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status))
    return "killed by signal " + std::to_string(WTERMSIG(wait_status)) + " (" +
           strsignal(WTERMSIG(wait_status)) + ")";
  return "ended with wait status " + std::to_string(wait_status);
}

bool TryReap(pid_t pid, int* wait_status) {
  int st = 0;
  pid_t r;
  do {
    r = waitpid(pid, &st, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  if (r < 0) st = 255 << 8;  // ECHILD: reaped elsewhere (SIGCHLD ignored); status lost
  ChildRegistry::Remove(pid);
  *wait_status = st;
  return true;
}

bool WaitForExit(pid_t pid, std::chrono::milliseconds timeout, int* wait_status) {
  return PollUntil(timeout, [&] { return TryReap(pid, wait_status); });
}

int TerminateChild(pid_t pid, bool group, std::chrono::milliseconds grace) {
  int st = 0;
  if (TryReap(pid, &st)) return st;
  kill(group ? -pid : pid, SIGTERM);
  if (WaitForExit(pid, grace, &st)) {
    if (group) kill(-pid, SIGKILL);  // stragglers the leader left in its group
    return st;
  }
  if (group) kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
  // SIGKILL cannot be ignored; this only waits for the kernel to finish.
  while (!WaitForExit(pid, std::chrono::seconds(10), &st)) kill(pid, SIGKILL);
  return st;
}

}  // namespace test
}  // namespace ssa
