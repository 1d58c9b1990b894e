// acmp_send_queue_test.cc: responses wait when the backend's send queue is
// full (EAGAIN), go out in order once sends complete, and are dropped and
// counted past the bound; other refusals are not queued.
#include <cerrno>
#include <cstring>
#include <vector>

#include "providers/acmp/acmp_send_queue.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace dgram = ssa::dgram;
using ssa::Status;
using ssa::acmp::SendQueue;

namespace {

// A backend with `capacity` sends in flight (verbs: send_depth); Complete()
// stands in for send completions.
class FakeEndpoint : public dgram::DatagramEndpoint {
 public:
  explicit FakeEndpoint(size_t capacity) : capacity_(capacity) {}
  uint32_t qpn() const override { return 0x100; }
  const dgram::EndpointParams& params() const override { return params_; }
  int fd() const override { return -1; }
  Status Send(const dgram::UnicastTarget& to, const uint8_t* data, size_t len) override {
    if (refuse_for_good) return Status::Error(EINVAL, "bad address");
    if (in_flight_ >= capacity_) {
      ++stats_.send_errors;
      return Status::Error(EAGAIN, "send queue full");
    }
    ++in_flight_;
    ++stats_.sent;
    sent.push_back(len ? data[0] : 0);
    qpns.push_back(to.qpn);
    return Status::Ok();
  }
  Status SendToGroup(const dgram::Group&, const uint8_t*, size_t) override { return Status::Ok(); }
  Status Join(const dgram::Group&) override { return Status::Ok(); }
  Status Leave(const dgram::Group&) override { return Status::Ok(); }
  bool Receive(dgram::Datagram*) override { return false; }
  const dgram::EndpointStats& stats() const override { return stats_; }

  void Complete(size_t n) { in_flight_ -= n < in_flight_ ? n : in_flight_; }

  std::vector<uint8_t> sent;  // first byte of each datagram sent, in order
  std::vector<uint32_t> qpns;
  bool refuse_for_good = false;

 private:
  size_t capacity_;
  size_t in_flight_ = 0;
  dgram::EndpointParams params_;
  dgram::EndpointStats stats_;
};

SendQueue::Result SendByte(SendQueue* q, FakeEndpoint* ep, uint8_t b) {
  dgram::UnicastTarget to;
  to.qpn = 0x200u + b;
  uint8_t msg[256];
  memset(msg, b, sizeof(msg));
  Status error;
  return q->Send(ep, to, msg, sizeof(msg), &error);
}

}  // namespace

TEST_GROUP(AcmpSendQueue){};

TEST(AcmpSendQueue, AFullSendQueueQueuesAndCompletionsFlushInOrder) {
  FakeEndpoint ep(1);
  SendQueue q(8);
  CHECK(SendByte(&q, &ep, 1) == SendQueue::Result::kSent);
  CHECK(SendByte(&q, &ep, 2) == SendQueue::Result::kQueued);
  CHECK(SendByte(&q, &ep, 3) == SendQueue::Result::kQueued);
  LONGS_EQUAL(2, q.size());
  Status error;
  LONGS_EQUAL(0, q.Flush(&ep, &error));  // nothing completed yet
  ep.Complete(1);
  LONGS_EQUAL(1, q.Flush(&ep, &error));
  ep.Complete(1);
  // A new send goes behind what waits, not before it: 3 goes out first.
  CHECK(SendByte(&q, &ep, 4) == SendQueue::Result::kQueued);
  LONGS_EQUAL(1, q.size());
  ep.Complete(1);
  LONGS_EQUAL(1, q.Flush(&ep, &error));
  LONGS_EQUAL(0, q.size());
  LONGS_EQUAL(4, ep.sent.size());
  for (uint8_t i = 0; i < 4; ++i) LONGS_EQUAL(i + 1, ep.sent[i]);
  LONGS_EQUAL(0x203, ep.qpns[2]);
  LONGS_EQUAL(3, q.queued());
  LONGS_EQUAL(0, q.dropped());
}

TEST(AcmpSendQueue, PastTheBoundDatagramsAreDroppedAndCounted) {
  FakeEndpoint ep(0);
  SendQueue q(2);
  CHECK(SendByte(&q, &ep, 1) == SendQueue::Result::kQueued);
  CHECK(SendByte(&q, &ep, 2) == SendQueue::Result::kQueued);
  CHECK(SendByte(&q, &ep, 3) == SendQueue::Result::kDropped);
  LONGS_EQUAL(2, q.size());
  LONGS_EQUAL(1, q.dropped());
}

TEST(AcmpSendQueue, OtherRefusalsAreNotQueued) {
  FakeEndpoint ep(1);
  SendQueue q(2);
  ep.refuse_for_good = true;
  dgram::UnicastTarget to;
  uint8_t msg[1] = {1};
  Status error;
  CHECK(q.Send(&ep, to, msg, 1, &error) == SendQueue::Result::kFailed);
  LONGS_EQUAL(-EINVAL, error.code());
  LONGS_EQUAL(0, q.size());
  LONGS_EQUAL(1, q.failed());
}
