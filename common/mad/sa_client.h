// sa_client.h: the SA MAD service providers use: one SaClient per local
// port sends SA requests (SubnAdmGet(PathRecord), joins, ...) to the port's
// SM and hands back the answers.
//
// What it does for the caller:
//  - one umad agent for the SA class (0x03 v2, no RMPP) on the port; the
//    request goes to the SM LID/SL over QP1 with Q_Key 0x80010000;
//  - at most `sa_depth` requests in flight, the rest waiting; sa_depth is
//    clamped to 1..kSaMaxDepth (the simulated fabric deadlocks with a few
//    hundred MADs in flight per process);
//  - waiting requests are served fairly between the flows they belong to
//    (in ibacm a flow is the client whose request made the query, 0 the
//    daemon's own): FIFO within a flow, one request per flow in turn
//    (common/base/fair_queue.h), so a client that queues hundreds of
//    queries delays another's by at most one query per flow waiting, not
//    by hundreds (which could make it time out while queued);
//  - every request has its own budget, (retries + 1) tries' time from the
//    moment it was sent to us: time spent waiting in the queue counts, a
//    request whose budget ran out while queued fails with -ETIMEDOUT
//    without being sent, and the last try's timer ends at the budget. So a
//    dead SA costs each request at most its own timeout, never the sum of
//    the requests queued before it;
//  - its own timers and retries: the simulated fabric never reports a
//    timeout, so each try gets an EventLoop timer. A try the layer below
//    hands back with an error (ibsim bounces a MAD it cannot deliver with
//    status 110 at once; the kernel reports send errors) ends right away and
//    the next try goes out;
//  - transaction IDs it assigns itself, matched on the low 32 bits only:
//    bits 63:32 belong to the layer underneath (the kernel's MAD layer puts
//    its agent's hi_tid there, umad2sim puts its client id and agent id
//    there), so a response never carries the high half we sent;
//  - answers that match no pending try (unknown TID, already answered) are
//    dropped and counted in stats().stale_responses; short MADs, wrong class,
//    non-responses and wrong response methods are counted in
//    stats().malformed and logged.
//
// Retry policy: every try gets a NEW TID, and the TIDs of a request's
// earlier tries stay valid until the request is answered: a late answer to
// try 1 that arrives while try 2 is out completes the request (it is as
// good an answer), and whatever arrives afterwards for any of its TIDs is
// stale. Separate TIDs keep the kernel's bookkeeping unambiguous on real
// hardware: each try is its own kernel request, so a kernel timeout notice
// names exactly one try.
//
// Threading and ownership: everything runs on the EventLoop's thread; all
// methods must be called there. The loop and the logger are borrowed and
// must outlive the client. Callbacks run on the loop thread, never inside
// Send(), and may call Send(), CancelAll() or even destroy the client.
// Only one SaClient per port per process: umad2sim delivers by class, so a
// second SA agent in the process would steal the first one's answers.
// Run DiscoverPorts() (or UmadInitOnce()) on the main thread before the
// first Open(): umad2sim's first use is not thread-safe.
#ifndef IBACM_SSA_COMMON_MAD_SA_CLIENT_H
#define IBACM_SSA_COMMON_MAD_SA_CLIENT_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/fair_queue.h"
#include "common/base/log.h"
#include "common/base/status.h"
#include "common/mad/mad_transport.h"
#include "common/mad/umad_ports.h"

namespace ssa {

constexpr int kSaMaxDepth = 100;

struct SaClientOptions {
  int sa_depth = 1;       // upstream ibacm `sa_depth`
  int timeout_ms = 2000;  // upstream ibacm `timeout`, per try (capped at 10 min)
  // Added to timeout_ms for each try: the port's PortInfo:SubnetTimeout in
  // ms (see SubnetTimeoutToMs). umad does not report it, so the caller fills
  // it in when it knows it (ibv_query_port on hardware); 0 otherwise.
  int subnet_timeout_ms = 0;
  int retries = 2;          // upstream ibacm `retries`: tries = retries + 1
  uint16_t pkey_index = 0;  // P_Key table index for the requests (0 = default)
};

// 4.096 us * 2^code, rounded up to whole ms (code is 5 bits).
int SubnetTimeoutToMs(uint8_t code);

struct SaClientStats {
  uint64_t requests = 0;           // accepted by Send()
  uint64_t sent = 0;               // tries handed to the transport, retries included
  uint64_t retries = 0;            // tries after the first
  uint64_t received = 0;           // answers delivered to a callback
  uint64_t sa_status_errors = 0;   // ... of which carried a non-zero MAD status
  uint64_t try_timeouts = 0;       // tries whose timer ran out
  uint64_t timeouts = 0;           // requests failed with -ETIMEDOUT
  uint64_t errors = 0;             // send failures, transport-reported errors
  uint64_t stale_responses = 0;    // unknown or already answered TID
  uint64_t malformed = 0;          // bad MADs dropped
  uint64_t cancelled = 0;          // requests answered -ECANCELED
  uint64_t queued_peak = 0;        // longest wait queue seen
  uint64_t queued_flows_peak = 0;  // most flows with requests waiting at once
  uint64_t outstanding_peak = 0;   // most requests in flight at once
};

class SaClient {
 public:
  // status: 0 with the response (which may carry an SA error status: see
  // mad::MadStatus/DescribeMadStatus/MadStatusToErrno), -ETIMEDOUT after
  // all tries, -ECANCELED from CancelAll(), or another negative errno with
  // resp == nullptr and len == 0. `resp` is valid only during the call.
  using Callback = std::function<void(int status, const uint8_t* resp, size_t len)>;

  // Uses a UmadTransport on `port.ca_name`/`port.port_num`, sending to
  // `port.sm_lid`/`port.sm_sl`.
  SaClient(EventLoop* loop, Logger* logger, const UmadPort& port, const SaClientOptions& options);
  // Same with a caller-provided transport (tests, fault injection).
  SaClient(EventLoop* loop, Logger* logger, const UmadPort& port, const SaClientOptions& options,
           std::unique_ptr<MadTransport> transport);
  // Drops pending requests WITHOUT calling their callbacks (call CancelAll()
  // first to have them answered); cancels timers, unwatches and closes.
  ~SaClient();
  SaClient(const SaClient&) = delete;
  SaClient& operator=(const SaClient&) = delete;

  // Opens the transport, registers the SA agent and watches its fd.
  Status Open();

  // The SM moved (or appeared: lid 0 = no SM). Queued requests and every
  // later try, retries included, go to the new SM; tries already in flight
  // keep their timers. While the SM LID is 0, Send() and the dispatch of
  // queued requests fail with -EHOSTUNREACH.
  void UpdateSm(uint16_t sm_lid, uint8_t sm_sl);

  // Queues an SA request. `mad` is an SA MAD (class 0x03, a request method
  // the SA answers); `len` 24..256, padded with zeros to 256. Its TID is
  // replaced. On error the callback is never called; otherwise it is called
  // exactly once (unless the client is destroyed first). `flow`: whose
  // share of the queue the request waits in (see above).
  Status Send(const uint8_t* mad, size_t len, Callback done, uint64_t flow = 0);

  // Answers every queued and in-flight request with -ECANCELED, oldest
  // first. Late answers to them are then stale.
  void CancelAll();

  const SaClientStats& stats() const { return stats_; }
  size_t outstanding() const { return active_.size(); }
  size_t queued() const { return queue_.size(); }
  // Flows with requests waiting.
  size_t queued_flows() const { return queue_.owners(); }
  int sa_depth() const { return depth_; }
  int try_timeout_ms() const { return try_timeout_ms_; }
  uint16_t sm_lid() const { return sm_lid_; }
  uint8_t sm_sl() const { return sm_sl_; }

 private:
  struct Request {
    uint64_t id = 0;
    uint64_t flow = 0;
    uint8_t mad[mad::kMadSize] = {};
    Callback done;
    int tries = 0;                          // tries sent so far
    uint32_t tid = 0;                       // current try
    std::vector<uint32_t> tids;             // every try's TID
    EventLoop::TimerId timer = 0;           // current try's timer (queued: the budget's)
    EventLoop::Clock::time_point deadline;  // the end of its budget
  };

  void ApplyOptions(const SaClientOptions& options);
  uint32_t NextTid();
  // Sends a new try of `req` (new TID, timer armed). On error nothing is
  // registered for the try.
  Status StartTry(Request* req);
  // Starts queued requests while there is room.
  void Pump();
  void OnReadable();
  // Returns false if the client was destroyed meanwhile.
  bool HandleMad(const ReceivedMad& rx);
  void OnTryTimeout(uint64_t id, uint32_t tid);
  // A queued request's budget ran out before it could be sent.
  void OnQueuedTimeout(uint64_t id, uint64_t flow);
  // The current try of `id` failed with `err`: retry or finish.
  bool RetryOrFail(uint64_t id, int err);
  // Removes request `id` and calls its callback. Returns false if the
  // callback destroyed the client.
  bool Finish(uint64_t id, int status, const uint8_t* resp, size_t len);
  void Forget(Request* req);

  EventLoop* const loop_;
  Logger* const logger_;
  const std::string ca_name_;
  const int port_num_;
  std::unique_ptr<MadTransport> transport_;
  int depth_ = 1;
  int try_timeout_ms_ = 2000;
  int retries_ = 2;
  uint16_t pkey_index_ = 0;
  uint16_t sm_lid_ = 0;
  uint8_t sm_sl_ = 0;
  bool open_ = false;
  int watched_fd_ = -1;
  static constexpr int kMaxReceiveErrorsInARow = 100;
  int receive_errors_in_a_row_ = 0;

  uint64_t next_request_id_ = 1;
  uint32_t next_tid_ = 1;
  FairQueue<std::unique_ptr<Request>> queue_;                      // waiting, by flow
  std::unordered_map<uint64_t, std::unique_ptr<Request>> active_;  // in flight, by id
  std::unordered_map<uint32_t, uint64_t> tid_to_request_;          // low 32 TID bits -> id
  SaClientStats stats_;
  // Timers and the fd handler hold weak references to this token and do
  // nothing once it is gone (a timer collected in the same loop iteration
  // as the one that destroyed the client may still run).
  std::shared_ptr<char> alive_;
};

}  // namespace ssa

#endif
