// ibssa_daemon.h: the ibssa daemon (man ibssa(8)): a distribution and/or
// access node of the SSA tree (doc/ssa-tree.md), wired from common/tree:
//   - MemberControlClient: joins through the SM's LID, renews with its
//     counters, checks children's tokens with the core;
//   - DataClient + DbReplica<Smdb>: the SMDB from the assigned parent
//     (switching to the backup at once when it is lost);
//   - DataServer: children connect here; distribution children get the
//     SMDB ("smdb"), consumers their own PRDB ("prdb:<guid>");
//   - PrdbService (access role): each consumer's PRDB on a worker pool.
//
// main() only wires this object to signals and the lock file. Threads: the
// loop thread runs everything; the worker pool computes PRDBs.
#ifndef IBACM_SSA_DISTRIB_IBSSA_DAEMON_H
#define IBACM_SSA_DISTRIB_IBSSA_DAEMON_H

#include <memory>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/mad/mad_transport.h"
#include "common/mad/umad_ports.h"
#include "common/smdb/smdb.h"
#include "common/tree/data_client.h"
#include "common/tree/data_server.h"
#include "common/tree/db_version.h"
#include "common/tree/member_control.h"
#include "common/tree/stream.h"
#include "distrib/ibssa_options.h"
#include "distrib/prdb_service.h"

namespace ssa {
namespace distrib {

class IbssaDaemon {
 public:
  struct Settings {
    std::string opts_file;
    bool opts_file_given = false;
    std::string run_dir;     // -R
    std::string log_target;  // -L
    std::string listen;      // --listen
    unsigned roles = 0;      // --role (0: the file's)
  };

  explicit IbssaDaemon(Settings settings);
  ~IbssaDaemon();

  // Reads the options file and opens the log.
  Status Configure();
  // Picks the port, opens the SSA class and the data listener, joins.
  Status Start();
  Status Run() { return loop_.Run(); }
  void RequestStop() { loop_.Stop(); }
  // Leaves the tree and logs the counters.
  void Shutdown();

  EventLoop* loop() { return &loop_; }
  Logger* log() { return &log_; }
  const IbssaOptions& options() const { return options_; }

 private:
  uint8_t Roles() const;
  void OnAssigned(const tree::Assignment& a, bool changed);
  void OnSmdb(const tree::Applied<smdb::Smdb>& a);
  void OnAddr(const tree::Applied<smdb::AddrDb>& a);
  void Authorize(const tree::Hello& h, std::function<void(uint16_t, const std::string&)> done);
  void OnSubscribe(const std::string& key, const tree::Hello& h);
  void PublishPrdb(const PrdbVersion& v);
  tree::MemberCounters Counters() const;

  Settings settings_;
  IbssaOptions options_;
  Logger log_;
  EventLoop loop_;
  UmadPort port_;
  std::unique_ptr<MadTransport> mads_;
  std::unique_ptr<tree::StreamTransport> streams_;
  std::unique_ptr<tree::MemberControlClient> control_;
  std::unique_ptr<tree::DataServer> server_;
  tree::DbReplica<smdb::Smdb> smdb_;
  std::unique_ptr<tree::DataClient> upstream_;
  // The address database, passed on as received (both roles).
  tree::DbReplica<smdb::AddrDb> addr_;
  std::unique_ptr<tree::DataClient> addr_upstream_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<PrdbService> prdbs_;
  std::shared_ptr<const smdb::Smdb> previous_;  // for deltas after a full transfer
  bool joined_once_ = false;
};

}  // namespace distrib
}  // namespace ssa

#endif
