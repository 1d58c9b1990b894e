// stream_relay.h: the timed data-channel faults (delay, stall) of
// stream_faults.h, as a Stream that relays another through a thread.
//
// Why a relay: streams are non-blocking and their owners watch fd() on a
// level-triggered reactor. A wrapper that kept back bytes already readable
// on the real socket would have the loop woken for them again and again,
// and a wrapper has no timers to release them with. So the owner gets one
// end of a socketpair instead, whose readiness is real: the relay thread
// moves bytes between the real stream and the other end, and the socket
// pair only holds what the faults have let through. It uses nothing of
// the owner's loop, so the same code runs under any Reactor.
//
// What the owner reads (the real stream's input) goes through the faults:
//   delay_ms  each chunk read from the real stream reaches the owner that
//             long after the relay read it (and so no earlier than that
//             after it arrived); end of stream and errors come in order
//             after the data before them
//   stall     with this probability per chunk read, the relay then stops
//             reading the real stream for stall_ms: the kernel's buffers
//             fill and the peer's writes see EAGAIN (a slow reader)
// What the owner writes goes to the real stream as is.
//
// Backpressure is kept: the relay holds at most kMaxHeld bytes read but
// not yet delivered, and reads no more while the owner does not read.
//
// Connect: the real stream's non-blocking connect finishes in the relay
// thread. Until it has, the owner's end is made unwritable (its send
// buffer filled with filler bytes the relay discards), so the owner's
// "writable, call FinishConnect" sees the real outcome, as without the
// relay.
//
// End of stream and errors: the real stream's end (read 0) becomes the
// owner's end of stream; a read or write error on it becomes that error
// (Read returns it once the data before it is read, Write at once).
//
// Destruction: stops and joins the thread. Bytes the owner wrote just
// before are still passed on as far as the real socket takes them without
// blocking (a frame sent just before close, as a REFUSE is); bytes on the
// way in are dropped, as a socket closed with unread data drops them.
//
// Needs a real kernel fd underneath (TCP; not rsockets, whose fds only
// rpoll understands). Calls only ppoll/recv/send/eventfd and raw close,
// which the simulated fabric's umad2sim shim does not intercept.
//
// Threads: the owner's methods on its thread, as any Stream; the real
// stream is only touched by the relay thread once it runs.
#ifndef IBACM_SSA_COMMON_TREE_STREAM_RELAY_H
#define IBACM_SSA_COMMON_TREE_STREAM_RELAY_H

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/tree/stream.h"

namespace ssa {
namespace tree {

struct RelayFaults {
  int delay_ms = 0;
  double stall = 0;
  int stall_ms = 0;
  uint64_t seed = 1;  // this stream's dice
};

// Updated by relay threads, read by anyone.
struct RelayCounters {
  std::atomic<uint64_t> delayed{0};  // chunks held back by delay_ms
  std::atomic<uint64_t> stalls{0};   // times the reader stalled
};

// Wraps `inner` (a non-blocking stream on a kernel fd; `connecting`: its
// non-blocking connect has not finished). Fails when a socketpair, eventfd
// or thread cannot be made.
Status NewRelayStream(std::unique_ptr<Stream> inner, bool connecting, const RelayFaults& faults,
                      std::shared_ptr<RelayCounters> counters, std::unique_ptr<Stream>* out);

}  // namespace tree
}  // namespace ssa

#endif
