// ibacm_node.cc: start/stop of an ibacm daemon on a simulated node.
#include "test/sim/ibacm_node.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/acm/acm_client.h"
#include "common/base/config_file.h"
#include "test/sim/sim_util.h"
#include "test/support/prom_check.h"

namespace ssa {
namespace test {

std::string TestProviderDir() {
  return std::string(ABS_TOP_BUILDDIR) + "/test/providers/good/.libs";
}
std::string IbacmBinary() { return std::string(ABS_TOP_BUILDDIR) + "/core/ibacm"; }

IbacmNode::IbacmNode(SimFabric* fabric, Options options)
    : fabric_(fabric), options_(std::move(options)) {
  dir_ = fabric_->run_dir() + "/ibacm-" + options_.node;
  // The test's own metrics file, if its options name one ([core] or
  // upstream's flat format: ConfigFile reads both as ibacm does).
  ConfigFile opts;
  if (ConfigFile::Parse(options_.opts_cfg, "opts.cfg", &opts).ok()) {
    const ConfigEntry* e = opts.Find("core", "metrics_file");
    if (!e) e = opts.Find("", "metrics_file");
    if (e) metrics_path_ = e->value;
  }
  if (metrics_path_.empty() && options_.opts_cfg.find("[core]") != std::string::npos) {
    metrics_path_ = dir_ + "/ibacm.prom";
    options_.opts_cfg += "\n[core]\nmetrics_file = " + metrics_path_ + "\nmetrics_interval = 1\n";
  }
}

IbacmNode::~IbacmNode() {
  if (process_ && process_->IsRunning()) process_->Terminate(std::chrono::seconds(5));
}

std::string IbacmNode::Log() const {
  std::string text;
  ReadFileToString(log_path(), &text);
  return text;
}

Status IbacmNode::Start(std::chrono::milliseconds timeout) {
  mkdir(dir_.c_str(), 0755);
  Status st = WriteStringToFile(dir_ + "/addr.cfg", options_.addr_cfg);
  if (st.ok()) st = WriteStringToFile(dir_ + "/opts.cfg", options_.opts_cfg);
  if (!st.ok()) return st;
  // A previous daemon's numbers must not satisfy a wait on this one.
  if (!metrics_path_.empty()) unlink(metrics_path_.c_str());
  std::vector<std::string> argv = {options_.binary.empty() ? IbacmBinary() : options_.binary,
                                   "-P",
                                   "-O",
                                   dir_ + "/opts.cfg",
                                   "-A",
                                   dir_ + "/addr.cfg",
                                   "-R",
                                   dir_ + "/run",
                                   "-L",
                                   log_path(),
                                   "--provider-dir",
                                   options_.provider_dir};
  argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
  st = fabric_->Spawn(options_.node, argv, &process_);
  if (!st.ok()) return st;
  // Up once it accepts a connection: the socket file alone proves nothing
  // (one killed with SIGKILL leaves it behind, and its successor replaces
  // it only once it listens).
  bool up = PollUntil(timeout, [&] {
    AcmClient probe;
    return probe.Connect(socket_path()).ok() || !process_->IsRunning();
  });
  if (!up || !process_->IsRunning())
    return Status::Error(EIO, "ibacm on " + options_.node + " did not come up; log:\n" +
                                  TailOfFile(log_path()) + "\noutput:\n" + process_->output());
  return Status::Ok();
}

bool IbacmNode::IsRunning() { return process_ && process_->IsRunning(); }

Status IbacmNode::WaitMetric(const std::string& series, const std::function<bool(double)>& ok,
                             std::chrono::milliseconds timeout) {
  if (metrics_path_.empty())
    return Status::Error(EINVAL, "ibacm on " + options_.node + " writes no metrics file");
  double v = -1;
  if (PollUntil(timeout, [&] {
        std::string text;
        ReadFileToString(metrics_path_, &text);
        v = PromSample(text, series);
        return ok(v);
      }))
    return Status::Ok();
  return Status::Error(ETIMEDOUT, "ibacm on " + options_.node + ": " + series + " stayed at " +
                                      std::to_string(v) + "; metrics file:\n" +
                                      TailOfFile(metrics_path_) + "\nlog:\n" +
                                      TailOfFile(log_path()));
}

Status IbacmNode::WaitAddresses(size_t names, size_t ips, std::chrono::milliseconds timeout) {
  auto is = [](size_t want) { return [want](double v) { return v == static_cast<double>(want); }; };
  Status st = WaitMetric("ibacm_ssa_addr_names{provider=\"ssa\"}", is(names), timeout);
  return st.ok() ? WaitMetric("ibacm_ssa_addr_ips{provider=\"ssa\"}", is(ips), timeout) : st;
}

Status IbacmNode::WaitPrdbEpoch(uint64_t epoch, std::chrono::milliseconds timeout,
                                const std::string& port) {
  const double want = static_cast<double>(epoch);
  return WaitMetric(
      "ibacm_ssa_prdb_epoch{provider=\"ssa\",port=\"" + port + "\"}",
      [want](double v) { return v >= want; }, timeout);
}

Status IbacmNode::Stop(std::chrono::milliseconds timeout) {
  if (!process_) return Status::Ok();
  return StopDaemon(process_.get(), "ibacm on " + options_.node, log_path(), timeout);
}

Status StopDaemon(SimProcess* p, const std::string& name, const std::string& log_path,
                  std::chrono::milliseconds timeout) {
  // SIGCONT first: a test may have left it stopped (SIGSTOP), and a stopped
  // process does not act on SIGTERM.
  p->Kill(SIGCONT);
  Status st = p->Kill(SIGTERM);
  if (!st.ok()) return st;
  int status = 0;
  st = p->Wait(timeout, &status);
  if (!st.ok()) {
    // A daemon that does not stop is a hang to fix: say where it is stuck.
    std::string stacks = ThreadStacks(p->pid());
    std::string tail = TailOfFile(log_path);
    if (StuckInUmad2simExit(stacks) && tail.find("exiting with status 0") != std::string::npos) {
      // The daemon finished; umad2sim's own exit handler deadlocked with
      // its receiver thread (doc/simulated-fabric.md). Not the daemon's hang.
      fprintf(stderr, "%s: stopped, then hung in umad2sim's exit handler; killed\n", name.c_str());
      p->Kill(SIGKILL);
      p->Wait(timeout, &status);
      return Status::Ok();
    }
    return st.WithContext(name + " did not stop on SIGTERM; log:\n" + tail + "\n" + stacks);
  }
  if (status != 0)
    return Status::Error(EIO, name + " exited with status " + std::to_string(status) + "; log:\n" +
                                  TailOfFile(log_path) + "\noutput:\n" + p->output());
  return Status::Ok();
}

Status RunProgram(const std::vector<std::string>& argv, std::string* output, int* exit_status,
                  std::chrono::milliseconds timeout) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) < 0) return Status::FromErrno("pipe");
  pid_t pid = fork();
  if (pid < 0) return Status::FromErrno("fork");
  if (pid == 0) {
    dup2(pipefd[1], 1);
    dup2(pipefd[1], 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(pipefd[1]);
  fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
  output->clear();
  int status = 0;
  bool exited = false;
  bool done = PollUntil(timeout, [&] {
    char buf[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) output->append(buf, n);
    if (!exited && waitpid(pid, &status, WNOHANG) == pid) exited = true;
    return exited && n == 0;
  });
  close(pipefd[0]);
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return Status::Error(ETIMEDOUT,
                         JoinArgs(argv) + " did not finish in time; output:\n" + *output);
  }
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return Status::Ok();
}

}  // namespace test
}  // namespace ssa
