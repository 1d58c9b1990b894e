// sim_fabric.cc: bring-up, node processes and teardown of a simulated fabric.
#include "test/sim/sim_fabric.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "test/sim/netgen.h"
#include "test/sim/sim_child.h"
#include "test/sim/sim_console.h"
#include "test/sim/sim_registry.h"
#include "test/sim/sim_stacks.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace test {
namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds Remaining(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max(left, std::chrono::milliseconds(0));
}

std::string Tail(const std::string& label, const std::string& path) {
  std::string tail = TailOfFile(path, 1500);
  return "\n--- " + label + " (" + path + ") ends with:\n" + (tail.empty() ? "(empty)\n" : tail);
}

}  // namespace

SimFabric::SimFabric(const Options& options) : options_(options) {}

SimFabric::~SimFabric() { Stop(); }

Status SimFabric::Start(const Options& options, std::unique_ptr<SimFabric>* out) {
  std::unique_ptr<SimFabric> fabric(new SimFabric(options));
  Status s = fabric->StartImpl();
  if (!s.ok()) {
    fabric->set_failed();
    std::string dir = fabric->layout_.dir;
    fabric->Stop();
    std::string where;
    if (!dir.empty())
      where = options.keep_run_dir_on_failure ? " (run directory kept: " + dir + ")" : "";
    return s.WithContext("the simulated fabric did not start" + where);
  }
  *out = std::move(fabric);
  return Status::Ok();
}

Status SimFabric::StartImpl() {
  const Clock::time_point deadline = Clock::now() + options_.up_timeout;
  if (options_.net_text.empty()) return Status::Error(EINVAL, "no net file text");
  NetDescription net;
  Status s = ParseNet(options_.net_text, &net);
  if (!s.ok()) return s;
  for (const NetNode& n : net.nodes) node_names_.push_back(n.name);
  info_.sm_node = options_.sm_node.empty() ? node_names_.front() : options_.sm_node;
  if (!options_.start_sm) info_.sm_node.clear();
  if (options_.start_sm && !HasNode(info_.sm_node))
    return Status::Error(EINVAL, "sm_node '" + info_.sm_node + "' is not in the net file");
  if (!PathExists(kUmad2simPath))
    return Status::Error(
        ENOENT, std::string(kUmad2simPath) + " missing: install Debian package libumad2sim0");
  if (FindProgram("ibsim").empty())
    return Status::Error(ENOENT, "ibsim not found: install Debian package ibsim-utils");
  if (options_.start_sm && FindProgram("opensm").empty())
    return Status::Error(ENOENT, "opensm not found: install Debian package opensm");

  ChildRegistry::InstallSignalHandlers();
  std::string parent =
      options_.run_dir_parent.empty() ? DefaultTempParent() : options_.run_dir_parent;
  s = MakeTempDir(parent, "simfab.", &layout_.dir);
  if (!s.ok()) return s;
  // Unique per fabric, even across processes: ibsim's sockets live in the
  // abstract namespace under this name ("@<name>:ctl", "@<name>:in<pid>").
  static std::atomic<int> counter{0};
  info_.sock_name = "simfab-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + "-" +
                    layout_.dir.substr(layout_.dir.size() - 6);

  s = WriteStringToFile(layout_.net(), options_.net_text);
  if (!s.ok()) return s;
  for (const std::string& d : {layout_.opensm_dir(), layout_.procs_dir()})
    if (mkdir(d.c_str(), 0755) != 0) return Status::FromErrno("cannot create " + d);
  slots_ = AttachSlots(layout_.slots_dir());
  s = slots_.Create();
  if (!s.ok()) return s;
  subnet_up_.reset(new LogLineCounter(layout_.osm_log(), "SUBNET UP"));

  s = StartIbsim(deadline);
  if (!s.ok()) return s;
  s = WriteFabricInfo(layout_, info_);
  if (!s.ok() || !options_.start_sm) return s;
  s = StartOpenSm(deadline);
  if (!s.ok()) return s;
  return WriteFabricInfo(layout_, info_);
}

Status SimFabric::StartIbsim(Clock::time_point deadline) {
  if (mkfifo(layout_.ctl().c_str(), 0600) != 0) return Status::FromErrno("mkfifo " + layout_.ctl());
  // O_RDWR on a fifo does not block, and our writer end stays open for the
  // fabric's life: ibsim never reads EOF (at EOF it spins at 100% CPU), and
  // shell users can still `echo cmd > ctl`.
  ctl_fd_ = open(layout_.ctl().c_str(), O_RDWR | O_CLOEXEC);
  if (ctl_fd_ < 0) return Status::FromErrno("cannot open " + layout_.ctl());

  LaunchSpec spec;
  spec.argv.push_back("ibsim");
  spec.argv.insert(spec.argv.end(), options_.ibsim_args.begin(), options_.ibsim_args.end());
  spec.argv.push_back("-s");  // start the network at once, no "Start" command
  spec.argv.push_back(layout_.net());
  spec.env["IBSIM_SOCKNAME"] = info_.sock_name;
  spec.cwd = layout_.dir;
  spec.output_path = layout_.ibsim_out();
  spec.stdin_fd = ctl_fd_;
  Status s = LaunchChild(spec, &info_.ibsim_pid);
  if (!s.ok()) return s.WithContext("cannot start ibsim");

  LogLineCounter ready(layout_.ibsim_out(), "Network simulator ready");
  return WaitForStartup(
      "ibsim", info_.ibsim_pid, &ibsim_reaped_, &ibsim_status_, [&] { return ready.Count() > 0; },
      [&] { return Tail("ibsim output", layout_.ibsim_out()); }, deadline);
}

Status SimFabric::StartOpenSm(Clock::time_point deadline) {
  SlotClaim claim;
  Status s = slots_.Claim(&claim);
  if (!s.ok()) return s;
  LaunchSpec spec;
  spec.argv = {"opensm", "-f", layout_.osm_log(), "-s", "0", "-d2"};
  spec.argv.insert(spec.argv.end(), options_.opensm_args.begin(), options_.opensm_args.end());
  spec.env = NodeEnv(info_.sm_node);
  spec.env["OSM_CACHE_DIR"] = layout_.dir;
  spec.env["OSM_TMP_DIR"] = layout_.dir;
  for (const auto& kv : options_.opensm_env) {
    // An extra preload (e.g. sanitizer runtimes) joins umad2sim's.
    if (kv.first == "LD_PRELOAD")
      spec.env[kv.first] = MergePreload(kv.second, spec.env["LD_PRELOAD"]);
    else
      spec.env[kv.first] = kv.second;
  }
  spec.cwd = layout_.opensm_dir();
  spec.output_path = layout_.opensm_dir() + "/opensm.out";
  spec.keep_fds = {claim.fd()};
  s = LaunchChild(spec, &info_.opensm_pid);
  if (!s.ok()) return s.WithContext("cannot start OpenSM");
  claim.SetHolder(info_.opensm_pid, info_.sm_node, JoinArgs(spec.argv));

  bool ibsim_died = false;
  s = WaitForStartup(
      "OpenSM", info_.opensm_pid, &opensm_reaped_, &opensm_status_,
      [&] {
        if (SubnetUpCount() > subnet_ups_at_sm_start_) return true;
        ibsim_died = !ibsim_reaped_ && TryReap(info_.ibsim_pid, &ibsim_status_);
        ibsim_reaped_ = ibsim_reaped_ || ibsim_died;
        return ibsim_died;
      },
      [&] {
        return Tail("OpenSM log", layout_.osm_log()) +
               Tail("OpenSM output", layout_.opensm_dir() + "/opensm.out");
      },
      deadline);
  if (s.ok() && ibsim_died)
    return Status::Error(ECHILD, "ibsim " + DescribeWaitStatus(ibsim_status_) +
                                     " while OpenSM was starting" +
                                     Tail("ibsim output", layout_.ibsim_out()));
  return s;
}

Status SimFabric::WaitForStartup(const std::string& what, pid_t pid, bool* reaped, int* status,
                                 const std::function<bool()>& ready,
                                 const std::function<std::string()>& logs,
                                 Clock::time_point deadline) {
  bool died = false;
  bool done = PollUntil(Remaining(deadline), [&] {
    if (ready()) return true;
    died = TryReap(pid, status);
    return died;
  });
  if (died) {
    *reaped = true;
    return Status::Error(ECHILD,
                         what + " " + DescribeWaitStatus(*status) + " during start-up" + logs());
  }
  if (!done)
    return Status::Error(ETIMEDOUT, what + " was not up within " +
                                        std::to_string(options_.up_timeout.count()) + " ms" +
                                        logs());
  return Status::Ok();
}

Status SimFabric::Stop() {
  if (stopped_) return Status::Ok();
  stopped_ = true;
  const auto grace = options_.stop_grace;

  // Our node processes: SIGTERM to all, then one shared grace period.
  std::vector<SimProcess*> procs(processes_.begin(), processes_.end());
  processes_.clear();
  for (SimProcess* p : procs) {
    p->fabric_ = nullptr;  // detached: no more slot bookkeeping while stopping
    if (!p->exited_) kill(-p->pid_, SIGTERM);
  }
  const Clock::time_point deadline = Clock::now() + grace;
  for (SimProcess* p : procs) {
    int st;
    if (!p->exited_ && WaitForExit(p->pid_, Remaining(deadline), &st)) p->OnReaped(st);
    if (!p->exited_) p->Terminate(std::chrono::milliseconds(0));
  }
  if (!info_.sock_name.empty()) StopLeftoverProcesses();

  // OpenSM before ibsim, so OpenSM does not spin on a vanished simulator.
  // OpenSM exits 0 on SIGTERM; anything else (a sanitizer report from a
  // plugin it unloads, a hang) fails the stop and keeps the run directory.
  Status opensm_end = Status::Ok();
  if (info_.opensm_pid > 0 && !opensm_reaped_) {
    const pid_t pid = info_.opensm_pid;
    kill(-pid, SIGTERM);
    std::string stacks;  // where it hangs, when it does not end
    if (WaitForExit(pid, grace, &opensm_status_)) {
      kill(-pid, SIGKILL);  // stragglers it left in its group
    } else {
      stacks = ThreadStacks(pid);
      opensm_status_ = TerminateChild(pid, true, std::chrono::milliseconds(0));
    }
    opensm_reaped_ = true;
    // OpenSM that finished ("Exiting SM" is its last line: the plugin is
    // unloaded, the SM destroyed) and then deadlocked in umad2sim's exit
    // handler, as daemons do (StopDaemon): a third-party hang, not one of
    // the plugin's. Once under load in fidelity_tests OpenSM logged
    // "Exiting SM" and did not end within the grace, leaving umad2sim's
    // sys-<pid> directory behind (its exit handler removes it after the
    // join), most likely this; any other hang fails with the stacks.
    bool umad2sim_exit = !stacks.empty() && StuckInUmad2simExit(stacks) &&
                         TailOfFile(layout_.osm_log(), 300).find("Exiting SM") != std::string::npos;
    if (umad2sim_exit) {
      fprintf(stderr,
              "OpenSM: stopped (\"Exiting SM\"), then hung in umad2sim's exit handler; "
              "killed\n");
    } else if (opensm_status_ != 0) {
      failed_ = true;
      opensm_end =
          Status::Error(EIO, "OpenSM " + DescribeWaitStatus(opensm_status_) + " when stopped" +
                                 Tail("OpenSM output", layout_.opensm_dir() + "/opensm.out") +
                                 (stacks.empty() ? "" : "\n" + stacks));
    }
  }
  if (info_.ibsim_pid > 0 && !ibsim_reaped_) {
    ibsim_status_ = TerminateChild(info_.ibsim_pid, true, grace);
    ibsim_reaped_ = true;
  }
  if (ctl_fd_ >= 0) close(ctl_fd_);
  ctl_fd_ = -1;

  if (!opensm_end.ok()) return opensm_end.WithContext("run directory " + layout_.dir);
  if (layout_.dir.empty() || (failed_ && options_.keep_run_dir_on_failure)) return Status::Ok();
  return RemoveTree(layout_.dir);
}

void SimFabric::StopLeftoverProcesses() {
  // Node processes `simfab node` started (not our children), and whatever
  // they forked: everything still running with our unique IBSIM_SOCKNAME,
  // except ibsim and OpenSM, which go next.
  const std::string entry = "IBSIM_SOCKNAME=" + info_.sock_name;
  auto leftovers = [&] {
    std::vector<pid_t> pids;
    for (pid_t pid : FindProcessesWithEnv(entry))
      if (pid != info_.ibsim_pid && pid != info_.opensm_pid && pid != getpid()) pids.push_back(pid);
    return pids;
  };
  std::vector<pid_t> pids = leftovers();
  if (pids.empty()) return;
  for (pid_t pid : pids) kill(pid, SIGTERM);
  if (PollUntil(options_.stop_grace, [&] { return leftovers().empty(); })) return;
  for (pid_t pid : leftovers()) kill(pid, SIGKILL);
  PollUntil(std::chrono::seconds(5), [&] { return leftovers().empty(); });
}

Status SimFabric::KillSm(int sig) {
  if (info_.opensm_pid <= 0 || opensm_reaped_) return Status::Error(ESRCH, "OpenSM is not running");
  if (kill(info_.opensm_pid, sig) != 0) return Status::FromErrno("kill OpenSM");
  if (!WaitForExit(info_.opensm_pid, std::chrono::seconds(10), &opensm_status_))
    return Status::Error(ETIMEDOUT, "OpenSM did not exit after signal " + std::to_string(sig));
  opensm_reaped_ = true;
  // A killed OpenSM never detached from ibsim.
  return ReleaseDeadClients();
}

Status SimFabric::RestartSm(std::chrono::milliseconds timeout) {
  if (info_.opensm_pid > 0 && !opensm_reaped_) return Status::Error(EBUSY, "OpenSM is running");
  subnet_ups_at_sm_start_ = SubnetUpCount();
  opensm_reaped_ = false;
  opensm_status_ = 0;
  return StartOpenSm(Clock::now() + timeout);
}

int SimFabric::SubnetUpCount() { return subnet_up_ ? subnet_up_->Count() : 0; }

Status SimFabric::WaitSubnetUp(int min_count, std::chrono::milliseconds timeout) {
  Status alive;
  bool done = PollUntil(timeout, [&] {
    if (SubnetUpCount() >= min_count) return true;
    alive = CheckAlive();
    return !alive.ok();
  });
  if (!alive.ok()) return alive;
  if (!done)
    return Status::Error(ETIMEDOUT, "OpenSM logged " + std::to_string(SubnetUpCount()) +
                                        " SUBNET UP, not " + std::to_string(min_count) +
                                        ", within " + std::to_string(timeout.count()) + " ms" +
                                        Tail("OpenSM log", layout_.osm_log()));
  return Status::Ok();
}

Status SimFabric::CheckAlive() {
  if (stopped_) return Status::Error(ESRCH, "the fabric has been stopped");
  if (!ibsim_reaped_ && TryReap(info_.ibsim_pid, &ibsim_status_)) ibsim_reaped_ = true;
  if (ibsim_reaped_)
    return Status::Error(ESRCH, "ibsim " + DescribeWaitStatus(ibsim_status_) +
                                    Tail("ibsim output", layout_.ibsim_out()));
  if (info_.opensm_pid > 0) {
    if (!opensm_reaped_ && TryReap(info_.opensm_pid, &opensm_status_)) opensm_reaped_ = true;
    if (opensm_reaped_)
      return Status::Error(ESRCH, "OpenSM " + DescribeWaitStatus(opensm_status_) +
                                      Tail("OpenSM log", layout_.osm_log()));
  }
  return Status::Ok();
}

Status SimFabric::Console(const std::string& command, std::string* reply) {
  if (stopped_) return Status::Error(ESRCH, "the fabric has been stopped");
  return IbsimConsole(layout_, info_.ibsim_pid, ctl_fd_).Command(command, reply);
}

Status SimFabric::LinkDown(const std::string& node, int port) {
  if (!HasNode(node)) return Status::Error(EINVAL, "no node '" + node + "' in the net file");
  return Console("Unlink \"" + node + "\"" + (port > 0 ? "[" + std::to_string(port) + "]" : ""));
}

Status SimFabric::LinkUp(const std::string& node, int port) {
  if (!HasNode(node)) return Status::Error(EINVAL, "no node '" + node + "' in the net file");
  return Console("ReLink \"" + node + "\"" + (port > 0 ? "[" + std::to_string(port) + "]" : ""));
}

Status SimFabric::ReleaseDeadClients() {
  if (stopped_) return Status::Ok();
  int released = 0;
  return IbsimConsole(layout_, info_.ibsim_pid, ctl_fd_).ReleaseDeadClients(&released);
}

void SimFabric::OnProcessReaped(SimProcess*, int wait_status) {
  // A process killed by a signal never told ibsim it left; its ibsim slot
  // stays taken until we say so.
  if (WIFSIGNALED(wait_status) && !stopped_) ReleaseDeadClients();
}

bool SimFabric::HasNode(const std::string& node) const {
  return std::find(node_names_.begin(), node_names_.end(), node) != node_names_.end();
}

std::map<std::string, std::string> SimFabric::NodeEnv(const std::string& node) const {
  return NodeEnvironment(info_.sock_name, node);
}

Status SimFabric::Spawn(const std::string& node, const std::vector<std::string>& argv,
                        std::unique_ptr<SimProcess>* out,
                        const std::map<std::string, std::string>& extra_env) {
  if (argv.empty()) return Status::Error(EINVAL, "no command to spawn");
  if (!HasNode(node)) return Status::Error(EINVAL, "no node '" + node + "' in the net file");
  // Only ibsim must run: a test may stop OpenSM on purpose.
  if (stopped_) return Status::Error(ESRCH, "the fabric has been stopped");
  if (!ibsim_reaped_ && TryReap(info_.ibsim_pid, &ibsim_status_)) ibsim_reaped_ = true;
  if (ibsim_reaped_) return CheckAlive();
  SlotClaim claim;
  Status s = slots_.Claim(&claim);
  if (!s.ok()) return s;
  // Processes that held slots before may have died without detaching.
  if (claim.reap_advised()) ReleaseDeadClients();

  std::string workdir;
  s = MakeProcessDir(layout_, node, argv[0], &workdir);
  if (!s.ok()) return s;
  LaunchSpec spec;
  spec.argv = argv;
  spec.env = NodeEnv(node);
  for (const auto& kv : extra_env) spec.env[kv.first] = kv.second;
  spec.cwd = workdir;
  spec.output_path = workdir + "/output.log";
  spec.keep_fds = {claim.fd()};
  pid_t pid;
  s = LaunchChild(spec, &pid);
  if (!s.ok()) return s.WithContext("cannot start " + argv[0] + " on " + node);
  claim.SetHolder(pid, node, JoinArgs(argv));
  out->reset(new SimProcess(this, pid, node, workdir));
  processes_.insert(out->get());
  return Status::Ok();
}

Status SimFabric::Run(const std::string& node, const std::vector<std::string>& argv,
                      std::string* output, int* exit_status, std::chrono::milliseconds timeout) {
  std::unique_ptr<SimProcess> process;
  Status s = Spawn(node, argv, &process);
  if (!s.ok()) return s;
  int code = 0;
  s = process->Wait(timeout, &code);
  if (!s.ok()) process->Terminate(std::chrono::milliseconds(0));
  std::string text = process->output();
  if (output) *output = text;
  std::string what = "'" + JoinArgs(argv) + "' on " + node;
  if (!s.ok())
    return Status::Error(ETIMEDOUT, what + " did not finish within " +
                                        std::to_string(timeout.count()) + " ms; output:\n" + text);
  if (exit_status) {
    *exit_status = code;
  } else if (code != 0) {
    return Status::Error(
        EIO, what + " " + DescribeWaitStatus(process->wait_status()) + "; output:\n" + text);
  }
  return Status::Ok();
}

}  // namespace test
}  // namespace ssa
