// simfab_main.cc: the simfab command line tool, a thin layer over SimFabric
// for shell scripts, demos and benchmarks. `simfab --help` documents it.
// Single-threaded.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "test/sim/netgen.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_console.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_run_dir.h"
#include "test/sim/sim_slots.h"
#include "test/sim/sim_util.h"

namespace ssa {
namespace test {
namespace {

const char kUsage[] = R"USAGE(NAME
    simfab - run and drive a simulated InfiniBand fabric (ibsim + OpenSM)

SYNOPSIS
    simfab run [FABRIC] [OPTIONS] -- COMMAND [ARGS...]
    simfab up [FABRIC] [OPTIONS]
    simfab down
    simfab node NODE -- COMMAND [ARGS...]
    simfab console 'IBSIM COMMAND'
    simfab attached
    simfab link-down NODE [PORT] [--no-wait] [--timeout S]
    simfab link-up NODE [PORT] [--no-wait] [--timeout S]
    simfab wait-up [--count N] [--timeout S]
    simfab up-count
    simfab gen-fattree N [--mixed] [--per-leaf K] [--uplinks U] [--spines S] [--leaf-radix R]
    simfab gen-torus X Y [--per-switch K] [--mesh]
    simfab gen-4hca

DESCRIPTION
    run      Starts ibsim and OpenSM in a private run directory, waits for
             SUBNET UP, runs COMMAND (not attached to the fabric itself) as a
             job of its own with SIMFAB_DIR=<run dir>, IBSIM_SOCKNAME and
             SIMFAB_BIN=<this program> in its environment, and waits for it.
             Then it sends SIGTERM to what COMMAND left running in its process
             group, kills the node processes of the fabric, OpenSM and ibsim,
             and removes the run directory unless COMMAND failed or --keep is
             given. SIGINT, SIGTERM or SIGHUP to simfab end COMMAND's job and
             tear down the same way. Exits with COMMAND's status.
    up       The same fabric as run, kept up in the background until `simfab
             down`: prints "export SIMFAB_DIR=<run dir>" on stdout once
             OpenSM reports SUBNET UP (eval "$(simfab up)"), so that this
             shell and any other with that line can run `simfab node`. Its
             output goes to <run dir>.up.log, kept with the run directory
             when the fabric fails.
    down     Stops the fabric `simfab up` started (SIMFAB_DIR): every node
             process, OpenSM, ibsim, and removes the run directory; returns
             when they are gone (--timeout S, default 60).
    node     Inside a run (or after up): becomes NODE (umad2sim preload, SIM_HOST,
             IBSIM_SOCKNAME), moves to a fresh directory under
             $SIMFAB_DIR/procs, takes one of the fabric's 10 attach slots for
             as long as COMMAND lives, and executes COMMAND.
    console  Sends one command to ibsim's console and prints its reply
             (try 'help', 'Dump "Hca1"', 'Attached').
    attached Prints ibsim's attached clients and the attach slots in use.
    link-down, link-up
             Unlink / ReLink all links of NODE, or the link of NODE's PORT,
             then wait for OpenSM's next SUBNET UP (unless --no-wait).
    wait-up  Waits until OpenSM's log has N (default 1) SUBNET UP lines.
    up-count Prints how many SUBNET UP lines OpenSM's log has.
    gen-fattree
             Prints a 2-level fat tree net file (Hca1..N, L1.., S1..) on
             stdout and the ibsim flags it needs (-N/-S/-P, maybe empty) on
             stderr.
    gen-torus
             Prints an X by Y torus of switches (a mesh with --mesh; K HCAs
             on each switch, default 2) the same way: the topology for the
             engines that keep credit loops away (lash, dfsssp, nue, dor,
             torus-2QoS).
    gen-4hca Prints the built-in 4-HCA net file (test/sim/nets/4hca.net).

FABRIC (run)
    --net FILE            an ibsim net file
    --fat-tree N          a generated fat tree of N HCAs; with --mixed,
                          --per-leaf, --uplinks, --spines, --leaf-radix as
                          for gen-fattree
    (default)             the built-in 4-HCA, 2-switch fabric

OPTIONS (run)
    --sm-node NODE        node OpenSM runs as (default: first in the net file)
    --no-sm               do not start OpenSM
    --opensm-arg ARG      extra OpenSM argument, repeatable (--opensm-arg -F
                          --opensm-arg FILE)
    --opensm-env K=V      extra OpenSM environment, repeatable
    --ibsim-arg ARG       extra ibsim argument, repeatable
    --timeout S           bring-up deadline in seconds (default 60)
    --run-dir-parent DIR  where the run directory goes (default $TMPDIR or /tmp)
    --keep                keep the run directory
    -v, --verbose         say where the fabric runs

LIMITS
    ibsim accepts 10 attached processes, OpenSM included. Every `simfab node`
    process (and every SimFabric::Spawn) holds one slot while it lives; the
    11th fails with a message naming the holders instead of dying inside
    umad2sim. Processes killed by a signal are removed from ibsim's list when
    their slot is reused. A process reads its port (LID, SM LID, state) once
    at start: start node processes after SUBNET UP.

EXIT STATUS
    run: COMMAND's status, 128+N if it was killed by signal N, 128+N if simfab
    itself got signal N, 70 if the fabric did not come up. node: 75 when all
    attach slots are taken, 127 when COMMAND cannot be executed. Others: 0 on
    success, 1 on failure, 2 on a usage error.
)USAGE";

constexpr int kExitUsage = 2;
constexpr int kExitSoftware = 70;  // EX_SOFTWARE
constexpr int kExitTempFail = 75;  // EX_TEMPFAIL: all attach slots taken

int UsageError(const std::string& message) {
  fprintf(stderr, "simfab: %s\nTry 'simfab --help'.\n", message.c_str());
  return kExitUsage;
}

int Fail(const std::string& what, const Status& s, int code = 1) {
  fprintf(stderr, "simfab %s: %s\n", what.c_str(), s.ToString().c_str());
  return code;
}

// Walks the arguments after the subcommand: options as "--name VALUE" or
// "--name=VALUE", positionals, and everything after "--".
class Args {
 public:
  Args(int argc, char** argv, int first) : args_(argv + first, argv + argc) {}
  explicit Args(std::vector<std::string> args) : args_(std::move(args)) {}
  bool Done() const { return pos_ >= args_.size(); }
  const std::string& Peek() const { return args_[pos_]; }
  std::string Next() { return args_[pos_++]; }
  // If the current argument is option `name`, consumes it (and its value).
  bool Flag(const char* name) {
    if (Done() || Peek() != name) return false;
    ++pos_;
    return true;
  }
  bool Option(const char* name, std::string* value, std::string* error) {
    if (Done()) return false;
    const std::string& a = Peek();
    std::string prefix = std::string(name) + "=";
    if (a.rfind(prefix, 0) == 0) {
      *value = a.substr(prefix.size());
      ++pos_;
      return true;
    }
    if (a != name) return false;
    if (pos_ + 1 >= args_.size()) {
      *error = std::string(name) + " needs a value";
      return false;
    }
    *value = args_[pos_ + 1];
    pos_ += 2;
    return true;
  }
  std::vector<std::string> Rest() {
    std::vector<std::string> rest(args_.begin() + pos_, args_.end());
    pos_ = args_.size();
    return rest;
  }

 private:
  std::vector<std::string> args_;
  size_t pos_ = 0;
};

bool ParseInt(const std::string& text, int* out) {
  char* end = nullptr;
  errno = 0;
  long v = strtol(text.c_str(), &end, 10);
  if (errno || end == text.c_str() || *end || v < 0 || v > 1000000) return false;
  *out = static_cast<int>(v);
  return true;
}

bool ParseSeconds(const std::string& text, std::chrono::milliseconds* out) {
  char* end = nullptr;
  double s = strtod(text.c_str(), &end);
  if (end == text.c_str() || *end || s < 0) return false;
  *out = std::chrono::milliseconds(static_cast<long>(s * 1000));
  return true;
}

// Consumes fat tree shape options; returns false (error set) on a bad value.
bool FatTreeOption(Args& args, FatTreeOptions* o, bool* matched, std::string* error) {
  std::string v;
  *matched = true;
  if (args.Flag("--mixed")) {
    o->mixed_links = true;
    return true;
  }
  struct {
    const char* name;
    int* field;
  } ints[] = {{"--per-leaf", &o->hcas_per_leaf},
              {"--uplinks", &o->uplinks_per_leaf},
              {"--spines", &o->spines},
              {"--leaf-radix", &o->leaf_radix}};
  for (auto& i : ints) {
    if (args.Option(i.name, &v, error)) {
      if (ParseInt(v, i.field)) return true;
      *error = std::string(i.name) + ": not a number: " + v;
      return false;
    }
    if (!error->empty()) return false;
  }
  *matched = false;
  return true;
}

struct Fabric {
  RunDirLayout layout;
  FabricInfo info;
};

Status OpenFabricFromEnv(Fabric* f) {
  const char* dir = getenv("SIMFAB_DIR");
  if (!dir || !*dir)
    return Status::Error(EINVAL,
                         "SIMFAB_DIR is not set: run this inside `simfab run ... -- COMMAND`");
  f->layout.dir = dir;
  return ReadFabricInfo(f->layout, &f->info);
}

std::string SelfPath() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "simfab";
}

// ---------------------------------------------------------------- run

// `simfab up`: the descriptor COMMAND (`simfab hold`) reports the run
// directory on; -1 for a plain run.
int g_up_fd = -1;

int CmdRun(Args& args) {
  SimFabric::Options options;
  FatTreeOptions tree;
  bool use_tree = false, keep = false, verbose = false;
  std::string net_file, v, error;
  while (!args.Done() && args.Peek() != "--") {
    bool matched = false;
    if (!FatTreeOption(args, &tree, &matched, &error)) return UsageError(error);
    if (matched) continue;
    if (args.Option("--net", &net_file, &error)) continue;
    if (args.Option("--fat-tree", &v, &error)) {
      if (!ParseInt(v, &tree.hcas)) return UsageError("--fat-tree: not a number: " + v);
      use_tree = true;
    } else if (args.Option("--sm-node", &options.sm_node, &error)) {
    } else if (args.Flag("--no-sm")) {
      options.start_sm = false;
    } else if (args.Option("--opensm-arg", &v, &error)) {
      options.opensm_args.push_back(v);
    } else if (args.Option("--ibsim-arg", &v, &error)) {
      options.ibsim_args.push_back(v);
    } else if (args.Option("--opensm-env", &v, &error)) {
      size_t eq = v.find('=');
      if (eq == std::string::npos) return UsageError("--opensm-env wants K=V, not " + v);
      options.opensm_env[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (args.Option("--timeout", &v, &error)) {
      if (!ParseSeconds(v, &options.up_timeout)) return UsageError("--timeout: bad seconds: " + v);
    } else if (args.Option("--run-dir-parent", &options.run_dir_parent, &error)) {
    } else if (args.Flag("--keep")) {
      keep = true;
    } else if (args.Flag("-v") || args.Flag("--verbose")) {
      verbose = true;
    } else {
      return UsageError(error.empty() ? "run: unknown option " + args.Peek() : error);
    }
  }
  if (!args.Flag("--")) return UsageError("run: missing -- COMMAND");
  std::vector<std::string> command = args.Rest();
  if (command.empty()) return UsageError("run: missing COMMAND after --");
  if (use_tree && !net_file.empty())
    return UsageError("run: --net and --fat-tree exclude each other");

  if (use_tree) {
    GeneratedNet net;
    Status s = FatTreeNet(tree, &net);
    if (!s.ok()) return Fail("run", s, kExitUsage);
    options.net_text = net.text;
    options.ibsim_args.insert(options.ibsim_args.begin(), net.ibsim_args.begin(),
                              net.ibsim_args.end());
  } else if (!net_file.empty()) {
    Status s = ReadFileToString(net_file, &options.net_text);
    if (!s.ok()) return Fail("run", s, kExitUsage);
  } else {
    options.net_text = FourHcaNet();
  }

  // Signals are taken synchronously (sigtimedwait) so that teardown runs in
  // normal code; children get them unblocked again (LaunchChild). SIGTTOU is
  // blocked so we may take the terminal back from COMMAND.
  sigset_t wanted;
  sigemptyset(&wanted);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&wanted, sig);
  sigset_t blocked = wanted;
  sigaddset(&blocked, SIGTTOU);
  sigprocmask(SIG_BLOCK, &blocked, nullptr);

  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<SimFabric> fabric;
  Status s = SimFabric::Start(options, &fabric);
  if (!s.ok()) return Fail("run", s, kExitSoftware);
  if (verbose) {
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fprintf(stderr, "simfab: fabric up in %.2f s: SIMFAB_DIR=%s IBSIM_SOCKNAME=%s\n", secs,
            fabric->run_dir().c_str(), fabric->sock_name().c_str());
  }

  // COMMAND runs as a job of its own (its own process group, given the
  // terminal when we have it) so that teardown can kill it and whatever it
  // left running, and Ctrl-C reaches it, not us.
  const bool interactive = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
  LaunchSpec spec;
  spec.argv = command;
  spec.env = {{"SIMFAB_DIR", fabric->run_dir()},
              {"IBSIM_SOCKNAME", fabric->sock_name()},
              {"SIMFAB_BIN", SelfPath()}};
  spec.inherit_stdin = true;
  spec.take_terminal = interactive;
  spec.parent_death_signal = SIGTERM;
  spec.register_for_cleanup = false;
  if (g_up_fd >= 0) spec.keep_fds.push_back(g_up_fd);
  pid_t pid;
  s = LaunchChild(spec, &pid);
  if (g_up_fd >= 0) {
    close(g_up_fd);  // `up` reads until COMMAND closes its copy
    g_up_fd = -1;
  }
  if (!s.ok()) {
    fabric->Stop();
    return Fail("run", s, 127);
  }

  int status = 0, got_signal = 0;
  bool warned = false;
  for (;;) {
    struct timespec tick = {0, 200 * 1000 * 1000};
    int sig = sigtimedwait(&wanted, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
      got_signal = sig;
      fprintf(stderr, "simfab run: got %s, tearing down\n", strsignal(sig));
      break;
    }
    if (TryReap(pid, &status)) break;
    Status alive = fabric->CheckAlive();
    if (!alive.ok() && !warned) {
      fprintf(stderr, "simfab run: warning: %s\n", alive.ToString().c_str());
      warned = true;
    }
  }
  if (got_signal) {
    status = TerminateChild(pid, true, std::chrono::seconds(5));
  } else {
    // What COMMAND left running in its group (background jobs of a script).
    kill(-pid, SIGTERM);
  }
  if (interactive) tcsetpgrp(STDIN_FILENO, getpgrp());
  // An interrupted run (a signal to us, Ctrl-C to COMMAND) is not a failed
  // one: its directory goes too.
  bool interrupted = got_signal || (WIFSIGNALED(status) && WTERMSIG(status) == SIGINT);
  bool failed = !interrupted && ShellExitCode(status) != 0;
  if (failed || keep) fabric->set_failed();
  std::string dir = fabric->run_dir();
  s = fabric->Stop();
  if (!s.ok()) fprintf(stderr, "simfab run: teardown: %s\n", s.ToString().c_str());
  if (failed)
    fprintf(stderr, "simfab run: '%s' %s; run directory kept: %s\n", JoinArgs(command).c_str(),
            DescribeWaitStatus(status).c_str(), dir.c_str());
  else if (keep && verbose)
    fprintf(stderr, "simfab run: run directory kept: %s\n", dir.c_str());
  return got_signal ? 128 + got_signal : ShellExitCode(status);
}

// ---------------------------------------------------------------- up, hold, down

// `simfab up`: `simfab run OPTIONS -- simfab hold FD` in a session of its
// own; the parent returns once `hold` reported the run directory through
// the pipe FD (or the run ended without one: the fabric did not come up).
int CmdUp(Args& args) {
  std::vector<std::string> run_args = args.Rest();
  for (const std::string& a : run_args)
    if (a == "--") return UsageError("up: no COMMAND (up keeps the fabric until `simfab down`)");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Fail("up", Status::FromErrno("pipe2"), kExitSoftware);
  const std::string parent = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  std::string log = parent + "/simfab-up." + std::to_string(getpid()) + ".log";
  for (size_t i = 0; i + 1 < run_args.size(); ++i)
    if (run_args[i] == "--run-dir-parent")
      log = run_args[i + 1] + "/simfab-up." + std::to_string(getpid()) + ".log";
  pid_t pid = fork();
  if (pid < 0) return Fail("up", Status::FromErrno("fork"), kExitSoftware);
  if (pid == 0) {
    close(fds[0]);
    setsid();
    int in = open("/dev/null", O_RDONLY);
    int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
      _exit(kExitSoftware);
    close(in);
    close(out);
    run_args.push_back("--");
    run_args.push_back(SelfPath());
    run_args.push_back("hold");
    run_args.push_back(std::to_string(fds[1]));
    g_up_fd = fds[1];
    Args run(run_args);
    int rc = CmdRun(run);
    // A fabric that came up and went down cleanly leaves nothing behind.
    if (rc == 0) unlink(log.c_str());
    _exit(rc);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  const std::string key = "SIMFAB_DIR=";
  if (got.rfind(key, 0) != 0 || got.back() != '\n') {
    int status = 0;
    waitpid(pid, &status, 0);
    std::string text;
    ReadFileToString(log, &text);
    fputs(text.c_str(), stderr);
    unlink(log.c_str());
    return Fail(
        "up", Status::Error(EIO, "the fabric did not come up (" + DescribeWaitStatus(status) + ")"),
        kExitSoftware);
  }
  const std::string dir = got.substr(key.size(), got.size() - key.size() - 1);
  // The log moves beside the run directory, where `down` and a person look.
  rename(log.c_str(), (dir + ".up.log").c_str());
  printf("export SIMFAB_DIR=%s\n", dir.c_str());
  fprintf(stderr,
          "simfab: fabric up (run directory %s); another shell joins it with\n"
          "    export SIMFAB_DIR=%s\n"
          "and `simfab down` stops it.\n",
          dir.c_str(), dir.c_str());
  return 0;
}

// `simfab hold FD`: what `up` runs as COMMAND. Writes the run directory to
// FD and its pid and its parent's (the run) to $SIMFAB_DIR/up.pid, then waits for SIGTERM (from
// `down`), SIGINT or SIGHUP and exits 0, which makes `run` tear down.
int CmdHold(Args& args) {
  int fd = -1;
  if (args.Done() || !ParseInt(args.Next(), &fd)) return UsageError("hold: want a descriptor");
  const char* dir = getenv("SIMFAB_DIR");
  if (!dir) return UsageError("hold: SIMFAB_DIR is not set");
  sigset_t wanted;
  sigemptyset(&wanted);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&wanted, sig);
  sigprocmask(SIG_BLOCK, &wanted, nullptr);
  Status s = WriteStringToFile(std::string(dir) + "/up.pid",
                               std::to_string(getpid()) + " " + std::to_string(getppid()) + "\n");
  if (!s.ok()) return Fail("hold", s);
  std::string line = std::string("SIMFAB_DIR=") + dir + "\n";
  if (write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    return Fail("hold", Status::FromErrno("write"));
  close(fd);
  int sig = 0;
  sigwait(&wanted, &sig);
  return 0;
}

int CmdDown(Args& args) {
  std::chrono::milliseconds timeout(60000);
  std::string v, error;
  while (!args.Done()) {
    if (args.Option("--timeout", &v, &error)) {
      if (!ParseSeconds(v, &timeout)) return UsageError("--timeout: bad seconds: " + v);
    } else {
      return UsageError(error.empty() ? "down: unknown argument " + args.Peek() : error);
    }
  }
  const char* env = getenv("SIMFAB_DIR");
  if (!env || !*env)
    return Fail("down", Status::Error(EINVAL, "SIMFAB_DIR is not set (simfab up prints it)"));
  const std::string dir = env;
  std::string text;
  Status s = ReadFileToString(dir + "/up.pid", &text);
  if (!s.ok()) return Fail("down", s.WithContext("no fabric of `simfab up` in " + dir));
  int pid = 0, run_pid = 0;
  if (sscanf(text.c_str(), "%d %d", &pid, &run_pid) != 2 || pid <= 1 || run_pid <= 1)
    return Fail("down", Status::Error(EINVAL, "bad pids in " + dir + "/up.pid"));
  if (kill(pid, SIGTERM) != 0 && errno != ESRCH)
    return Fail("down", Status::FromErrno("kill " + std::to_string(pid)));
  // `run` (hold's parent) removes the run directory when it has stopped
  // everything, and keeps it when something failed on the way down.
  const std::string log = dir + ".up.log";
  bool gone = PollUntil(timeout, [&] { return !IsPidAlive(run_pid); });
  if (!gone)
    return Fail("down",
                Status::Error(ETIMEDOUT, "the fabric in " + dir + " did not stop; see " + log));
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    std::string tail;
    ReadFileToString(log, &tail);
    fputs(tail.c_str(), stderr);
    return Fail("down",
                Status::Error(EIO, "the fabric stopped with errors; run directory kept: " + dir));
  }
  unlink(log.c_str());
  return 0;
}

// ---------------------------------------------------------------- node

int CmdNode(Args& args) {
  if (args.Done()) return UsageError("node: missing NODE");
  std::string node = args.Next();
  args.Flag("--");
  std::vector<std::string> command = args.Rest();
  if (command.empty()) return UsageError("node: missing COMMAND");
  Fabric f;
  Status s = OpenFabricFromEnv(&f);
  if (!s.ok()) return Fail("node", s, kExitSoftware);
  if (!IsPidAlive(f.info.ibsim_pid))
    return Fail("node", Status::Error(ESRCH, "ibsim of " + f.layout.dir + " is not running"),
                kExitSoftware);
  std::string net_text;
  NetDescription net;
  s = ReadFileToString(f.layout.net(), &net_text);
  if (s.ok()) s = ParseNet(net_text, &net);
  if (!s.ok()) return Fail("node", s, kExitSoftware);
  if (!net.FindNode(node))
    return Fail("node", Status::Error(EINVAL, "no node '" + node + "' in " + f.layout.net()),
                kExitUsage);
  std::string program = FindProgram(command[0]);
  if (program.empty())
    return Fail("node", Status::Error(ENOENT, "'" + command[0] + "' not found in PATH"), 127);

  AttachSlots slots(f.layout.slots_dir());
  SlotClaim claim;
  s = slots.Claim(&claim);
  if (!s.ok()) return Fail("node " + node, s, kExitTempFail);
  if (claim.reap_advised()) {
    int released = 0;
    IbsimConsole(f.layout, f.info.ibsim_pid).ReleaseDeadClients(&released);
  }
  std::string workdir;
  s = MakeProcessDir(f.layout, node, command[0], &workdir);
  if (!s.ok()) return Fail("node", s, kExitSoftware);
  if (chdir(workdir.c_str()) != 0)
    return Fail("node", Status::FromErrno("chdir " + workdir), kExitSoftware);
  claim.SetHolder(getpid(), node, JoinArgs(command));
  // The slot is held by this process image and, after exec, by COMMAND.
  int slot_fd = claim.Release();
  if (fcntl(slot_fd, F_SETFD, 0) != 0)
    return Fail("node", Status::FromErrno("fcntl"), kExitSoftware);
  for (const auto& kv : NodeEnvironment(f.info.sock_name, node))
    setenv(kv.first.c_str(), kv.second.c_str(), 1);

  std::vector<char*> argv;
  for (std::string& a : command) argv.push_back(&a[0]);
  argv.push_back(nullptr);
  execv(program.c_str(), argv.data());
  return Fail("node", Status::FromErrno("cannot execute " + program), 127);
}

// ---------------------------------------------------------------- console & links

int CmdConsole(Args& args) {
  std::string command = JoinArgs(args.Rest());
  if (command.empty()) return UsageError("console: missing the ibsim command");
  Fabric f;
  Status s = OpenFabricFromEnv(&f);
  if (!s.ok()) return Fail("console", s);
  std::string reply;
  s = IbsimConsole(f.layout, f.info.ibsim_pid).Command(command, &reply);
  fputs(reply.c_str(), stdout);
  return s.ok() ? 0 : Fail("console", s);
}

int CmdAttached(Args& args) {
  if (!args.Done()) return UsageError("attached takes no arguments");
  Fabric f;
  Status s = OpenFabricFromEnv(&f);
  if (!s.ok()) return Fail("attached", s);
  std::string reply;
  s = IbsimConsole(f.layout, f.info.ibsim_pid).Command("Attached", &reply);
  if (!s.ok()) return Fail("attached", s);
  printf("ibsim clients:\n%s", reply.empty() ? "  (none)\n" : reply.c_str());
  std::vector<SlotHolder> holders = AttachSlots(f.layout.slots_dir()).Holders();
  printf("attach slots in use (%zu of %d):\n", holders.size(), AttachSlots::kCount);
  for (const SlotHolder& h : holders) printf("  %s\n", AttachSlots::DescribeHolders({h}).c_str());
  return 0;
}

int CmdLink(Args& args, bool up) {
  const std::string name = up ? "link-up" : "link-down";
  std::string node, port, v, error;
  bool wait = true;
  std::chrono::milliseconds timeout(30000);
  while (!args.Done()) {
    if (args.Flag("--no-wait")) {
      wait = false;
    } else if (args.Option("--timeout", &v, &error)) {
      if (!ParseSeconds(v, &timeout)) return UsageError("--timeout: bad seconds: " + v);
    } else if (!error.empty() || args.Peek().rfind("--", 0) == 0) {
      return UsageError(error.empty() ? name + ": unknown option " + args.Peek() : error);
    } else if (node.empty()) {
      node = args.Next();
    } else if (port.empty()) {
      port = args.Next();
    } else {
      return UsageError(name + ": too many arguments");
    }
  }
  int port_num = 0;
  if (node.empty()) return UsageError(name + ": missing NODE");
  if (!port.empty() && (!ParseInt(port, &port_num) || port_num < 1))
    return UsageError(name + ": bad port " + port);
  Fabric f;
  Status s = OpenFabricFromEnv(&f);
  if (!s.ok()) return Fail(name, s);
  LogLineCounter ups(f.layout.osm_log(), "SUBNET UP");
  int before = ups.Count();
  std::string command = std::string(up ? "ReLink" : "Unlink") + " \"" + node + "\"" +
                        (port_num ? "[" + std::to_string(port_num) + "]" : "");
  s = IbsimConsole(f.layout, f.info.ibsim_pid).Command(command, nullptr);
  if (!s.ok()) return Fail(name, s);
  if (!wait) return 0;
  if (!PollUntil(timeout, [&] { return ups.Count() > before; }))
    return Fail(name, Status::Error(ETIMEDOUT, "no new SUBNET UP within " +
                                                   std::to_string(timeout.count()) + " ms"));
  return 0;
}

int CmdWaitUp(Args& args, bool count_only) {
  int want = 1;
  std::chrono::milliseconds timeout(60000);
  std::string v, error;
  while (!args.Done()) {
    if (!count_only && args.Option("--count", &v, &error)) {
      if (!ParseInt(v, &want)) return UsageError("--count: not a number: " + v);
    } else if (!count_only && args.Option("--timeout", &v, &error)) {
      if (!ParseSeconds(v, &timeout)) return UsageError("--timeout: bad seconds: " + v);
    } else {
      return UsageError(error.empty() ? "unexpected argument " + args.Peek() : error);
    }
  }
  Fabric f;
  Status s = OpenFabricFromEnv(&f);
  if (!s.ok()) return Fail("wait-up", s);
  LogLineCounter ups(f.layout.osm_log(), "SUBNET UP");
  if (!count_only && !PollUntil(timeout, [&] { return ups.Count() >= want; }))
    return Fail("wait-up",
                Status::Error(ETIMEDOUT, std::to_string(ups.Count()) + " SUBNET UP lines, not " +
                                             std::to_string(want) + ", within " +
                                             std::to_string(timeout.count()) + " ms"));
  printf("%d\n", ups.Count());
  return 0;
}

// ---------------------------------------------------------------- generators

int CmdGenFatTree(Args& args) {
  FatTreeOptions tree;
  std::string error;
  bool have_n = false;
  while (!args.Done()) {
    bool matched = false;
    if (!FatTreeOption(args, &tree, &matched, &error)) return UsageError(error);
    if (matched) continue;
    if (args.Peek().rfind("-", 0) == 0 || have_n)
      return UsageError("gen-fattree: unexpected argument " + args.Peek());
    if (!ParseInt(args.Next(), &tree.hcas)) return UsageError("gen-fattree: N must be a number");
    have_n = true;
  }
  if (!have_n) return UsageError("gen-fattree: missing N");
  GeneratedNet net;
  Status s = FatTreeNet(tree, &net);
  if (!s.ok()) return Fail("gen-fattree", s, kExitUsage);
  fputs(net.text.c_str(), stdout);
  fprintf(stderr, "%s\n", JoinArgs(net.ibsim_args).c_str());
  return 0;
}

int CmdGenTorus(Args& args) {
  TorusOptions torus;
  std::vector<int> dims;
  std::string v, error;
  while (!args.Done()) {
    if (args.Option("--per-switch", &v, &error)) {
      if (!ParseInt(v, &torus.hcas_per_switch)) return UsageError("--per-switch: not a number");
    } else if (args.Peek() == "--mesh") {
      args.Next();
      torus.wrap = false;
    } else if (!error.empty() || args.Peek().rfind("-", 0) == 0 || dims.size() == 2) {
      return UsageError(error.empty() ? "gen-torus: unexpected argument " + args.Peek() : error);
    } else {
      int d = 0;
      if (!ParseInt(args.Next(), &d)) return UsageError("gen-torus: X and Y must be numbers");
      dims.push_back(d);
    }
  }
  if (dims.size() != 2) return UsageError("gen-torus: want X and Y");
  torus.x = dims[0];
  torus.y = dims[1];
  GeneratedNet net;
  Status s = TorusNet(torus, &net);
  if (!s.ok()) return Fail("gen-torus", s, kExitUsage);
  fputs(net.text.c_str(), stdout);
  fprintf(stderr, "%s\n", JoinArgs(net.ibsim_args).c_str());
  return 0;
}

int Main(int argc, char** argv) {
  if (argc < 2) return UsageError("missing a command");
  std::string cmd = argv[1];
  Args args(argc, argv, 2);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "run") return CmdRun(args);
  if (cmd == "up") return CmdUp(args);
  if (cmd == "hold") return CmdHold(args);
  if (cmd == "down") return CmdDown(args);
  if (cmd == "node") return CmdNode(args);
  if (cmd == "console") return CmdConsole(args);
  if (cmd == "attached") return CmdAttached(args);
  if (cmd == "link-down") return CmdLink(args, false);
  if (cmd == "link-up") return CmdLink(args, true);
  if (cmd == "wait-up") return CmdWaitUp(args, false);
  if (cmd == "up-count") return CmdWaitUp(args, true);
  if (cmd == "gen-fattree") return CmdGenFatTree(args);
  if (cmd == "gen-torus") return CmdGenTorus(args);
  if (cmd == "gen-4hca") {
    fputs(FourHcaNet().c_str(), stdout);
    return 0;
  }
  return UsageError("unknown command '" + cmd + "'");
}

}  // namespace
}  // namespace test
}  // namespace ssa

int main(int argc, char** argv) { return ssa::test::Main(argc, argv); }
