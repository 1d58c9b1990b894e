// sim_fabric.h: a simulated InfiniBand fabric (ibsim + OpenSM) for tests.
//
// SimFabric::Start brings up one fabric in a private run directory (layout in
// sim_run_dir.h): ibsim with the given net file, its console on a fifo, and
// OpenSM attached as one node, and returns once OpenSM logs SUBNET UP. Node
// processes are then started with Spawn/Run: each runs with the umad2sim
// preload as one node (SIM_HOST), in its own working directory.
//
//   SimFabric::Options o;
//   o.net_text = FourHcaNet();                       // netgen.h
//   std::unique_ptr<SimFabric> fabric;
//   CHECK_OK(SimFabric::Start(o, &fabric));          // ~0.1 s for 4 HCAs
//   std::string out;
//   CHECK_OK(fabric->Run("Hca2", {"ibstat"}, &out, nullptr));
//   // in the test group's teardown, to keep the logs of a failed test:
//   if (UtestShell::getCurrent()->hasFailed()) fabric->set_failed();
//
// Ownership
//   - A SimFabric owns its run directory, the console fifo descriptor, the
//     ibsim and OpenSM processes and every process it spawned. Stop() (also
//     run by the destructor) kills exactly those, plus the processes still
//     running with this fabric's unique IBSIM_SOCKNAME in their environment
//     (node processes `simfab node` started, and what they forked), then
//     removes the run directory, unless set_failed() was called (or start-up
//     failed) and Options::keep_run_dir_on_failure is set.
//   - SimProcess handles are owned by the caller and borrow the fabric (see
//     sim_process.h); they may outlive it.
//   - Several fabrics may run side by side: each has its own IBSIM_SOCKNAME.
//
// Threads
//   Not thread-safe: use a fabric and its processes from one thread. Children
//   get PR_SET_PDEATHSIG(SIGKILL), which fires when the *thread* that forked
//   them exits, so start and spawn from a thread that outlives the fabric
//   (a test's main thread does).
//
// Process death and signals
//   Nothing outlives the test binary: children die with it (PDEATHSIG), and
//   the first Start installs SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers that
//   SIGKILL every fabric child and re-raise (sim_registry.h). After such a
//   death the run directory stays behind for inspection (a signal handler
//   cannot safely remove a tree).
//
// Limits (see sim_slots.h): 10 attached processes per fabric, OpenSM
// included; Spawn/Run fail with a clear Status instead of starting an 11th.
// A process started before SUBNET UP sees LID 0 forever: start nodes after
// Start (or WaitSubnetUp) returns; port state is read once per process.
#ifndef IBACM_SSA_TEST_SIM_SIM_FABRIC_H
#define IBACM_SSA_TEST_SIM_SIM_FABRIC_H

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/sim/sim_process.h"
#include "test/sim/sim_run_dir.h"
#include "test/sim/sim_slots.h"
#include "test/sim/sim_util.h"

namespace ssa {
namespace test {

class SimFabric {
 public:
  struct Options {
    std::string net_text;  // ibsim net file content (see netgen.h)
    std::string sm_node;   // OpenSM's node; default: the first node in the net
    bool start_sm = true;
    std::vector<std::string> ibsim_args;   // e.g. -N -S -P for big fabrics
    std::vector<std::string> opensm_args;  // extra, e.g. -l 1 for LMC, -F cfg
    // Extra OpenSM environment; LD_PRELOAD joins umad2sim's (MergePreload).
    std::map<std::string, std::string> opensm_env;
    std::chrono::milliseconds up_timeout{60000};  // ibsim ready + SUBNET UP
    std::string run_dir_parent;                   // default $TMPDIR or /tmp
    bool keep_run_dir_on_failure = true;
    // How long Stop() gives each process after SIGTERM before SIGKILL.
    std::chrono::milliseconds stop_grace{3000};
  };

  // Starts a fabric; on failure everything started is stopped and the Status
  // carries the tail of the failing program's output and the run directory.
  static Status Start(const Options& options, std::unique_ptr<SimFabric>* out);

  ~SimFabric();
  SimFabric(const SimFabric&) = delete;
  SimFabric& operator=(const SimFabric&) = delete;

  // Kills node processes, OpenSM and ibsim (SIGTERM, SIGKILL after
  // stop_grace), reaps them and removes the run directory (see above).
  // Fails, keeping the run directory, when OpenSM (running until now) does
  // not exit with status 0. Idempotent.
  Status Stop();
  // Keep the run directory at Stop() (if keep_run_dir_on_failure).
  void set_failed() { failed_ = true; }
  bool failed() const { return failed_; }

  // Number of "SUBNET UP" lines in OpenSM's log so far. After a link change:
  //   int n = fabric->SubnetUpCount(); fabric->LinkDown("Hca4");
  //   fabric->WaitSubnetUp(n + 1, 10s);
  int SubnetUpCount();
  Status WaitSubnetUp(int min_count, std::chrono::milliseconds timeout);

  // One ibsim console command; returns once ibsim has processed it. `reply`
  // (may be null) gets its output; an ibsim error reply is an error Status.
  Status Console(const std::string& command, std::string* reply = nullptr);
  // Unlink / ReLink a node's links (port 0: all of them) or one port's link.
  Status LinkDown(const std::string& node, int port = 0);
  Status LinkUp(const std::string& node, int port = 0);

  // Starts argv as `node`: umad2sim preload, SIM_HOST, IBSIM_SOCKNAME (plus
  // extra_env), in a fresh directory under procs/, stdout+stderr to
  // output.log there, stdin /dev/null. Fails with EBUSY when all attach slots
  // are taken.
  Status Spawn(const std::string& node, const std::vector<std::string>& argv,
               std::unique_ptr<SimProcess>* out,
               const std::map<std::string, std::string>& extra_env = {});
  // Spawn + Wait, for short commands (ibstat, saquery, smpquery). `output`
  // and `exit_status` (shell-style) may be null. A command still running at
  // the timeout is killed and reported as an error.
  Status Run(const std::string& node, const std::vector<std::string>& argv, std::string* output,
             int* exit_status, std::chrono::milliseconds timeout = std::chrono::seconds(30));

  // Kills OpenSM with `sig` (SIGKILL: a crash, SIGTERM: a clean stop) and
  // reaps it; the fabric runs on without an SM until RestartSm.
  Status KillSm(int sig);
  // Starts OpenSM again, same node and options; returns at its next
  // SUBNET UP (its log is appended to, so SubnetUpCount keeps counting).
  Status RestartSm(std::chrono::milliseconds timeout);

  // Frees the ibsim client slots of processes that died without detaching.
  // Done automatically when a spawned process is found killed by a signal
  // and when a slot of a previous process is reused.
  Status ReleaseDeadClients();
  // Attach slots in use right now, as "slot 0: pid 123 on Hca1: opensm ...".
  std::vector<SlotHolder> SlotHolders() const { return slots_.Holders(); }
  // Ok while ibsim and OpenSM run; otherwise says which one ended and how.
  Status CheckAlive();

  const std::string& run_dir() const { return layout_.dir; }
  const std::string& sock_name() const { return info_.sock_name; }
  std::string net_path() const { return layout_.net(); }
  std::string osm_log_path() const { return layout_.osm_log(); }
  std::string ibsim_output_path() const { return layout_.ibsim_out(); }
  const std::string& sm_node() const { return info_.sm_node; }
  pid_t ibsim_pid() const { return info_.ibsim_pid; }
  pid_t opensm_pid() const { return info_.opensm_pid; }
  const std::vector<std::string>& node_names() const { return node_names_; }
  bool HasNode(const std::string& node) const;
  // The environment a process needs to be `node` of this fabric.
  std::map<std::string, std::string> NodeEnv(const std::string& node) const;

 private:
  friend class SimProcess;
  explicit SimFabric(const Options& options);
  Status StartImpl();
  Status StartIbsim(std::chrono::steady_clock::time_point deadline);
  Status StartOpenSm(std::chrono::steady_clock::time_point deadline);
  // Polls `ready` until the deadline; fails early, with `logs()` appended,
  // if `pid` exits (then *reaped and *status are set).
  Status WaitForStartup(const std::string& what, pid_t pid, bool* reaped, int* status,
                        const std::function<bool()>& ready,
                        const std::function<std::string()>& logs,
                        std::chrono::steady_clock::time_point deadline);
  void StopLeftoverProcesses();
  void OnProcessReaped(SimProcess* process, int wait_status);
  void Forget(SimProcess* process) { processes_.erase(process); }

  Options options_;
  RunDirLayout layout_;
  FabricInfo info_;
  AttachSlots slots_{""};
  std::vector<std::string> node_names_;
  int ctl_fd_ = -1;
  std::unique_ptr<LogLineCounter> subnet_up_;
  std::set<SimProcess*> processes_;  // spawned and not yet destroyed; borrowed
  bool ibsim_reaped_ = false;
  bool opensm_reaped_ = false;
  int subnet_ups_at_sm_start_ = 0;  // OpenSM is up once SubnetUpCount() exceeds it
  int ibsim_status_ = 0;
  int opensm_status_ = 0;
  bool stopped_ = false;
  bool failed_ = false;
};

}  // namespace test
}  // namespace ssa

#endif
