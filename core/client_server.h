// client_server.h: the sockets clients (librdmacm, ib_acme) talk to.
//
// Listens on a unix socket and/or TCP (upstream's server_mode unix, loop,
// open), accepts up to Limits::max_clients connections (more are accepted
// and closed at once, so they fail fast instead of waiting in the backlog),
// reassembles messages from partial reads, and hands each complete message
// to the Handler. Replies go
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
    // One complete, framed message (header checked, length exact).
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
  };

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

  // Queues `len` bytes for `client`; false if the client is gone.
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
    bool want_write = false;
  };

  void OnAccept(int listen_fd);
  void OnReadable(Connection* c);
  void OnWritable(Connection* c);
  void ParseInput(Connection* c);
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
  RateLimitedLog limited_;
};

}  // namespace ssa

#endif
