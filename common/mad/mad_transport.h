// mad_transport.h: the seam between MAD protocol code (SaClient) and the
// umad calls, in the style of leveldb's Env: UmadTransport (umad_transport.h)
// is the real one, unit tests use a fake.
//
// A transport is one umad port with one registered agent (one management
// class). It is owned by one protocol object and used from the event-loop
// thread only: Open/Send/Receive/Close are not thread-safe. fd() is what the
// loop watches: readable whenever Receive() may have something.
#ifndef IBACM_SSA_COMMON_MAD_MAD_TRANSPORT_H
#define IBACM_SSA_COMMON_MAD_MAD_TRANSPORT_H

#include <cstddef>
#include <cstdint>

#include "common/base/status.h"
#include "common/mad/mad_wire.h"

namespace ssa {

// Where a MAD goes (host order).
struct MadAddress {
  uint16_t dlid = 0;
  uint8_t sl = 0;
  uint32_t qpn = mad::kSaQpn;
  uint32_t qkey = mad::kSaQkey;
  uint16_t pkey_index = 0;
};

// One MAD taken from the transport.
struct ReceivedMad {
  uint8_t data[mad::kMadSize];
  size_t len = 0;
  // The transport's own status for this MAD (umad_status(): a positive
  // errno such as ETIMEDOUT when the kernel gives up on a request it sent,
  // in which case `data` is that request). 0 for a MAD that came off the
  // wire.
  int transport_status = 0;
  uint16_t slid = 0;
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;

  // Opens the port and registers an agent for `mgmt_class`/`class_version`
  // (no RMPP, no unsolicited methods: only answers to our own requests).
  virtual Status Open(uint8_t mgmt_class, uint8_t class_version) = 0;
  // Unregisters and closes; safe to call twice. The owner unwatches fd()
  // first, then closes.
  virtual void Close() = 0;
  // The fd to watch for EPOLLIN; -1 while closed.
  virtual int fd() const = 0;

  // Sends `len` (<= 256) bytes. `response_timeout_ms` is how long the layer
  // underneath should keep the request around waiting for its answer (the
  // real kernel drops a response that matches no such request); the caller
  // still runs its own timers, because umad2sim never reports timeouts.
  virtual Status Send(const uint8_t* mad, size_t len, const MadAddress& to,
                      int response_timeout_ms) = 0;
  // Non-blocking. OK with *out filled, or -EAGAIN when nothing is waiting,
  // or another error.
  virtual Status Receive(ReceivedMad* out) = 0;
};

}  // namespace ssa

#endif
