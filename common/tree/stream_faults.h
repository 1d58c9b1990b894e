// stream_faults.h: a StreamTransport that wraps another and injects faults
// into every stream it makes, for the fault-scenario tests (the
// `data_faults` option of the tree's daemons and tools; fault_spec.h has
// the syntax):
//   flip=P       each chunk read has one byte flipped with probability P
//                (corruption the CRCs and digests must catch)
//   cut=P        each read or write breaks the connection with
//                probability P (ECONNRESET from then on)
//   cut_after=N  each connection breaks once N bytes have been read on
//                it (a parent dying in the middle of a transfer)
//   delay=MS     each chunk read reaches the reader MS ms after it
//                arrived (a long or congested path)
//   stall=P      with probability P per chunk read, the reader then reads
//                nothing for stall_ms (default 1000): the sender's buffers
//                fill and its writes see EAGAIN (a slow reader)
//   stall_ms=MS
//   seed=N       the dice's seed (0: from the clock)
// Faults act on what the wrapped side reads, so wrapping a child's
// transport corrupts, cuts, delays or stalls what its parent sends it.
// Counters (shared by every stream of the transport) say what was
// injected.
//
// delay and stall need time and real readiness the owner's loop can
// watch, so with either set each stream goes through a relay thread and a
// socketpair (stream_relay.h, which says why); they need the tcp
// transport. Without them no thread is involved.
//
// Ownership: owns the inner transport; the streams share the counters.
// Loop thread only (the relay threads only touch their own stream and the
// atomic relay counters).
#ifndef IBACM_SSA_COMMON_TREE_STREAM_FAULTS_H
#define IBACM_SSA_COMMON_TREE_STREAM_FAULTS_H

#include <memory>
#include <string>
#include <vector>

#include "common/base/fault_spec.h"
#include "common/tree/stream.h"
#include "common/tree/stream_relay.h"

namespace ssa {
namespace tree {

struct StreamFaultCounters {
  uint64_t flipped = 0;
  uint64_t cut = 0;
};

class FaultyStreamTransport : public StreamTransport {
 public:
  static const std::vector<std::string>& Keys();
  FaultyStreamTransport(std::unique_ptr<StreamTransport> inner, const FaultSpec& spec);

  Status Listen(const DataAddress& address, std::unique_ptr<StreamListener>* out) override;
  Status Connect(const DataAddress& address, std::unique_ptr<Stream>* out) override;
  const char* name() const override { return inner_->name(); }

  const StreamFaultCounters& counters() const { return shared_->counters; }
  // delay and stall (any thread).
  const RelayCounters& relay_counters() const { return *shared_->relay_counters; }

  // What the wrapped streams share.
  struct Shared {
    double flip = 0, cut = 0, cut_after = 0;
    RelayFaults relay;  // its seed unused: each stream rolls its own
    bool use_relay = false;
    FaultDice dice{0};
    StreamFaultCounters counters;
    std::shared_ptr<RelayCounters> relay_counters = std::make_shared<RelayCounters>();
  };

 private:
  std::unique_ptr<StreamTransport> inner_;
  std::shared_ptr<Shared> shared_;
};

// `inout` as is when `spec_text` is empty, else wrapped; EINVAL for a bad
// spec.
Status WrapStreamFaults(const std::string& spec_text, std::unique_ptr<StreamTransport>* inout);

}  // namespace tree
}  // namespace ssa

#endif
