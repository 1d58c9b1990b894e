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
#include <deque>
#include <functional>
#include <map>
#include <tuple>

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
  // Retransmitted Join/Leave requests (same source LID, TID and bytes as
  // one answered within kAnswerMemory) answered again from memory, not
  // executed again: a member whose answer was slow or lost retries with
  // the same TID, and executing the retry gave it a second token (the
  // first answer's, which it keeps, no longer valid) and counted a join.
  uint64_t duplicates = 0;
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
  // One received MAD: checked, answered again if it is a retransmission,
  // else dispatched to its Handle* by method and attribute.
  void Handle(const ReceivedMad& in);
  void RejectHeader(const ReceivedMad& in, const mad::MadHeader& h, const Status& why);
  void Invalid(const ReceivedMad& in, const mad::MadHeader& h, const Status& why);
  void HandleJoin(const ReceivedMad& in, const mad::MadHeader& h);
  void HandleLeave(const ReceivedMad& in, const mad::MadHeader& h);
  void HandleTokenCheck(const ReceivedMad& in, const mad::MadHeader& h);
  void Reply(const uint8_t* mad, uint16_t dlid);
  void ScheduleExpiry();
  // The answer already sent to this very request, if it is recent.
  const uint8_t* Remembered(const ReceivedMad& in, const mad::MadHeader& h);
  void Remember(const ReceivedMad& in, const mad::MadHeader& h, const uint8_t* answer);
  void ForgetOld(std::chrono::steady_clock::time_point now);

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

  // Answers to state-changing requests, for retransmissions: kept for
  // longer than a member retries (timeout x tries: 4 s by default) and at
  // most kMaxAnswers of them (the oldest go first).
  static constexpr std::chrono::seconds kAnswerMemory{10};
  static constexpr size_t kMaxAnswers = 65536;
  using AnswerKey = std::tuple<uint16_t, uint64_t, uint16_t>;  // source LID, TID, attribute
  struct Answer {
    uint64_t request_hash = 0;  // the request's bytes: a new request reusing a TID is not a retry
    std::chrono::steady_clock::time_point at;
    uint8_t mad[mad::kMadSize];
  };
  std::map<AnswerKey, Answer> answers_;
  std::deque<std::pair<std::chrono::steady_clock::time_point, AnswerKey>> answer_order_;
};

}  // namespace tree
}  // namespace ssa

#endif
