// core_control.h: the core's side of the control plane: receives members'
// SSA MADs (ssa_mad.h) on a MadTransport, asks Membership, answers, and
// expires lapsed members on a timer.
//
// Bad input (short MADs, wrong class or version, malformed attributes,
// unknown methods, responses nobody asked for) is answered where the
// protocol allows (invalid field, bad version), counted, and logged at
// most once per few seconds per kind; the server keeps serving.
//
// Ownership: borrows the reactor, the transport (opened for class 0x2C by
// the owner), the membership and the log; all must outlive it. Loop thread
// only.
#ifndef IBACM_SSA_COMMON_TREE_CORE_CONTROL_H
#define IBACM_SSA_COMMON_TREE_CORE_CONTROL_H

#include <chrono>
#include <cstdint>
#include <functional>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/mad/mad_transport.h"
#include "common/tree/membership.h"

namespace ssa {
namespace tree {

struct CoreControlCounters {
  uint64_t joins = 0;    // accepted (renewals included)
  uint64_t refused = 0;  // joins refused (any reason)
  uint64_t leaves = 0;
  uint64_t token_checks = 0;
  uint64_t bad_mads = 0;  // malformed, wrong class/version/method
  uint64_t expired = 0;
};

class CoreControlServer {
 public:
  // Called after each accepted join (e.g. to rewrite the state file).
  using ChangeFn = std::function<void()>;
  // Called with each accepted join's request (after the answer is sent).
  using JoinFn = std::function<void(const JoinRequest&)>;

  CoreControlServer(Reactor* reactor, MadTransport* transport, Membership* membership, Logger* log,
                    ChangeFn on_change = nullptr, JoinFn on_join = nullptr);
  ~CoreControlServer();
  CoreControlServer(const CoreControlServer&) = delete;
  CoreControlServer& operator=(const CoreControlServer&) = delete;

  Status Start();
  void Stop();

  const CoreControlCounters& counters() const { return counters_; }

 private:
  void OnReadable();
  void Handle(const ReceivedMad& in);
  void Reply(const uint8_t* mad, uint16_t dlid);
  void ScheduleExpiry();

  Reactor* reactor_;
  MadTransport* transport_;
  Membership* membership_;
  Logger* log_;
  RateLimitedLog limited_;
  ChangeFn on_change_;
  JoinFn on_join_;
  Reactor::TimerId expiry_timer_ = 0;
  bool started_ = false;
  CoreControlCounters counters_;
};

}  // namespace tree
}  // namespace ssa

#endif
