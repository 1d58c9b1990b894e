// inproc_mad.h: the in-process control-plane seam (doc/ssa-tree.md,
// "Seams"): an InprocMadFabric hands out MadTransport objects, one per
// port (LID), and delivers MADs between them inside one process, so the
// core's CoreControlServer and thousands of MemberControlClients (members,
// consumers) run together for scale tests and benchmarks
// (test/bench/bench_tree) without umad.
//
// Delivery, modelled on what the kernel's umad does for one port:
//   - Send() to `dlid` reaches the transports open at that LID for the
//     MAD's management class (byte 1); the receiver sees `slid` = the
//     sender's LID. Nothing open there: the MAD is lost (counted), as on a
//     wire nobody listens to.
//   - A request (method bit 0x80 clear) gets the sending transport's id in
//     TID bits 63..32, as the kernel puts its agent id there; only the low
//     32 bits are the sender's own (member_control.cc relies on no more).
//     It goes to the first transport open at `dlid` for the class.
//   - A response (method bit 0x80 set) goes to the transport whose id is in
//     its TID bits 63..32, if it is open at `dlid`; else it is lost.
//   - Order between one sender and one receiver is kept; nothing is
//     dropped, duplicated or delayed (wrap the transport in
//     FaultyMadTransport, mad_faults.h, for that). Each receive queue is
//     bounded (max_queue, default 65536 MADs); past it MADs are lost and
//     counted, like a full receive queue on an HCA.
//   - response_timeout_ms is ignored: the callers run their own timers.
//
// fd() is an eventfd per transport, readable exactly while its queue holds
// a MAD, so the transport goes into any EventLoop/Reactor like the umad
// one.
//
// A gateway (NewGateway) stands for ports of another process's fabric, so
// that two processes' fabrics can be bridged (test/bench/bench_tree runs
// consumers in child processes): it is open at many LIDs at once, takes
// what is sent to any of them with the LID it was sent to, and sends as
// any source LID. A request it sends keeps its TID (the far fabric already
// put its sender's id in bits 63..32, as a kernel puts an agent id there);
// a response sent to one of its LIDs goes to it whatever the TID, and the
// far fabric routes it on by that TID. Nothing else may open at its LIDs.
//
// Threads: the fabric and every transport may be used from any threads at
// once (one mutex guards the registry and every queue); a transport itself
// is used by its owner's thread only, as MadTransport says. Transports may
// outlive the fabric object (they share its state).
#ifndef IBACM_SSA_COMMON_TREE_INPROC_MAD_H
#define IBACM_SSA_COMMON_TREE_INPROC_MAD_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/mad/mad_transport.h"

namespace ssa {
namespace tree {

struct InprocMadCounters {
  uint64_t sent = 0;
  uint64_t delivered = 0;
  uint64_t lost_no_receiver = 0;  // nothing open at the LID for the class
  uint64_t lost_queue_full = 0;
};

// See above. Used by one thread at a time; any thread.
class InprocMadGateway {
 public:
  virtual ~InprocMadGateway() = default;
  // Readable exactly while a MAD waits; -1 once closed.
  virtual int fd() const = 0;
  // Into the fabric as from port `slid`, to `dlid` (rules as Send above,
  // but a request's TID is kept).
  virtual Status SendFrom(uint16_t slid, const uint8_t* mad, size_t len, uint16_t dlid) = 0;
  // Non-blocking: a MAD sent to one of the gateway's LIDs (*dlid), or
  // -EAGAIN.
  virtual Status Receive(ReceivedMad* out, uint16_t* dlid) = 0;
};

class InprocMadFabric {
 public:
  explicit InprocMadFabric(size_t max_queue = 65536);
  ~InprocMadFabric();
  InprocMadFabric(const InprocMadFabric&) = delete;
  InprocMadFabric& operator=(const InprocMadFabric&) = delete;

  // A transport for the port at `lid` (closed until Open). Any thread.
  std::unique_ptr<MadTransport> NewTransport(uint16_t lid);
  // A gateway open at `lids` for `mgmt_class`, from now until destroyed.
  Status NewGateway(const std::vector<uint16_t>& lids, uint8_t mgmt_class,
                    std::unique_ptr<InprocMadGateway>* out);

  InprocMadCounters counters() const;
  // Transports open now.
  size_t open_count() const;

  struct State;  // shared with the transports

 private:
  std::shared_ptr<State> state_;
};

}  // namespace tree
}  // namespace ssa

#endif
