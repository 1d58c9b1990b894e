// acmp_send_queue.cc: see acmp_send_queue.h.
#include "providers/acmp/acmp_send_queue.h"

#include <cerrno>
#include <cstring>

namespace ssa {
namespace acmp {

SendQueue::Result SendQueue::Send(dgram::DatagramEndpoint* ep, const dgram::UnicastTarget& to,
                                  const uint8_t* data, size_t len, Status* error) {
  if (!waiting_.empty()) Flush(ep, error);
  if (waiting_.empty()) {
    Status st = ep->Send(to, data, len);
    if (st.ok()) return Result::kSent;
    if (st.code() != -EAGAIN) {
      ++failed_;
      *error = st;
      return Result::kFailed;
    }
  }
  if (len > dgram::kMaxPayload) {  // a backend refuses these before EAGAIN; to be sure
    ++failed_;
    *error = Status::Error(EMSGSIZE, std::to_string(len) + "-byte datagram");
    return Result::kFailed;
  }
  if (waiting_.size() >= bound_) {
    ++dropped_;
    return Result::kDropped;
  }
  waiting_.emplace_back();
  Waiting& w = waiting_.back();
  w.to = to;
  memcpy(w.data, data, len);
  w.len = len;
  ++queued_;
  return Result::kQueued;
}

size_t SendQueue::Flush(dgram::DatagramEndpoint* ep, Status* error) {
  size_t sent = 0;
  while (!waiting_.empty()) {
    const Waiting& w = waiting_.front();
    Status st = ep->Send(w.to, w.data, w.len);
    if (!st.ok() && st.code() == -EAGAIN) break;
    if (st.ok()) {
      ++sent;
    } else {
      ++failed_;
      *error = st;
    }
    waiting_.pop_front();
  }
  return sent;
}

}  // namespace acmp
}  // namespace ssa
