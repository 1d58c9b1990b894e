// ibacm_node.h: one ibacm daemon running as a simulated node, for the
// integration tests: writes its option and address files, spawns it through
// the fabric, waits (with a deadline) until its socket exists, and stops it.
//
// Owned by a test; borrows the SimFabric, which must outlive it. One thread.
#ifndef IBACM_SSA_TEST_SIM_IBACM_NODE_H
#define IBACM_SSA_TEST_SIM_IBACM_NODE_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_process.h"
#include "test/sim/sim_stacks.h"  // ThreadStacks, StuckInUmad2simExit

namespace ssa {
namespace test {

class IbacmNode {
 public:
  struct Options {
    std::string node;                     // e.g. "Hca2"
    std::string addr_cfg;                 // acm_addr.cfg content
    std::string opts_cfg;                 // acm_opts.cfg content ([core] log_level etc.)
    std::string provider_dir;             // where the daemon loads providers from
    std::string binary;                   // the daemon's program; "" = IbacmBinary()
    std::vector<std::string> extra_args;  // after the usual ones
  };

  IbacmNode(SimFabric* fabric, Options options);
  ~IbacmNode();

  Status Start(std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // SIGTERM and wait; the daemon's exit status must be 0.
  Status Stop(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool IsRunning();

  const std::string& dir() const { return dir_; }
  std::string socket_path() const { return dir_ + "/run/ibacm-unix.sock"; }
  std::string log_path() const { return dir_ + "/ibacm.log"; }
  std::string Log() const;
  SimProcess* process() { return process_.get(); }

  // The daemon's metrics file (ibacm(8) metrics_file, written every
  // second): the one opts_cfg names, else one in dir() that Start adds to
  // options in the project's format ([core] sections); "" for options in
  // upstream's flat format that name none. What tests wait on.
  const std::string& metrics_path() const { return metrics_path_; }
  // Waits up to `timeout` until the sample `series` (name and labels as
  // written; -1 while absent) satisfies `ok`; the error says its last value.
  Status WaitMetric(const std::string& series, const std::function<bool(double)>& ok,
                    std::chrono::milliseconds timeout);
  // Waits until the ssa provider answers from a PRDB of at least `epoch` on
  // `port` (ibacm_ssa_prdb_epoch).
  Status WaitPrdbEpoch(uint64_t epoch, std::chrono::milliseconds timeout,
                       const std::string& port = "ibsim0:1");
  // Waits until the ssa provider answers from an address database of
  // `names` names and `ips` IP addresses (ibacm_ssa_addr_names, _ips).
  Status WaitAddresses(size_t names, size_t ips, std::chrono::milliseconds timeout);

 private:
  SimFabric* fabric_;
  Options options_;
  std::string dir_;
  std::string metrics_path_;
  std::unique_ptr<SimProcess> process_;
};

// The directory holding the in-tree build of the test provider.
std::string TestProviderDir();
// The ibacm binary of this build.
std::string IbacmBinary();
// Runs a program (not as a node) and collects its output; for the stock
// ib_acme, which only talks to the daemon's socket.
Status RunProgram(const std::vector<std::string>& argv, std::string* output, int* exit_status,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Stops a daemon of this project (one that runs DaemonShell) running as a
// node: SIGCONT (a test may have stopped it), SIGTERM, then up to `timeout`
// for it to exit. Fails when it does not stop, or exits with a status
// other than 0, which is also how a sanitizer build's report reaches the
// test (ASan exits 1, TSan 66); the error carries the tail of `log_path`.
// One that logged its last line and then hung in umad2sim's exit handler
// is killed and counts as stopped. `name` says which, in errors.
Status StopDaemon(SimProcess* p, const std::string& name, const std::string& log_path,
                  std::chrono::milliseconds timeout);

}  // namespace test
}  // namespace ssa

#endif
