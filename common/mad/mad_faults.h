// mad_faults.h: a MadTransport that wraps another and injects faults, for
// the fault-scenario tests (the `mad_faults` option of the tree's daemons
// and tools; fault_spec.h has the syntax):
//   drop=P     each MAD sent, and each received, is lost with probability P
//   dup=P      a received MAD is delivered twice with probability P
//   reorder=P  a received MAD is held back behind the next one with
//              probability P (never lost: it comes out when nothing else
//              is waiting)
//   delay=MS   each received MAD is delivered MS ms after it arrived (a
//              slow SA path or a loaded core), before the faults above
//   seed=N     the dice's seed (0: from the clock)
// The wrapper is what the daemon talks to; the real transport underneath
// is unchanged. Counters say what was injected.
//
// Delay without timers or threads: with delay set, fd() is an epoll fd of
// the wrapper's own holding the inner fd and a timerfd. Receive() moves
// every MAD that has arrived into a queue stamped with when it is due and
// arms the timerfd for the first one, so the fd the owner's loop watches
// is readable exactly when something new arrived or something is due (the
// loop never spins on MADs held back). Without delay fd() is the inner
// fd, as before.
//
// Ownership: owns the inner transport. Loop thread only, as the inner one.
#ifndef IBACM_SSA_COMMON_MAD_MAD_FAULTS_H
#define IBACM_SSA_COMMON_MAD_MAD_FAULTS_H

#include <chrono>
#include <deque>
#include <memory>
#include <string>

#include "common/base/fault_spec.h"
#include "common/mad/mad_transport.h"

namespace ssa {

struct MadFaultCounters {
  uint64_t dropped_sent = 0;
  uint64_t dropped_received = 0;
  uint64_t duplicated = 0;
  uint64_t reordered = 0;
  uint64_t delayed = 0;
};

class FaultyMadTransport : public MadTransport {
 public:
  static const std::vector<std::string>& Keys();
  FaultyMadTransport(std::unique_ptr<MadTransport> inner, const FaultSpec& spec);

  Status Open(uint8_t mgmt_class, uint8_t class_version) override;
  void Close() override;
  int fd() const override;
  Status Send(const uint8_t* mad, size_t len, const MadAddress& to,
              int response_timeout_ms) override;
  Status Receive(ReceivedMad* out) override;

  const MadFaultCounters& counters() const { return counters_; }

  // With delay: makes the epoll fd and timerfd for an inner transport that
  // is open already (Open does it otherwise). WrapMadFaults calls it.
  Status SetUpDelay();

 private:
  using Clock = std::chrono::steady_clock;
  struct Delayed {
    Clock::time_point due;
    ReceivedMad mad;
  };
  // The next MAD from below, after the delay; -EAGAIN when none is due.
  Status Pull(ReceivedMad* out);
  void ArmTimer(Clock::time_point now);
  void CloseDelay();

  std::unique_ptr<MadTransport> inner_;
  double drop_, dup_, reorder_;
  int delay_ms_;
  int epoll_fd_ = -1;  // with delay: what fd() returns
  int timer_fd_ = -1;
  std::deque<Delayed> delayed_;
  FaultDice dice_;
  std::deque<ReceivedMad> pending_;  // duplicates to deliver first
  bool holding_ = false;
  ReceivedMad held_;
  MadFaultCounters counters_;
};

// `inner` (open or not) as is when `spec_text` is empty, else wrapped;
// EINVAL for a bad spec.
Status WrapMadFaults(const std::string& spec_text, std::unique_ptr<MadTransport>* inout);

}  // namespace ssa

#endif
