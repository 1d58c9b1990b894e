// tree_harness.h: a whole SSA tree on a simulated fabric for integration
// tests: OpenSM with the ibssa_osm plugin as the core, ibssa daemons in the
// distribution and access roles, ssa-consumer processes dumping the PRDB
// they hold, and the checks the tests share (every consumer at the core's
// epoch, its PRDB equal to the SA's answers, the tree as ssa-tree prints
// it).
//
// Every daemon runs as its own node with a private run directory, log and
// data port (127.0.0.1, port 0). ibsim allows 10 attached processes, OpenSM
// included; Run() of a tool needs one free slot.
//
// Test code; single thread (the fabric's rules).
#ifndef IBACM_SSA_TEST_SIM_TREE_HARNESS_H
#define IBACM_SSA_TEST_SIM_TREE_HARNESS_H

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_fabric.h"
#include "test/support/temp_dir.h"

namespace ssa {
namespace test {

// One member as `ssa-tree --json` prints it: every key, values as text.
using TreeMember = std::map<std::string, std::string>;
// A number in a TreeMember or in TreeHarness::ReadStats' map; 0 if absent.
uint64_t NumberOf(const std::map<std::string, std::string>& kv, const std::string& key);
// Parses the flat array of flat objects ssa-tree --json writes.
Status ParseTreeJson(const std::string& text, std::vector<TreeMember>* out);

class TreeHarness {
 public:
  struct Options {
    std::string net_text;
    std::vector<std::string> ibsim_args;
    int lmc = 0;
    int hcas = 0;                      // CAs in the net (to wait for the full SMDB)
    std::string extra_plugin_options;  // appended to the defaults
    // Extra OpenSM options (both SMs), e.g. {"-R", "dfsssp"} or {"-Q", "-Y", policy}.
    std::vector<std::string> opensm_args;
    // Extra lines of OpenSM's options file (both SMs), e.g. "qos_sl2vl ...\n".
    std::string osm_config;
    // Ready for StartStandbySm: this OpenSM gets priority 10, and both poll
    // each other every 500 ms (a dead master is noticed within a second or
    // two instead of OpenSM's default 40 s).
    bool failover = false;
    // The master OpenSM's node (default: the net's first node).
    std::string sm_node;
  };

  // The tree tests' fabric: a fat tree of `hcas` HCAs; 12 gives 2 leaves
  // of 6 with uplinks of mixed speeds, so a reroute changes rates (a stale
  // PRDB would then differ from the SA).
  static Status FatTree(int hcas, int lmc, Options* out);

  explicit TreeHarness(TempDir* dir) : dir_(dir) {}
  ~TreeHarness();

  // Fabric with the plugin as core; waits for the SMDB with every CA.
  Status Start(const Options& options);
  // Stops everything; fails when OpenSM did not exit cleanly, or when a
  // member or consumer does not stop with status 0 (StopDaemon), or ended
  // earlier by itself with an error or a signal (a test's SIGKILL and
  // SIGTERM are not judged): how a sanitizer's report of theirs, or a
  // crash, reaches the test.
  Status Stop();
  void set_failed();

  // A second OpenSM with the plugin (own dump directory and log) on `node`,
  // with `priority`; returns once it is STANDBY (with `wait`: OpenSM makes
  // a new SM "greater" than the master, by priority and then the lower
  // GUID, the master instead). Started again on a node, it appends to the
  // same log and keeps its dump directory. Needs Options::failover.
  Status StartStandbySm(const std::string& node, int priority = 1, bool wait = true);
  // Kills the master OpenSM (SIGKILL: its ibsim slot is released) and
  // returns once the standby logged SUBNET UP as master. From then on
  // WaitSmdbAfter follows the standby's dump directory. A standby whose
  // takeover stalls (an SMP the dead master never answered: see the .cc)
  // is restarted on its node, with its priority, and then takes over.
  Status FailOver(std::chrono::milliseconds timeout);
  // An SM handover: an OpenSM with the plugin on `node` with the master's
  // priority (10), whose port GUID must be lower than the master's, so
  // that OpenSM makes it the master while the old one runs on and becomes
  // a standby. Returns once the new SM logged SUBNET UP; from then on
  // WaitSmdbAfter follows its dump directory. An attempt that stalls (an
  // SMP umad2sim never completes) restarts the side that stalled: the new
  // SM, or the master too when it never handed over (see the .cc).
  Status HandOver(const std::string& node, std::chrono::milliseconds timeout);
  const PluginSetup& standby() const { return standby_; }
  std::string StandbyOsmLog() const { return standby_.dir + "/opensm.log"; }

  // ibssa on `node` with `role` (and `extra_cfg` lines in its options
  // file); returns once this life's log has `wait_for` (by default, that
  // it joined; the soak's restarts wait for "ibssa starting" only: from
  // then on the daemon handles SIGTERM).
  Status StartIbssa(const std::string& node, const std::string& role,
                    const std::string& extra_cfg = "",
                    const std::string& wait_for = "joined the tree");
  // ssa-consumer on `node` dumping to ConsumerDump(node), with `extra_args`.
  Status StartConsumer(const std::string& node, const std::vector<std::string>& extra_args = {});
  // An ibssa's data-channel address as its log says ("127.0.0.1", port).
  Status IbssaDataPort(const std::string& node, int* port) const;
  std::string IbssaLog(const std::string& node) const;
  std::string ConsumerLog(const std::string& node) const;
  SimProcess* process(const std::string& node) { return procs_[node].get(); }
  void Forget(const std::string& node) {
    procs_.erase(node);
    daemon_logs_.erase(node);
  }

  std::string ConsumerDump(const std::string& node) const;
  std::string ConsumerStats(const std::string& node) const;
  // key=value lines of a consumer's stats file.
  std::map<std::string, std::string> ReadStats(const std::string& node) const;
  // Waits until every consumer's dump holds a PRDB of SMDB epoch >= `epoch`.
  Status WaitConsumersAt(const std::vector<std::string>& nodes, uint64_t epoch,
                         std::chrono::milliseconds timeout);
  // The newest SMDB the core published, once its epoch > `after`.
  Status WaitSmdbAfter(uint64_t after, std::chrono::milliseconds timeout, smdb::Smdb* out);
  // Takes the link at `node`'s `port` down (or up), then waits for OpenSM's
  // next SUBNET UP and the core's next SMDB (`next`), each within `timeout`.
  // OpenSM misses a link event that comes while it still sweeps for the
  // previous one: one change per sweep.
  Status ChangeLink(const std::string& node, int port, bool up, std::chrono::milliseconds timeout,
                    smdb::Smdb* next);

  // `ssa-smdb compare SMDB --prdb DUMP --from GUID --lmc-all`, run as
  // `run_on`: every path of the consumer's port equals the SA's answer
  // and no pair is missing. `pairs` gets how many pairs were compared.
  Status ComparePrdbWithSa(const std::string& consumer, const std::string& run_on, size_t* pairs);
  // ssa-tree --json run as `run_on`.
  Status Tree(const std::string& run_on, std::vector<TreeMember>* out);
  // ssa-tree with `args` run as `run_on`: its output and exit status.
  Status RunTreeTool(const std::string& run_on, const std::vector<std::string>& args,
                     std::string* out, int* status);
  // The ssa-tree of this build (for a command line of one's own).
  static const std::string& TreeToolPath();

  uint64_t PortGuid(const std::string& node) const;
  uint16_t Lid(const std::string& node) const;
  // A hosts file naming Hca1..Hca`hcas` node<i>, 10.0.0.<i> and fd00::<i>
  // (their port GIDs), for the core's hosts_file.
  std::string HostsText(int hcas) const;
  const smdb::Smdb& smdb() const { return db_; }
  SimFabric* fabric() { return fabric_.get(); }
  const PluginSetup& plugin() const { return plugin_; }

 private:
  std::string NodeDir(const std::string& node) const;

  TempDir* dir_;
  PluginSetup plugin_;
  PluginSetup standby_;   // StartStandbySm
  std::string dump_dir_;  // where the current core writes its versions
  // The last StartStandbySm's node and priority (FailOver restarts a
  // stalled standby with them), and where that life's log lines begin.
  std::string standby_node_;
  int standby_priority_ = 0;
  size_t standby_log_from_ = 0;
  Options options_;
  std::unique_ptr<SimFabric> fabric_;
  smdb::Smdb db_;
  std::map<std::string, std::unique_ptr<SimProcess>> procs_;
  // The log of each node in procs_ that runs one of our daemons (ibssa,
  // ssa-consumer), which Stop() judges; not the standby OpenSM.
  std::map<std::string, std::string> daemon_logs_;
};

}  // namespace test
}  // namespace ssa

#endif
