// core_server.h: the core's role in the SSA tree (doc/ssa-tree.md) without
// OpenSM: the membership book and its control server on a MadTransport,
// and the data server that gives distribution nodes (and access nodes the
// core parents) every SMDB version (full, then deltas) and the address
// database. It holds the topology of the SMDB it serves, which the
// membership uses for identity checks and hop counts.
//
// Users: the OpenSM plugin's TreeCore (opensm_plugin/tree_core.h: umad
// port, fault wrappers, hosts file, state file around it) and
// test/bench/bench_tree (the in-process MAD fabric, loopback TCP).
//
// Ownership: borrows the reactor, both transports (the MAD one opened for
// class 0x2C by the owner) and the log; they must outlive it. Loop thread
// only.
#ifndef IBACM_SSA_COMMON_TREE_CORE_SERVER_H
#define IBACM_SSA_COMMON_TREE_CORE_SERVER_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/mad/mad_transport.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_index.h"
#include "common/tree/core_control.h"
#include "common/tree/data_server.h"
#include "common/tree/db_version.h"
#include "common/tree/epoch_watch.h"
#include "common/tree/membership.h"
#include "common/tree/route_sl_slices.h"
#include "common/tree/stream.h"

namespace ssa {
namespace tree {

struct CoreServerOptions {
  uint64_t port_guid = 0;  // the core's port (host order)
  uint16_t lid = 0;        // its LID, as the SMDB says
  DataAddress listen;      // the data channel
  std::string announce;    // see announce.h
  MembershipOptions membership;
  DataServerOptions data;  // `guid` is set to port_guid
  // A member joined holding a database of another core (epoch_watch.h).
  // The owner must continue its epochs after it, so that no member ever
  // sees epochs go backwards: it republishes its current database under a
  // higher epoch. Called with the highest such epochs seen so far (0: none).
  std::function<void(uint64_t smdb_epoch, uint64_t addr_epoch)> on_epochs_ahead;
  // Where versions come from (optional; the plugin: its extraction
  // worker), read for each tree view; `published` is the core's own.
  std::function<CoreActivity()> activity;
};

class CoreServer {
 public:
  CoreServer(Reactor* reactor, Logger* log, MadTransport* mads, StreamTransport* streams,
             CoreServerOptions options);
  ~CoreServer();
  CoreServer(const CoreServer&) = delete;
  CoreServer& operator=(const CoreServer&) = delete;

  // Listens for data connections, then serves control MADs. `on_change`
  // (optional) is called after each change of the membership (joins,
  // leaves, expiries) and each new SMDB.
  Status Start(std::function<void()> on_change = nullptr);
  // A new SMDB version: indexes it (the membership's topology from now
  // on), then publishes it with its delta from `delta_from` (null: none).
  // `route_sl_rows`: the engine's SL rows the SMDB leaves to route-SL
  // slices (kSubnetRouteSlSlices; route_sl_slices.h), else null.
  // Fails, serving what it served before, when it cannot be indexed.
  Status PublishSmdb(std::shared_ptr<const smdb::Smdb> db, Bytes serialized, Bytes delta,
                     uint64_t delta_from, RouteSlRows route_sl_rows = nullptr);
  // A new address database version.
  void PublishAddr(const DbVersion& version, Bytes delta, uint64_t delta_from);
  // Closes the data server (children are dropped) and stops the control
  // server. Idempotent.
  void Close();

  // The tree as `ssa-tree --json` prints it.
  std::string Json();
  // What children are told to connect to.
  const DataAddress& announced() const { return announced_; }

  // Null before Start.
  const DataServer* data_server() const { return server_.get(); }
  const Membership* membership() const { return membership_.get(); }
  const CoreControlServer* control() const { return control_.get(); }
  const RouteSlSlices* route_sl_slices() const { return slices_.get(); }

 private:
  void Authorize(const Hello& h, const DataServer::AdmitFn& done);
  void CheckMemberEpochs(const JoinRequest& r);

  Reactor* reactor_;
  Logger* log_;
  MadTransport* mads_;
  StreamTransport* streams_;
  CoreServerOptions options_;
  std::function<void()> on_change_;
  DataAddress announced_;
  std::unique_ptr<DataServer> server_;
  std::unique_ptr<Membership> membership_;
  std::unique_ptr<CoreControlServer> control_;
  std::shared_ptr<const smdb::SmdbIndex> index_;
  std::shared_ptr<const smdb::Smdb> db_;
  ContentDigest smdb_sha256_{};  // of db_'s serialization
  RouteSlRows route_sl_rows_;
  std::unique_ptr<RouteSlSlices> slices_;
  std::unique_ptr<SmdbTopology> topology_;
  EpochWatch epochs_;
  Membership::Clock::time_point published_;  // the last PublishSmdb
  RateLimitedLog limited_;
};

}  // namespace tree
}  // namespace ssa

#endif
