// acmp_requests.h: the resolve requests one acmp endpoint has out on the
// fabric, with upstream acmp's flow control, timeouts and retries:
//
//   - at most `depth` (resolve_depth) requests are out at a time; more wait
//     in FIFO order and go out as earlier ones finish;
//   - a request is sent up to retries + 1 times, each try waiting
//     try_timeout_ms (the port's subnet timeout plus `timeout`) for its
//     response; every try carries the same TID, so a late response to an
//     earlier try answers it;
//   - the response is matched by TID (TakeResponse); a request whose last
//     try times out is handed to the timeout callback.
// Sending is the caller's (the `send` callback): a send that fails counts
// as a lost datagram and the try's timer still runs.
//
// TIDs: a per-tracker counter starting at a caller-given base (the
// provider seeds it from the clock so a restarted daemon does not reuse
// the TIDs of its previous life).
//
// Ownership: owns its requests and their timers (cancelled when it is
// destroyed). Callbacks run from reactor timers and from TakeResponse's
// caller; they may call back into the tracker. Threads: one.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_REQUESTS_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_REQUESTS_H

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include "providers/acmp/acmp_loop.h"
#include "providers/acmp/acmp_wire.h"

namespace ssa {
namespace acmp {

class RequestTracker {
 public:
  struct Callbacks {
    // Sends one try; returns false if the datagram could not be handed on.
    std::function<bool(const uint8_t* msg, size_t len)> send;
    // The last try of the request for `dest_key` went unanswered.
    std::function<void(const std::string& dest_key, uint64_t tid, int tries)> timed_out;
  };

  RequestTracker(Reactor* reactor, Callbacks callbacks, int depth, int retries, uint64_t first_tid);
  ~RequestTracker();
  RequestTracker(const RequestTracker&) = delete;
  RequestTracker& operator=(const RequestTracker&) = delete;

  void set_try_timeout_ms(uint32_t ms) { try_timeout_ms_ = ms; }
  uint32_t try_timeout_ms() const { return try_timeout_ms_; }

  // Assigns the TID (written into `msg`), then sends now or queues.
  // Returns the TID.
  uint64_t Start(const std::string& dest_key, AcmMessage msg);
  // The request with `tid`, if it is out: removed (its timer cancelled, the
  // next queued request sent) and its destination key returned.
  bool TakeResponse(uint64_t tid, std::string* dest_key);
  // Forgets every request (flush); no callbacks.
  void Clear();

  size_t outstanding() const { return active_.size(); }
  size_t queued() const { return queue_.size(); }
  uint64_t tries_sent() const { return tries_sent_; }
  uint64_t send_failures() const { return send_failures_; }
  uint64_t timeouts() const { return timeouts_; }

 private:
  struct Request {
    std::string dest_key;
    uint64_t tid = 0;
    std::array<uint8_t, kAcmMessageSize> bytes;
    int tries = 0;
    uint64_t timer = 0;
  };

  void Launch(Request req);
  void Try(uint64_t tid);
  void OnTimeout(uint64_t tid);
  void Finish(uint64_t tid);  // frees the slot and launches the next queued

  Reactor* reactor_;
  Callbacks cb_;
  int depth_;
  int retries_;
  uint32_t try_timeout_ms_ = 2000;
  uint64_t next_tid_;
  std::map<uint64_t, Request> active_;  // by TID
  std::deque<Request> queue_;
  uint64_t tries_sent_ = 0;
  uint64_t send_failures_ = 0;
  uint64_t timeouts_ = 0;
};

}  // namespace acmp
}  // namespace ssa

#endif
