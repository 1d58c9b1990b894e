// ibssa_member.h: one distribution and/or access node of the SSA tree
// (doc/ssa-tree.md) on transports it is given, wired from common/tree:
//   - MemberControlClient: joins through the SM's LID, renews with its
//     counters, checks children's tokens with the core;
//   - DataClient + DbReplica<Smdb>: the SMDB from the assigned parent
//     (switching to the backup at once when it is lost), and another pair
//     for the address database, passed on as received;
//   - DataServer: children connect here; distribution children get the
//     SMDB ("smdb"), consumers their own PRDB ("prdb:<guid>");
//   - PrdbService (access role): each consumer's PRDB on a worker pool.
//
// Users: the ibssa daemon (ibssa_daemon.h: a umad port, TCP or rsockets,
// the fault wrappers) and test/bench/bench_tree (many members on one loop
// over the in-process MAD fabric and loopback TCP).
//
// Ownership: borrows the loop, the log, both transports (the MAD one
// opened for class 0x2C) and the worker pool when one is given (else the
// access role makes its own of options.prdb_threads). Loop thread only.
#ifndef IBACM_SSA_DISTRIB_IBSSA_MEMBER_H
#define IBACM_SSA_DISTRIB_IBSSA_MEMBER_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/mad/mad_transport.h"
#include "common/metrics/prom_text.h"
#include "common/smdb/smdb.h"
#include "common/tree/data_client.h"
#include "common/tree/data_server.h"
#include "common/tree/db_version.h"
#include "common/tree/member_control.h"
#include "common/tree/stream.h"
#include "distrib/ibssa_options.h"
#include "distrib/prdb_service.h"
#include "distrib/route_sl_client.h"

namespace ssa {
namespace distrib {

// The port the member joins for.
struct MemberPort {
  uint64_t port_guid = 0;  // host order
  uint64_t gid_prefix = 0xfe80000000000000ULL;
  uint16_t sm_lid = 0;
  // Read before each join when set (the daemon re-reads its port, so an SM
  // failover is followed); `sm_lid` otherwise.
  std::function<uint16_t()> current_sm_lid;
  // Asks the port itself where the master SM is (SmLidProbe::AskLid), when
  // the core stops answering; optional.
  std::function<void(std::function<void(uint16_t)>)> probe_sm_lid;
};

class IbssaMember {
 public:
  // `options` gives the roles, listen/announce, limits and timeouts (its
  // port, transport, log and fault settings are the owner's business).
  IbssaMember(EventLoop* loop, Logger* log, const IbssaOptions& options,
              WorkerPool* pool = nullptr);
  ~IbssaMember();
  IbssaMember(const IbssaMember&) = delete;
  IbssaMember& operator=(const IbssaMember&) = delete;

  // Opens the data listener and joins.
  Status Start(const MemberPort& port, MadTransport* mads, tree::StreamTransport* streams);
  // Leaves the tree (best effort), closes every connection and logs the
  // counters. Idempotent.
  void Stop();

  // Observers (optional; tests and benchmarks time the tree with them),
  // called on the loop thread: a verified SMDB version is held; a
  // consumer's new PRDB version is published to it.
  void set_on_smdb(std::function<void(uint64_t epoch)> f) { on_smdb_ = std::move(f); }
  void set_on_prdb(std::function<void(const PrdbVersion&)> f) { on_prdb_ = std::move(f); }

  uint8_t Roles() const;
  uint64_t smdb_epoch() const { return smdb_.epoch(); }
  tree::MemberCounters Counters() const;
  // Null before Start (prdbs(): also without the access role).
  const tree::DataServer* server() const { return server_.get(); }
  const tree::MemberControlClient* control() const { return control_.get(); }
  const PrdbService* prdbs() const { return prdbs_.get(); }
  const RouteSlClient* route_sl() const { return route_sl_.get(); }
  // SMDB versions whose content the core confirmed, and that it did not.
  uint64_t content_verified() const { return content_verified_; }
  uint64_t content_mismatches() const { return content_mismatches_; }

  // The member's ibssa_* families (ibssa_metrics.cc; man ibssa(8) lists
  // them): epochs held and their age, lag, transfers, joins, refusals,
  // re-parentings, children.
  void CollectMetrics(metrics::PromText* out) const;

 private:
  void OnAssigned(const tree::Assignment& a, bool changed);
  void OnLost(uint64_t lost, bool refused);
  void OnSmdb(const tree::Applied<smdb::Smdb>& a);
  void OnAddr(const tree::Applied<smdb::AddrDb>& a);
  void Authorize(const tree::Hello& h, const tree::DataServer::AdmitFn& done);
  // The core's join answer confirms the SMDB's content at its epoch
  // (link_auth.h): a member holding that epoch with other content drops
  // it and joins again, naming its parent lost.
  void CheckSmdbContent(const tree::Assignment& a);
  void OnSubscribe(const std::string& key, const tree::Hello& h);
  void PublishPrdb(const PrdbVersion& v);

  EventLoop* loop_;
  Logger* log_;
  IbssaOptions options_;
  WorkerPool* pool_;
  std::unique_ptr<WorkerPool> own_pool_;
  MemberPort port_;
  MadTransport* mads_ = nullptr;
  tree::StreamTransport* streams_ = nullptr;
  std::unique_ptr<tree::MemberControlClient> control_;
  std::unique_ptr<tree::DataServer> server_;
  tree::DbReplica<smdb::Smdb> smdb_;
  std::unique_ptr<tree::DataClient> upstream_;
  // The address database, passed on as received (both roles).
  tree::DbReplica<smdb::AddrDb> addr_;
  std::unique_ptr<tree::DataClient> addr_upstream_;
  std::unique_ptr<PrdbService> prdbs_;
  // Access role: the route-SL slice from the core, when the SMDB uses them.
  std::unique_ptr<RouteSlClient> route_sl_;
  std::shared_ptr<const smdb::Smdb> previous_;  // for deltas after a full transfer
  // When the versions held now were applied (the newest PRDB published,
  // for the access role), for their age; epoch 0: none yet.
  std::chrono::steady_clock::time_point smdb_at_, addr_at_, prdb_at_;
  uint64_t prdb_epoch_ = 0;
  bool joined_once_ = false;
  bool stopped_ = false;
  // CheckSmdbContent: the version last checked (epoch, CRC digest) and
  // the outcomes since start.
  uint64_t content_checked_epoch_ = 0;
  uint32_t content_checked_digest_ = 0;
  uint64_t content_verified_ = 0, content_mismatches_ = 0;
  std::function<void(uint64_t)> on_smdb_;
  std::function<void(const PrdbVersion&)> on_prdb_;
};

}  // namespace distrib
}  // namespace ssa

#endif
