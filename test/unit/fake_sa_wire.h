// fake_sa_wire.h: a fake MadTransport for SaClient (no fabric needed):
// it records what is sent and delivers what a test hands it, through an
// eventfd the loop watches as it would a umad fd. The test and the
// transport the client owns share the FakeWire.
#ifndef IBACM_SSA_TEST_UNIT_FAKE_SA_WIRE_H
#define IBACM_SSA_TEST_UNIT_FAKE_SA_WIRE_H

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "common/mad/mad_transport.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sa_client.h"

namespace ssa {
namespace test {

// What the fake transport saw and what the test wants it to deliver. Shared
// between the test and the transport the client owns.
struct FakeWire {
  struct Sent {
    std::vector<uint8_t> mad;
    MadAddress to;
    int response_timeout_ms;
  };
  std::vector<Sent> sent;
  std::deque<ReceivedMad> inbox;
  int efd = -1;
  bool open = false;
  int opened_class = -1;
  int opened_version = -1;
  int send_error = 0;     // sends fail with this (negative errno) when set
  int receive_error = 0;  // receives fail with this when set

  uint32_t Tid(size_t i) const { return static_cast<uint32_t>(mad::MadTid(sent.at(i).mad.data())); }
  uint16_t Dlid(size_t i) const {  // the queried DLID: identifies a request
    const uint8_t* r = sent.at(i).mad.data() + mad::kSaDataOffset;
    return static_cast<uint16_t>((r[40] << 8) | r[41]);
  }
  void Deliver(const uint8_t* data, size_t len, int transport_status = 0) {
    ReceivedMad rx;
    memcpy(rx.data, data, len);
    rx.len = len;
    rx.transport_status = transport_status;
    inbox.push_back(rx);
    uint64_t one = 1;
    ssize_t n = write(efd, &one, sizeof(one));
    (void)n;
  }
  // Answers sent MAD #i as the SA would, with `tid_high` in TID bits 63:32
  // (what the kernel/umad2sim put there).
  void Answer(size_t i, uint16_t status = 0, uint32_t tid_high = 0xabcd0001) {
    std::vector<uint8_t> resp = sent.at(i).mad;
    resp[3] = mad::ResponseMethodFor(resp[3]);
    resp[4] = static_cast<uint8_t>(status >> 8);
    resp[5] = static_cast<uint8_t>(status);
    mad::SetMadTid(resp.data(), (static_cast<uint64_t>(tid_high) << 32) | Tid(i));
    resp[mad::kSaDataOffset + 54] = 4;  // MTU 2048 in the record
    Deliver(resp.data(), resp.size());
  }
};

class FakeTransport : public MadTransport {
 public:
  explicit FakeTransport(std::shared_ptr<FakeWire> wire) : wire_(std::move(wire)) {}
  ~FakeTransport() override { Close(); }
  Status Open(uint8_t mgmt_class, uint8_t class_version) override {
    wire_->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    wire_->open = true;
    wire_->opened_class = mgmt_class;
    wire_->opened_version = class_version;
    return Status::Ok();
  }
  void Close() override {
    if (wire_->efd >= 0) close(wire_->efd);
    wire_->efd = -1;
    wire_->open = false;
  }
  int fd() const override { return wire_->efd; }
  Status Send(const uint8_t* m, size_t len, const MadAddress& to,
              int response_timeout_ms) override {
    if (wire_->send_error) return Status::Error(wire_->send_error, "fake send failure");
    wire_->sent.push_back({std::vector<uint8_t>(m, m + len), to, response_timeout_ms});
    return Status::Ok();
  }
  Status Receive(ReceivedMad* out) override {
    if (wire_->receive_error) return Status::Error(wire_->receive_error, "fake receive failure");
    if (wire_->inbox.empty()) {
      uint64_t n;
      ssize_t r = read(wire_->efd, &n, sizeof(n));
      (void)r;
      return Status::Error(EAGAIN, "empty");
    }
    *out = wire_->inbox.front();
    wire_->inbox.pop_front();
    return Status::Ok();
  }

 private:
  std::shared_ptr<FakeWire> wire_;
};

}  // namespace test
}  // namespace ssa

#endif
