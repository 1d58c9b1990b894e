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
//   seed=N       the dice's seed (0: from the clock)
// Faults act on what the wrapped side reads, so wrapping a child's
// transport corrupts or cuts what its parent sends it. Counters (shared by
// every stream of the transport) say what was injected.
//
// Ownership: owns the inner transport. Loop thread only.
#ifndef IBACM_SSA_COMMON_TREE_STREAM_FAULTS_H
#define IBACM_SSA_COMMON_TREE_STREAM_FAULTS_H

#include <memory>
#include <string>
#include <vector>

#include "common/base/fault_spec.h"
#include "common/tree/stream.h"

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

  const StreamFaultCounters& counters() const { return counters_; }

  // What the wrapped streams share.
  struct Shared {
    double flip = 0, cut = 0, cut_after = 0;
    FaultDice dice{0};
    StreamFaultCounters* counters = nullptr;
  };

 private:
  std::unique_ptr<StreamTransport> inner_;
  StreamFaultCounters counters_;
  std::shared_ptr<Shared> shared_;
};

// `inout` as is when `spec_text` is empty, else wrapped; EINVAL for a bad
// spec.
Status WrapStreamFaults(const std::string& spec_text, std::unique_ptr<StreamTransport>* inout);

}  // namespace tree
}  // namespace ssa

#endif
