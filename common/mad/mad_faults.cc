// mad_faults.cc: see mad_faults.h.
#include "common/mad/mad_faults.h"

#include <cerrno>

namespace ssa {

const std::vector<std::string>& FaultyMadTransport::Keys() {
  static const std::vector<std::string> keys = {"drop", "dup", "reorder", "seed"};
  return keys;
}

FaultyMadTransport::FaultyMadTransport(std::unique_ptr<MadTransport> inner, const FaultSpec& spec)
    : inner_(std::move(inner)),
      drop_(spec.Get("drop")),
      dup_(spec.Get("dup")),
      reorder_(spec.Get("reorder")),
      dice_(static_cast<uint64_t>(spec.Get("seed"))) {}

Status FaultyMadTransport::Open(uint8_t mgmt_class, uint8_t class_version) {
  return inner_->Open(mgmt_class, class_version);
}
void FaultyMadTransport::Close() { inner_->Close(); }
int FaultyMadTransport::fd() const { return inner_->fd(); }

Status FaultyMadTransport::Send(const uint8_t* mad, size_t len, const MadAddress& to,
                                int response_timeout_ms) {
  if (dice_.Roll(drop_)) {
    ++counters_.dropped_sent;
    return Status::Ok();  // as lost on the wire: the sender sees nothing
  }
  return inner_->Send(mad, len, to, response_timeout_ms);
}

Status FaultyMadTransport::Receive(ReceivedMad* out) {
  if (!pending_.empty()) {
    *out = pending_.front();
    pending_.pop_front();
    return Status::Ok();
  }
  for (;;) {
    ReceivedMad m;
    Status st = inner_->Receive(&m);
    if (!st.ok()) {
      // Nothing else waiting: a held MAD comes out now.
      if (st.code() == EAGAIN && holding_) {
        holding_ = false;
        *out = held_;
        return Status::Ok();
      }
      return st;
    }
    if (dice_.Roll(drop_)) {
      ++counters_.dropped_received;
      continue;
    }
    if (!holding_ && dice_.Roll(reorder_)) {
      ++counters_.reordered;
      holding_ = true;
      held_ = m;
      continue;
    }
    if (holding_) {  // the held one goes after this one
      pending_.push_back(held_);
      holding_ = false;
    }
    if (dice_.Roll(dup_)) {
      ++counters_.duplicated;
      pending_.push_back(m);
    }
    *out = m;
    return Status::Ok();
  }
}

Status WrapMadFaults(const std::string& spec_text, std::unique_ptr<MadTransport>* inout) {
  if (spec_text.empty()) return Status::Ok();
  FaultSpec spec;
  Status st = FaultSpec::Parse(spec_text, FaultyMadTransport::Keys(), &spec);
  if (!st.ok()) return st.WithContext("mad_faults");
  *inout = std::make_unique<FaultyMadTransport>(std::move(*inout), spec);
  return Status::Ok();
}

}  // namespace ssa
