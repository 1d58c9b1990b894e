// member_control.h: a member's side of the control plane (ssa_mad.h):
// joins the tree through the SM's LID, renews its membership, asks the
// core about children's tokens (parents) and where the core's data channel
// is (tools), and leaves on Stop.
//
// Every request has its own timeout and retries (umad2sim never reports
// MAD timeouts); a retry keeps its TID, so the core answers it from memory
// instead of executing it again (core_control.h). A join that gets
// no answer after its retries is logged ("core unreachable") and tried
// again with backoff, forever: the member keeps serving what it holds
// meanwhile. The SM's LID is read again at every join (sm_lid), so a new
// master SM is followed; when the core stops answering, the port itself is
// also asked (probe_sm_lid: its PortInfo by SMP), since the cached value
// lags on hardware and never changes on the simulated fabric. A LID found
// that way is used until sm_lid() changes.
//
// Ownership: borrows the reactor, the transport (opened for class 0x2C)
// and the log. Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_MEMBER_CONTROL_H
#define IBACM_SSA_COMMON_TREE_MEMBER_CONTROL_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/reactor.h"
#include "common/mad/mad_transport.h"
#include "common/tree/ssa_mad.h"

namespace ssa {
namespace tree {

struct MemberControlOptions {
  uint8_t roles = 0;
  uint64_t port_guid = 0;
  Gid port_gid{};
  std::string software = "ibacm-ssa";
  DataAddress data_address;  // distribution/access: where children connect
  std::function<uint16_t()> sm_lid;
  // Optional: asks the port which LID the master SM has now (SmLidProbe);
  // calls back with 0 when it cannot tell.
  std::function<void(std::function<void(uint16_t)>)> probe_sm_lid;
  // Read at every join and renewal, for the core's tree view (optional).
  std::function<MemberCounters()> counters;
  std::function<uint64_t()> epoch;
  std::function<uint32_t()> digest;      // of the database at epoch() (optional)
  std::function<uint64_t()> addr_epoch;  // the address database's (optional)
  std::function<uint32_t()> addr_digest;
  int timeout_ms = 1000;  // per try
  int retries = 3;
  int max_backoff_ms = 10000;
  // A new epoch is reported to the core by an early renewal, at a random
  // moment within this window (so a whole tier does not answer at once),
  // instead of at the next renewal: every new epoch with
  // `report_every_epoch` (parents: few, and their lag is the tree's
  // health), else only the first (consumers: many; the first says they
  // are in sync; and the first after an answer from another lineage, so
  // that a new master's core confirms its renumbered epoch at once). 0:
  // only at renewals.
  int epoch_report_ms = 500;
  bool report_every_epoch = false;
};

// What the core assigned at the last accepted join: its answer as it came.
using Assignment = JoinAnswer;

class MemberControlClient {
 public:
  // A join was answered with a parent (first join, renewal, or a change).
  using AssignedFn = std::function<void(const Assignment& a, bool changed)>;
  // A join was refused (the MAD status); the client tries again later.
  using RefusedFn = std::function<void(uint16_t status)>;
  using CheckFn = std::function<void(Status, const TokenCheckAnswer&)>;
  using CoreInfoFn = std::function<void(Status, const CoreInfoAnswer&)>;

  MemberControlClient(Reactor* reactor, MadTransport* transport, Logger* log,
                      MemberControlOptions options, AssignedFn on_assigned,
                      RefusedFn on_refused = nullptr);
  ~MemberControlClient();
  MemberControlClient(const MemberControlClient&) = delete;
  MemberControlClient& operator=(const MemberControlClient&) = delete;

  // Watches the transport; with `join`, sends the first Join.
  Status Start(bool join = true);
  // Sends Leave (best effort, not waited for) when joined, then stops.
  void Stop();

  // Reported at the next join/renewal.
  void SetEpoch(uint64_t epoch);
  void SetCounters(const MemberCounters& c) { counters_ = c; }
  // Joins again now (e.g. the parent was lost: `lost_parent` is its GUID).
  // A parent is reported lost once per assignment: once a core has
  // answered a join carrying the report, the same GUID is not reported
  // again until a join is accepted. A data client retrying a dead address
  // calls this at every failure, and a report repeated after the parent
  // rejoined (restarted at a new address) would keep the core from ever
  // assigning it again.
  void Rejoin(uint64_t lost_parent);
  // The parent refused us (a token it could not check, or no longer
  // valid): joins again after a backoff that grows with each refusal until
  // ParentServes(), spread at random so that children refused together do
  // not come back together. The parent is not reported lost: it answered.
  void RejoinAfterRefusal();
  // The parent served us: refusals start again from the shortest backoff.
  void ParentServes() { refusal_backoff_ms_ = 0; }

  // Asks the core whether `token` is one it issued to child `child_guid`
  // for this member as parent. Valid answers are cached for their lease.
  void CheckToken(uint64_t child_guid, const Token& token, CheckFn done);
  void AskCoreInfo(CoreInfoFn done);

  uint64_t joins_sent() const { return joins_sent_; }
  uint64_t timeouts() const { return timeouts_; }
  // Join answers: accepted (renewals included), "retry" (no SMDB or no
  // parent yet) and refused (any other status), for the metrics.
  uint64_t joins_accepted() const { return joins_accepted_; }
  uint64_t joins_retry() const { return joins_retry_; }
  uint64_t joins_refused() const { return joins_refused_; }
  // When a core last answered a join at all (accepted, "retry" or
  // refused; epoch 0 of the clock: never): an SM is running and reachable.
  std::chrono::steady_clock::time_point last_answer_at() const { return last_answer_at_; }
  // The last accepted join's answer (its core_epoch: the core's epoch then).
  const Assignment& assignment() const { return assignment_; }
  // The LID control MADs go to now.
  uint16_t SmLid() const;
  uint64_t sm_moves() const { return sm_moves_; }

 private:
  struct Pending {
    uint16_t attr = 0;
    uint8_t mad[256];
    int tries = 0;
    Reactor::TimerId timer = 0;
    std::function<void(Status, const uint8_t*)> done;  // answer MAD or error
  };

  void Send(uint16_t attr, const uint8_t* mad, std::function<void(Status, const uint8_t*)> done);
  void Transmit(uint32_t tid);
  void OnReadable();
  void SendJoin();
  void OnJoinAnswer(Status st, const uint8_t* mad);
  void ScheduleJoin(std::chrono::milliseconds delay);
  void ProbeSm();
  // `ms` spread over [ms/2, 3ms/2): members that failed together retry apart.
  std::chrono::milliseconds Jitter(int ms);

  Reactor* reactor_;
  MadTransport* transport_;
  Logger* log_;
  RateLimitedLog limited_;
  MemberControlOptions options_;
  AssignedFn on_assigned_;
  RefusedFn on_refused_;
  bool started_ = false;
  bool joined_ = false;
  bool join_in_flight_ = false;
  uint64_t lost_parent_ = 0;     // to report at the next join
  uint64_t lost_in_flight_ = 0;  // what the join in flight reports
  uint64_t lost_answered_ = 0;   // a core answered a join reporting it
  uint64_t epoch_ = 0;
  uint64_t epoch_reported_ = 0;  // the epoch the last join carried
  // An accepted answer named a core epoch below the one reported: another
  // lineage, which renumbers; its next epoch is reported early.
  bool report_next_early_ = false;
  MemberCounters counters_;
  Assignment assignment_;
  Reactor::TimerId join_timer_ = 0;
  int backoff_ms_ = 0;
  int refusal_backoff_ms_ = 0;
  uint64_t rng_;  // xorshift state for Jitter
  uint32_t next_tid_ = 1;
  std::map<uint32_t, Pending> pending_;  // by TID (low 32 bits)
  // Tokens the core said valid: until their lease ends, with the link key.
  struct ValidToken {
    std::chrono::steady_clock::time_point until;
    LinkKey key{};
  };
  std::map<std::pair<uint64_t, Token>, ValidToken> valid_tokens_;
  uint64_t joins_sent_ = 0;
  uint64_t timeouts_ = 0;
  uint64_t joins_accepted_ = 0;
  std::chrono::steady_clock::time_point last_answer_at_{};
  uint64_t joins_retry_ = 0;
  uint64_t joins_refused_ = 0;
  // A master SM LID read from the port (ProbeSm), and what sm_lid() said
  // then: it is used until sm_lid() says something else.
  uint16_t probed_sm_lid_ = 0;
  uint16_t cached_at_probe_ = 0;
  bool probing_ = false;
  uint64_t sm_moves_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace tree
}  // namespace ssa

#endif
