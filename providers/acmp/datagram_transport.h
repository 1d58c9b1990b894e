// datagram_transport.h: unreliable datagrams (InfiniBand UD semantics) and
// multicast for the acmp provider, behind one interface with two backends
// (think leveldb's Env):
//
//   verbs_datagram.h  a UD QP per endpoint on a real HCA: ibv_post_send with
//                     an address handle, ibv_attach_mcast, completions
//                     through a completion channel fd;
//   sim_datagram.h    the simulated fabric, where node-to-node MADs cannot
//                     carry this traffic (umad2sim delivers unsolicited MADs
//                     to the SM's process only): unix datagram sockets in a
//                     directory shared by the daemons of one fabric.
//
// What a user sees is the same in both: an endpoint has a QPN and a Q_Key,
// sends a datagram of at most kMaxPayload bytes to (address vector, QPN,
// Q_Key) or to a multicast group it joined, and receives datagrams with what
// a receive completion carries (source LID, QPN, SL, and the GRH's source
// GID). Delivery is not guaranteed and not ordered; a send that cannot be
// delivered is dropped quietly, as on the wire. A multicast send reaches
// every endpoint attached to the group, the sender included (IB multicast
// loopback); receivers drop their own datagrams if they do not want them.
//
// The group join itself is the caller's business: it does the SA
// MCMemberRecord join first and calls Join() with what the SA answered, so
// the simulated backend only lists members the real SA accepted.
//
// Faults (tests): WithFaults() wraps any endpoint and drops or delays what
// it receives, leveldb's EnvWrapper style.
//
// Ownership: a transport outlives the endpoints it opened; an endpoint owns
// its fds and buffers. Threads: an endpoint is used from one thread (the
// core's event loop). Its fd() reads ready when something new arrived; it
// need not stay ready for what is left (verbs: completions still in the CQ
// raise no new completion-channel event; WithFaults: datagrams that came
// due together wake it once). So when fd() reads ready, call Receive()
// until it returns false, now or later, on the caller's own initiative.
#ifndef IBACM_SSA_PROVIDERS_ACMP_DATAGRAM_TRANSPORT_H
#define IBACM_SSA_PROVIDERS_ACMP_DATAGRAM_TRANSPORT_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "common/base/status.h"

namespace ssa {
namespace dgram {

// A UD payload: ACM MADs are 256 bytes.
constexpr size_t kMaxPayload = 256;
// The destination QPN of a multicast send (IBA: 0xFFFFFF).
constexpr uint32_t kMulticastQpn = 0xffffff;

struct Gid {
  uint8_t raw[16] = {};
  bool IsZero() const {
    for (uint8_t b : raw)
      if (b) return false;
    return true;
  }
  friend bool operator==(const Gid& a, const Gid& b) { return !memcmp(a.raw, b.raw, 16); }
  friend bool operator!=(const Gid& a, const Gid& b) { return !(a == b); }
};

// Who an endpoint is on the fabric. Host order, GIDs as wire bytes.
struct EndpointParams {
  std::string ca_name;  // e.g. "mlx5_0"; "ibsim0" on the simulated fabric
  uint8_t port_num = 1;
  uint16_t lid = 0;  // the port's base LID
  uint8_t lmc = 0;
  Gid gid;  // the port's GID at index 0
  uint16_t pkey = 0xffff;
  uint16_t pkey_index = 0;
  uint32_t qkey = 0;
  uint32_t send_depth = 16;    // sends in flight in the backend (verbs SQ size)
  uint32_t recv_depth = 1024;  // receive buffers posted (verbs)
};

// Where a datagram goes, as struct ibv_ah_attr says it.
struct AddressVector {
  uint16_t dlid = 0;
  uint8_t sl = 0;
  uint8_t src_path_bits = 0;
  uint8_t static_rate = 0;  // IBA rate code; 0: the port's rate
  bool global = false;      // send a GRH (always for multicast)
  Gid dgid;
  uint32_t flow_label = 0;
  uint8_t hop_limit = 0;
  uint8_t traffic_class = 0;
};

struct UnicastTarget {
  AddressVector av;
  uint32_t qpn = 0;
  uint32_t qkey = 0;
};

// A multicast group the caller joined through the SA: its MGID, MLID and an
// address vector built from the SA's MCMemberRecord (dlid = MLID, global,
// dgid = MGID, SL/flow/hop/tclass/rate of the group).
struct Group {
  Gid mgid;
  uint16_t mlid = 0;
  AddressVector av;
};

// One received datagram and what its receive completion said.
struct Datagram {
  uint8_t data[kMaxPayload];
  size_t len = 0;
  uint16_t slid = 0;
  uint32_t src_qpn = 0;
  uint8_t sl = 0;
  uint8_t dlid_path_bits = 0;
  bool has_grh = false;
  Gid sgid;  // valid with has_grh
  Gid dgid;  // valid with has_grh: the MGID for multicast
  bool multicast = false;
};

// Why a backend dropped a datagram on receipt (EndpointStats::rejected_by).
enum class RejectReason : int {
  kBadHeader,      // (sim) framing: magic, version or length wrong
  kWrongQpn,       // (sim) not for this QPN
  kNotMember,      // (sim) multicast to a group this endpoint has not joined
  kWrongQkey,      // (sim) Q_Key is not the endpoint's
  kWrongPkey,      // (sim) P_Key does not match the endpoint's partition
  kBadCompletion,  // (verbs) receive completion with an error status
  kBadLength,      // (verbs) completion length outside GRH + kMaxPayload
  kCount
};
// "wrong Q_Key", ...
const char* RejectReasonName(RejectReason why);

struct EndpointStats {
  uint64_t sent = 0;         // datagrams handed on (a group send counts once)
  uint64_t send_errors = 0;  // sends refused by the backend
  uint64_t received = 0;     // datagrams returned by Receive()
  uint64_t rejected = 0;     // dropped on receipt: bad header, wrong Q_Key/P_Key/QPN
  uint64_t rejected_by[static_cast<int>(RejectReason::kCount)] = {};  // `rejected`, by reason
  uint64_t undeliverable = 0;    // (sim) a target that no longer exists
  uint64_t injected_drops = 0;   // WithFaults: dropped on purpose
  uint64_t injected_delays = 0;  // WithFaults: held back on purpose
};

class DatagramEndpoint {
 public:
  virtual ~DatagramEndpoint() = default;

  virtual uint32_t qpn() const = 0;
  virtual const EndpointParams& params() const = 0;
  // Readable (EPOLLIN) when something new arrived (see above: not level).
  virtual int fd() const = 0;

  // Unicast. Fails only when the backend refuses (bad address; -EAGAIN: its
  // send queue is full, and fd() reads ready once a send completed and
  // Receive() was called); a datagram lost on the way is not an error.
  virtual Status Send(const UnicastTarget& to, const uint8_t* data, size_t len) = 0;
  // To every endpoint attached to `group` (Join()), the sender included.
  virtual Status SendToGroup(const Group& group, const uint8_t* data, size_t len) = 0;

  // Attaches the endpoint to a group the SA has just let it join.
  virtual Status Join(const Group& group) = 0;
  virtual Status Leave(const Group& group) = 0;

  // The next datagram, if one is ready now.
  virtual bool Receive(Datagram* out) = 0;

  virtual const EndpointStats& stats() const = 0;
};

class DatagramTransport {
 public:
  virtual ~DatagramTransport() = default;
  virtual const char* name() const = 0;
  virtual Status Open(const EndpointParams& params, std::unique_ptr<DatagramEndpoint>* out) = 0;
};

// Faults injected on the receiving side of one endpoint.
struct FaultOptions {
  double drop_probability = 0;   // 0..1, per received datagram
  uint32_t delay_ms = 0;         // every datagram held back this long
  uint32_t delay_jitter_ms = 0;  // plus a uniform 0..jitter extra (reorders)
  uint64_t seed = 1;             // deterministic drops for tests
  bool active() const { return drop_probability > 0 || delay_ms > 0 || delay_jitter_ms > 0; }
};

// Wraps `inner`: received datagrams are dropped with the given probability
// and the others delivered after the delay. The wrapper's fd() is an epoll
// fd over the inner fd and a timerfd for delayed datagrams. On failure to
// create those fds, *out stays null and the Status says why.
Status WithFaults(std::unique_ptr<DatagramEndpoint> inner, const FaultOptions& faults,
                  std::unique_ptr<DatagramEndpoint>* out);

// "fe80::2:c903:0:1f12".
std::string GidText(const Gid& gid);

}  // namespace dgram
}  // namespace ssa

#endif
