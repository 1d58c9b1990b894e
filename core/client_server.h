// client_server.h: the sockets clients (librdmacm, ib_acme) talk to.
//
// Listens on a unix socket and/or TCP (upstream's server_mode unix, loop,
// open), accepts up to Limits::max_clients connections (more are accepted
// and closed at once, so they fail fast instead of waiting in the backlog;
// the daemon's default, DefaultMaxClients(), keeps descriptors for its own
// use), reassembles messages from partial reads, and hands each complete
// message to the Handler. Replies go
// out through Send(), buffered per connection so one slow reader never
// blocks the loop or other clients. Malformed framing (bad version, bad or
// oversized length) closes that connection, and so does a message left
// incomplete for Limits::client_timeout (a client that stalls halfway would
// otherwise hold its descriptor and buffer for ever; idle clients between
// messages are fine: librdmacm keeps its connection open). Each case is
// counted and logged,
// at most one line per kind every few seconds (a hostile client can cause
// thousands a second).
//
// One client's share of the daemon is bounded, so that a client sending as
// fast as it can does not slow the others down:
//  - turns: in one iteration of the loop, each client whose socket is
//    ready has one message handled; a client with more waits on the turn
//    list (ready_) and is not watched for input meanwhile. The list hands
//    out turns of Limits::read_budget messages in order, one budget's
//    worth per iteration in all. So a request from a client that sends
//    one at a time waits for one message of each client ready with it and
//    about one budget of the clients that send many, however many they
//    are, and those take turns round robin;
//  - backpressure: a client with Limits::max_inflight requests in flight
//    (handed to the Handler, not yet answered), or with more than
//    Limits::output_high_water bytes of answers it has not read, is not
//    read at all until answers go out. Its messages wait in its socket;
//    nothing is dropped and the client is not closed for it, nor timed
//    out (client_timeout counts only while the client is read);
//  - the SA queries its requests cause wait in its own share of the SA
//    queue (ProviderHost::FlowScope, common/mad/sa_client.h).
// A client sending one request at a time never meets any of these.
//
// When accept() fails for want of descriptors (EMFILE, ENFILE) or memory,
// the pending connection stays in the backlog and epoll reports the
// listener again at once: retrying then would spin. Accepting pauses
// instead (the listeners are unwatched) until a client closes or
// Limits::accept_retry passes, whichever comes first.
//
// Owned by the daemon; borrows the EventLoop and Logger (which must outlive
// it). Loop thread only.
#ifndef IBACM_SSA_CORE_CLIENT_SERVER_H
#define IBACM_SSA_CORE_CLIENT_SERVER_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/rate_limit.h"
#include "common/base/status.h"

namespace ssa {

class ClientServer {
 public:
  using ClientId = uint64_t;  // never reused within one server

  class Handler {
   public:
    virtual ~Handler() = default;
    // One complete, framed message (header checked, length exact). Each
    // is a request in flight until answered with one Send() (the acm.h
    // protocol answers every request once), or until the client is closed.
    virtual void OnMessage(ClientId client, const uint8_t* msg, size_t len) = 0;
    // The connection is gone; answers for it will be dropped.
    virtual void OnDisconnect(ClientId client) { (void)client; }
  };

  struct Stats {
    uint64_t accepted = 0;
    uint64_t closed = 0;
    uint64_t messages = 0;
    uint64_t bad_frames = 0;       // bad version or length: connection closed
    uint64_t truncated = 0;        // connection closed mid-message
    uint64_t send_overflows = 0;   // client never read its answers
    uint64_t dropped_replies = 0;  // answer for a client already gone
    uint64_t accept_failures = 0;  // accept() failed (out of descriptors, memory)
    uint64_t refused = 0;          // closed at once: max_clients reached
    uint64_t timeouts = 0;         // closed: a message left incomplete too long
    // Backpressure and turns (see above): times a client stopped being
    // read at its in-flight cap, or with too many answers unread; turns
    // that ended with a client's messages left for its next turn.
    uint64_t paused_inflight = 0;
    uint64_t paused_output = 0;
    uint64_t budget_spent = 0;
    size_t paused = 0;  // clients not read now (either reason)
    size_t open = 0;
    size_t peak_open = 0;
  };

  struct Limits {
    size_t max_clients = 0;  // connections at once; 0: no limit
    // How long a client may take to complete a message after the previous
    // one (or after it began sending); 0: for ever.
    std::chrono::milliseconds client_timeout{0};
    // How long accepting stays paused after accept() failed, unless a
    // client closes (and frees a descriptor) first.
    std::chrono::milliseconds accept_retry{100};
    // Messages handled per client per turn; 0: no budget.
    size_t read_budget = 8;
    // Requests one client may have in flight; 0: no cap.
    size_t max_inflight = 32;
    // Bytes of answers a client may leave unread and still be read; 0: no
    // bound (short of the connection being dropped at 1 MiB).
    size_t output_high_water = 64 * 1024;
  };

  // Descriptors the default client limit leaves to the daemon itself:
  // ports, providers, the tree's channels, the log, files it writes.
  static constexpr uint64_t kReservedFds = 256;
  // The default Limits::max_clients under a descriptor limit (RLIMIT_NOFILE)
  // of `fd_limit`: that limit less kReservedFds, or half a limit too small
  // to spare them; 0 (no limit) for an unlimited `fd_limit`.
  static size_t DefaultMaxClients(uint64_t fd_limit);

  ClientServer(EventLoop* loop, Logger* log, Handler* handler);
  ~ClientServer();
  ClientServer(const ClientServer&) = delete;
  ClientServer& operator=(const ClientServer&) = delete;

  // Unix socket at `path` (replaced if present); `link`, if not empty, is a
  // symlink to it (upstream's /run/ibacm.sock).
  Status ListenUnix(const std::string& path, const std::string& link);
  // Serves `fd`, a listening unix stream socket someone else made (systemd's
  // socket activation): it is made non-blocking, and its file and any link
  // belong to that someone, so Shutdown() closes it but removes nothing.
  // Fails, leaving fd open, if it is not a listening AF_UNIX SOCK_STREAM
  // socket.
  Status AdoptUnix(int fd);
  // TCP on `port` (0: any free port), loopback only or all addresses;
  // writes the port number into `port_file` (and links `port_link` to it).
  Status ListenTcp(int port, bool loopback_only, const std::string& port_file,
                   const std::string& port_link);
  int tcp_port() const { return tcp_port_; }
  // Before the first client connects.
  void set_limits(const Limits& limits) { limits_ = limits; }
  const Limits& limits() const { return limits_; }

  // Queues `len` bytes for `client`, the answer to one of its requests in
  // flight; false if the client is gone.
  bool Send(ClientId client, const uint8_t* data, size_t len);
  void Close(ClientId client, const char* reason);
  bool IsOpen(ClientId client) const { return clients_.count(client) != 0; }
  const Stats& stats() const { return stats_; }
  // False while accepting is paused (see above).
  bool accepting() const { return !accept_paused_; }

  // Stops listening and closes every connection (files are removed).
  void Shutdown();

 private:
  struct Connection {
    int fd = -1;
    ClientId id = 0;
    std::vector<uint8_t> in;  // unparsed bytes
    // When the incomplete message in `in` began (or the last complete one
    // ended); the timer closes the connection client_timeout after it.
    EventLoop::Clock::time_point partial_since{};
    EventLoop::TimerId timeout_timer = 0;  // 0: none
    std::string out;                       // unsent bytes
    uint32_t events = 0;                   // what the loop watches the fd for
    size_t in_flight = 0;                  // requests handed over, not answered
    bool batching = false;                 // answers collect in `out` until its turn ends
    bool paused = false;                   // not read: backpressure (see above)
    bool waiting_turn = false;             // on ready_, its messages left for its next turn
    uint64_t served_in = 0;                // the loop iteration of its last turn
  };
  enum class Throttle { kNone, kInFlight, kOutput };

  void OnAccept(int listen_fd);
  void OnEvents(Connection* c, uint32_t events);
  // One turn of `c`: the messages it left last time, then what it sends,
  // up to `budget` of them; then it is watched, paused or queued.
  void Serve(Connection* c, size_t budget);
  size_t TurnBudget() const { return limits_.read_budget ? limits_.read_budget : SIZE_MAX; }
  // Hands complete messages to the handler while `*budget` lasts and `c`
  // is not throttled, then sends the answers. False if `c` was closed.
  bool ParseInput(Connection* c, size_t* budget);
  bool HasMessage(const Connection& c) const;
  Throttle Throttled(const Connection& c) const;
  void AfterTurn(Connection* c);
  void QueueTurn(Connection* c);
  void RunTurns();
  void ArmTurns();
  // An answer left: a paused client may be read again.
  void MaybeResume(Connection* c);
  // Sends what `out` holds; false if `c` was closed.
  bool Flush(Connection* c);
  void OnWritable(Connection* c);
  void UpdateInterest(Connection* c);
  void ArmTimeout(Connection* c);
  void OnTimeout(ClientId id);
  // `kind` (for warnings) rate-limits the log line per kind.
  void CloseConnection(ClientId id, const char* reason, LogLevel level, const char* kind = nullptr);
  Status WatchListener(int fd);
  Status WatchAccept(int fd);
  void PauseAccepting();
  void ResumeAccepting();

  EventLoop* loop_;
  Logger* log_;
  Handler* handler_;
  std::vector<int> listen_fds_;
  std::vector<std::string> files_;  // removed at shutdown
  int tcp_port_ = 0;
  ClientId next_id_ = 1;
  std::unordered_map<ClientId, std::unique_ptr<Connection>> clients_;
  Stats stats_;
  Limits limits_;
  bool accept_paused_ = false;
  EventLoop::TimerId accept_timer_ = 0;  // resumes accepting; 0: none
  std::deque<ClientId> ready_;           // clients waiting for their next turn, in order
  EventLoop::TimerId turns_timer_ = 0;   // runs RunTurns; 0: none
  RateLimitedLog limited_;
};

}  // namespace ssa

#endif
