// route_sl_client.h: an access node's route-SL slice (route_sl_slices.h,
// doc/fidelity.md): while the SMDB it holds leaves the routing engine's SL
// rows out (kSubnetRouteSlSlices), it keeps a data connection to the core
// itself, wherever its parent is, for the rows of the consumers it serves.
// It learns where the core listens from CoreInfo, presents its own join
// token, and hands every verified slice to the PRDB service.
//
// A lost or refused connection is tried again after a backoff (1 s,
// doubling to 30 s), asking CoreInfo again (the core may have moved with
// the master SM). Until a slice of the SMDB's routing covers a consumer,
// that consumer's records of SL-choosing engines stay marked not exact.
//
// Ownership: borrows the loop, log, transport and control client. Loop
// thread only.
#ifndef IBACM_SSA_DISTRIB_ROUTE_SL_CLIENT_H
#define IBACM_SSA_DISTRIB_ROUTE_SL_CLIENT_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/smdb/smdb.h"
#include "common/tree/data_client.h"
#include "common/tree/db_version.h"
#include "common/tree/member_control.h"
#include "common/tree/stream.h"

namespace ssa {
namespace distrib {

class RouteSlClient {
 public:
  using SliceFn = std::function<void(std::shared_ptr<const smdb::Smdb> slice)>;

  RouteSlClient(EventLoop* loop, Logger* log, tree::StreamTransport* streams,
                tree::MemberControlClient* control, uint64_t port_guid, uint8_t roles,
                SliceFn on_slice);
  ~RouteSlClient();
  RouteSlClient(const RouteSlClient&) = delete;
  RouteSlClient& operator=(const RouteSlClient&) = delete;

  // The access node's join token and its link key with the core (each
  // assignment).
  void SetToken(const tree::Token& token, const tree::LinkKey& core_key);
  // The SMDB held now: connects while it uses slices, disconnects when not.
  void OnSmdb(const smdb::Smdb& db);
  void Stop();

  bool connected() const { return client_ && client_->connected(); }
  uint64_t epoch() const { return replica_ ? replica_->epoch() : 0; }
  // When the slice held was applied (epoch() 0: none yet).
  std::chrono::steady_clock::time_point applied_at() const { return applied_at_; }
  const tree::DataClient* client() const { return client_.get(); }

 private:
  void Locate();
  void RetryLater();
  void OnApplied(const tree::Applied<smdb::Smdb>& a);

  EventLoop* loop_;
  Logger* log_;
  tree::StreamTransport* streams_;
  tree::MemberControlClient* control_;
  uint64_t port_guid_;
  uint8_t roles_;
  SliceFn on_slice_;
  // Made anew with each connection (Locate); the client borrows it.
  std::unique_ptr<tree::DbReplica<smdb::Smdb>> replica_;
  std::unique_ptr<tree::DataClient> client_;
  tree::Token token_{};
  tree::LinkKey core_key_{};
  tree::ParentInfo core_;  // the core last located
  bool have_token_ = false;
  bool wanted_ = false;
  bool asking_ = false;   // a CoreInfo in flight
  bool again_ = false;    // Locate() was called meanwhile: ask again
  bool located_ = false;  // the client has the core as its parent
  int backoff_ms_ = 0;
  EventLoop::TimerId retry_ = 0;
  bool stopped_ = false;
  std::chrono::steady_clock::time_point applied_at_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace distrib
}  // namespace ssa

#endif
