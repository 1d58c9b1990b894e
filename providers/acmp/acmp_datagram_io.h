// acmp_datagram_io.h: one acmp endpoint's datagram I/O: its datagram
// endpoint (a UD QP, or the simulated backend's socket) watched on the
// core's loop, received datagrams handed on in batches, unicast responses
// through a bounded send queue, multicast to a group, and the counters of
// all of it (the transport's, the queue's and the protocol's, which the
// provider's ACM handling adds to through stats()).
//
// Draining: at most kDrainBatch datagrams per wake-up, so one busy endpoint
// cannot starve the loop. The fd need not wake us again for what is left
// (verbs: completions still in the CQ raise no new channel event), so
// Drain() continues itself through a 0 ms timer, after whatever else is
// ready now. After each batch the send queue is flushed: a send completion
// may have made room.
//
// Ownership: owns the datagram endpoint and the send queue. Close() stops
// the fd watch and the drain timer and must run before it is destroyed
// while the Reactor still lives. Borrows the Reactor and the log, which
// outlive it. Threads: the core's loop thread only.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_DATAGRAM_IO_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_DATAGRAM_IO_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "providers/acmp/acmp_loop.h"
#include "providers/acmp/acmp_send_queue.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace acmp {

// Datagram-level problems and traffic, counted per endpoint (and logged,
// rate-limited, by whoever counts them).
struct ProtocolStats {
  uint64_t malformed[static_cast<int>(DecodeError::kCount)] = {};
  uint64_t malformed_total = 0;
  uint64_t no_grh = 0;  // requests/responses without a GRH
  uint64_t unexpected_responses = 0;
  uint64_t own_requests = 0;  // our own multicast, looped back
  uint64_t requests_received = 0;
  uint64_t responses_received = 0;
  uint64_t responses_sent = 0;
  uint64_t requesters_cached = 0;  // receivers caching the sender
  uint64_t no_shared_group = 0;
  uint64_t cache_full = 0;
};

// Responses waiting for the backend's send queue (SendQueue), per endpoint,
// at most this many; more are dropped, counted and warned about.
constexpr size_t kSendQueueBound = 1024;

class DatagramIo {
 public:
  struct Callbacks {
    // Each received datagram, in order.
    std::function<void(const dgram::Datagram& dg)> on_datagram;
    // Starts calling Drain() whenever `fd` reads ready (0 or -errno);
    // stops it.
    std::function<int(int fd)> watch;
    std::function<void(int fd)> unwatch;
  };

  // `name` labels log lines; `send_depth` (the option) is quoted when
  // responses are dropped.
  DatagramIo(Reactor* reactor, ProviderLog* log, Callbacks callbacks, std::string name,
             int send_depth);
  DatagramIo(const DatagramIo&) = delete;
  DatagramIo& operator=(const DatagramIo&) = delete;

  // Takes `ud` and watches its fd; on failure returns the -errno of the
  // watch (the endpoint is kept, unwatched).
  int Start(std::unique_ptr<dgram::DatagramEndpoint> ud);
  // Swaps in `ud` (readdressed: a new LID or GID); with `ud` null keeps the
  // old one. Either way the fd is watched anew.
  void Rebind(std::unique_ptr<dgram::DatagramEndpoint> ud);
  // Stops the watch and the drain timer.
  void Close();

  // Receives and hands on a batch, notes the transport's rejections and
  // flushes the send queue (see above).
  void Drain();
  // Sends a unicast response (`to_name` for the log), or queues it while
  // the backend is full.
  void SendResponse(const dgram::UnicastTarget& to, const uint8_t* data, size_t len,
                    const std::string& to_name);
  // Multicasts to `group`; false (logged at debug) when it could not.
  bool SendToGroup(const dgram::Group& group, const uint8_t* data, size_t len);

  dgram::DatagramEndpoint* endpoint() const { return ud_.get(); }
  ProtocolStats& stats() { return stats_; }
  const ProtocolStats& stats() const { return stats_; }
  // Every counter, one line (the periodic stats line).
  std::string StatsText() const;
  // Logs StatsText() when it changed since it was last logged (or since
  // Start()).
  void LogStatsIfChanged();

 private:
  void NoteRejects();
  void FlushSends();

  Reactor* reactor_;
  ProviderLog* log_;
  Callbacks cb_;
  std::string name_;
  int send_depth_;
  std::unique_ptr<dgram::DatagramEndpoint> ud_;
  bool fd_watched_ = false;
  uint64_t drain_timer_ = 0;  // Drain() continues: a batch left datagrams behind
  SendQueue sends_;           // responses the backend had no room for yet
  ProtocolStats stats_;
  // The transport's rejected_by counts already logged about.
  uint64_t rejects_seen_[static_cast<int>(dgram::RejectReason::kCount)] = {};
  std::string stats_logged_;  // StatsText() when last logged (or started)
};

}  // namespace acmp
}  // namespace ssa

#endif
