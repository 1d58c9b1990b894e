// acmp_send_queue.h: datagrams an endpoint could not hand to its backend
// yet. A backend refuses a send with EAGAIN while its send queue is full
// (verbs: send_depth sends in flight); as upstream ibacm does, the datagram
// then waits here, in order, and goes out when a send completes (the
// endpoint's fd reads ready and the provider calls Flush() after draining
// it). The queue is bounded: past `bound` datagrams waiting, a new one is
// dropped and counted, and the caller says so in the log.
//
// Ownership: copies of the datagrams; borrows the endpoint per call.
// Threads: one at a time.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_SEND_QUEUE_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_SEND_QUEUE_H

#include <cstddef>
#include <cstdint>
#include <deque>

#include "common/base/status.h"
#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace acmp {

class SendQueue {
 public:
  enum class Result {
    kSent,     // handed to the backend
    kQueued,   // waits for a send completion
    kDropped,  // the queue is full (`bound` waiting)
    kFailed,   // the backend refused it for good (*error says why)
  };

  explicit SendQueue(size_t bound) : bound_(bound) {}

  // Sends `data` to `to` now, or queues it behind what already waits.
  Result Send(dgram::DatagramEndpoint* ep, const dgram::UnicastTarget& to, const uint8_t* data,
              size_t len, Status* error);
  // Sends what waits, oldest first, until the backend refuses with EAGAIN.
  // A datagram refused for another reason is dropped (counted in failed(),
  // the last reason in *error). Returns how many were sent.
  size_t Flush(dgram::DatagramEndpoint* ep, Status* error);

  size_t size() const { return waiting_.size(); }
  uint64_t queued() const { return queued_; }    // ever queued
  uint64_t dropped() const { return dropped_; }  // the queue was full
  uint64_t failed() const { return failed_; }    // refused for good, queued or not

 private:
  struct Waiting {
    dgram::UnicastTarget to;
    uint8_t data[dgram::kMaxPayload];
    size_t len = 0;
  };
  size_t bound_;
  std::deque<Waiting> waiting_;
  uint64_t queued_ = 0;
  uint64_t dropped_ = 0;
  uint64_t failed_ = 0;
};

}  // namespace acmp
}  // namespace ssa

#endif
