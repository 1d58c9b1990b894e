// stream_faults.cc: see stream_faults.h.
#include "common/tree/stream_faults.h"

#include <cerrno>
#include <cstdint>

namespace ssa {
namespace tree {

namespace {

class FaultyStream : public Stream {
 public:
  FaultyStream(std::unique_ptr<Stream> inner, std::shared_ptr<FaultyStreamTransport::Shared> shared)
      : inner_(std::move(inner)), shared_(std::move(shared)) {}

  int fd() const override { return inner_->fd(); }
  Status FinishConnect() override { return inner_->FinishConnect(); }
  std::string peer() const override { return inner_->peer(); }

  ssize_t Read(void* buf, size_t len) override {
    if (Broken()) return -ECONNRESET;
    if (shared_->cut_after > 0) {
      double left = shared_->cut_after - static_cast<double>(read_);
      if (left < 1) return Cut();
      if (static_cast<double>(len) > left) len = static_cast<size_t>(left);
    }
    ssize_t n = inner_->Read(buf, len);
    if (n > 0) {
      read_ += static_cast<uint64_t>(n);
      if (shared_->dice.Roll(shared_->flip)) {
        static_cast<uint8_t*>(buf)[shared_->dice.Below(static_cast<uint64_t>(n))] ^=
            static_cast<uint8_t>(1u << shared_->dice.Below(8));
        ++shared_->counters.flipped;
      }
    }
    return n;
  }

  ssize_t Write(const void* buf, size_t len) override {
    if (Broken()) return -ECONNRESET;
    return inner_->Write(buf, len);
  }

 private:
  // True once cut, or when this call's dice say so.
  bool Broken() {
    if (cut_) return true;
    if (shared_->dice.Roll(shared_->cut)) Cut();
    return cut_;
  }
  ssize_t Cut() {
    if (!cut_) ++shared_->counters.cut;
    cut_ = true;
    return -ECONNRESET;
  }

  std::unique_ptr<Stream> inner_;
  std::shared_ptr<FaultyStreamTransport::Shared> shared_;
  uint64_t read_ = 0;
  bool cut_ = false;
};

// `s`, through a relay when delay or stall is on, then wrapped.
Status Wrap(std::unique_ptr<Stream> s, bool connecting,
            const std::shared_ptr<FaultyStreamTransport::Shared>& shared,
            std::unique_ptr<Stream>* out) {
  if (shared->use_relay) {
    RelayFaults f = shared->relay;
    // Each stream its own dice (the relay threads roll them), seeded from
    // the transport's so a seeded run repeats.
    f.seed = shared->dice.Below(UINT64_MAX - 1) + 1;
    Status st = NewRelayStream(std::move(s), connecting, f, shared->relay_counters, &s);
    if (!st.ok()) return st;
  }
  *out = std::make_unique<FaultyStream>(std::move(s), shared);
  return Status::Ok();
}

class FaultyListener : public StreamListener {
 public:
  FaultyListener(std::unique_ptr<StreamListener> inner,
                 std::shared_ptr<FaultyStreamTransport::Shared> shared)
      : inner_(std::move(inner)), shared_(std::move(shared)) {}
  int fd() const override { return inner_->fd(); }
  DataAddress address() const override { return inner_->address(); }
  Status Accept(std::unique_ptr<Stream>* out) override {
    std::unique_ptr<Stream> s;
    Status st = inner_->Accept(&s);
    return st.ok() ? Wrap(std::move(s), false, shared_, out) : st;
  }

 private:
  std::unique_ptr<StreamListener> inner_;
  std::shared_ptr<FaultyStreamTransport::Shared> shared_;
};

}  // namespace

const std::vector<std::string>& FaultyStreamTransport::Keys() {
  static const std::vector<std::string> keys = {"flip",  "cut",      "cut_after", "delay",
                                                "stall", "stall_ms", "seed"};
  return keys;
}

FaultyStreamTransport::FaultyStreamTransport(std::unique_ptr<StreamTransport> inner,
                                             const FaultSpec& spec)
    : inner_(std::move(inner)), shared_(std::make_shared<Shared>()) {
  shared_->flip = spec.Get("flip");
  shared_->cut = spec.Get("cut");
  shared_->cut_after = spec.Get("cut_after");
  shared_->relay.delay_ms = static_cast<int>(spec.Get("delay"));
  shared_->relay.stall = spec.Get("stall");
  shared_->relay.stall_ms = static_cast<int>(spec.Get("stall_ms", 1000));
  shared_->use_relay = shared_->relay.delay_ms > 0 || shared_->relay.stall > 0;
  shared_->dice = FaultDice(static_cast<uint64_t>(spec.Get("seed")));
}

Status FaultyStreamTransport::Listen(const DataAddress& address,
                                     std::unique_ptr<StreamListener>* out) {
  std::unique_ptr<StreamListener> l;
  Status st = inner_->Listen(address, &l);
  if (st.ok()) *out = std::make_unique<FaultyListener>(std::move(l), shared_);
  return st;
}

Status FaultyStreamTransport::Connect(const DataAddress& address, std::unique_ptr<Stream>* out) {
  std::unique_ptr<Stream> s;
  Status st = inner_->Connect(address, &s);
  return st.ok() ? Wrap(std::move(s), true, shared_, out) : st;
}

Status WrapStreamFaults(const std::string& spec_text, std::unique_ptr<StreamTransport>* inout) {
  if (spec_text.empty()) return Status::Ok();
  FaultSpec spec;
  Status st = FaultSpec::Parse(spec_text, FaultyStreamTransport::Keys(), &spec);
  if (!st.ok()) return st.WithContext("data_faults");
  if ((spec.Get("delay") > 0 || spec.Get("stall") > 0) && std::string((*inout)->name()) != "tcp")
    return Status::Error(EINVAL, std::string("data_faults: delay and stall need the tcp data "
                                             "transport, not ") +
                                     (*inout)->name());
  *inout = std::make_unique<FaultyStreamTransport>(std::move(*inout), spec);
  return Status::Ok();
}

}  // namespace tree
}  // namespace ssa
