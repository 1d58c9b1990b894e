// client_server.cc: non-blocking accept/read/write on the event loop.
#include "core/client_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "common/base/file_io.h"
#include "common/base/raw_fd.h"

namespace ssa {

namespace {
// A client that leaves this much unread is not reading: drop it rather than
// buffer without bound.
constexpr size_t kMaxPendingOutput = 1 << 20;

// True when a connect to the unix socket `path` is accepted (a blocking
// connect to a listening socket returns at once, its backlog permitting).
bool SomeoneListensOn(const std::string& path) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof(addr.sun_path)) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool listening = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 ||
                   errno == EAGAIN;  // a full backlog: someone listens
  RawClose(fd);
  return listening;
}

void ReplaceSymlink(const std::string& target, const std::string& link, Logger* log) {
  if (link.empty() || link == target) return;
  unlink(link.c_str());
  if (symlink(target.c_str(), link.c_str()) < 0)
    SSA_LOG(*log, kWarn, "cannot create symlink %s -> %s: %s", link.c_str(), target.c_str(),
            strerror(errno));
}
}  // namespace

size_t ClientServer::DefaultMaxClients(uint64_t fd_limit) {
  if (fd_limit == static_cast<uint64_t>(RLIM_INFINITY)) return 0;
  uint64_t clients = fd_limit > 2 * kReservedFds ? fd_limit - kReservedFds : fd_limit / 2;
  return static_cast<size_t>(std::max<uint64_t>(clients, 1));
}

ClientServer::ClientServer(EventLoop* loop, Logger* log, Handler* handler)
    : loop_(loop), log_(log), handler_(handler), limited_(log, std::chrono::seconds(5)) {}

ClientServer::~ClientServer() { Shutdown(); }

Status ClientServer::WatchAccept(int fd) {
  return loop_->WatchFd(fd, EPOLLIN, [this, fd](uint32_t) { OnAccept(fd); });
}

Status ClientServer::WatchListener(int fd) {
  // A listener added while accepting is paused is watched on resuming.
  Status st = accept_paused_ ? Status::Ok() : WatchAccept(fd);
  if (!st.ok()) {
    RawClose(fd);
    return st;
  }
  listen_fds_.push_back(fd);
  return Status::Ok();
}

void ClientServer::PauseAccepting() {
  if (accept_paused_) return;
  accept_paused_ = true;
  for (int fd : listen_fds_) loop_->UnwatchFd(fd);
  accept_timer_ = loop_->AddTimer(limits_.accept_retry, [this] {
    accept_timer_ = 0;
    ResumeAccepting();
  });
}

// Pending connections make the listeners readable at once, so the next
// loop iteration accepts them; if descriptors are still short, that
// accept() fails and pauses again.
void ClientServer::ResumeAccepting() {
  if (!accept_paused_) return;
  accept_paused_ = false;
  if (accept_timer_) loop_->CancelTimer(accept_timer_);
  accept_timer_ = 0;
  for (int fd : listen_fds_) {
    Status st = WatchAccept(fd);
    if (!st.ok())
      limited_.Log(LogLevel::kError, "watch-listener", "cannot watch listening socket: %s",
                   st.ToString().c_str());
  }
}

Status ClientServer::ListenUnix(const std::string& path, const std::string& link) {
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  // The socket appears under its name only once it listens: bound to a
  // temporary name, then renamed. A client that polls for the file (or
  // starts together with the daemon) never connects between bind() and
  // listen() and gets ECONNREFUSED.
  const std::string bound = path + ".new";
  if (bound.size() >= sizeof(addr.sun_path))
    return Status::Error(ENAMETOOLONG, "unix socket path too long: " + path);
  std::memcpy(addr.sun_path, bound.c_str(), bound.size() + 1);
  // The rename below would take the name from a daemon that serves it;
  // a socket nobody listens on any more (a crash) is replaced.
  if (SomeoneListensOn(path))
    return Status::Error(EADDRINUSE, "unix socket " + path +
                                         " is in use: another daemon serves it (stop it, or give "
                                         "this one another socket: -R or unix_socket)");
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("socket(AF_UNIX)");
  unlink(bound.c_str());
  // Any local user may resolve, as upstream allows.
  mode_t old_mask = umask(0);
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  umask(old_mask);
  if (rc < 0 || listen(fd, SOMAXCONN) < 0) {
    Status st = Status::FromErrno("cannot listen on " + path);
    unlink(bound.c_str());
    RawClose(fd);
    return st;
  }
  if (rename(bound.c_str(), path.c_str()) < 0) {
    Status st = Status::FromErrno("cannot rename " + bound + " to " + path);
    unlink(bound.c_str());
    RawClose(fd);
    return st;
  }
  files_.push_back(path);
  ReplaceSymlink(path, link, log_);
  if (!link.empty() && link != path) files_.push_back(link);
  SSA_LOG(*log_, kInfo, "listening on unix socket %s", path.c_str());
  return WatchListener(fd);
}

Status ClientServer::AdoptUnix(int fd) {
  const std::string what = "descriptor " + std::to_string(fd);
  int domain = 0, type = 0, listening = 0;
  socklen_t len = sizeof(int);
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) < 0)
    return Status::FromErrno(what + " is not a socket");
  len = sizeof(int);
  getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len);
  len = sizeof(int);
  getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len);
  if (domain != AF_UNIX || type != SOCK_STREAM || !listening)
    return Status::Error(EINVAL, what + " is not a listening unix stream socket (domain " +
                                     std::to_string(domain) + ", type " + std::to_string(type) +
                                     (listening ? ", listening)" : ", not listening)"));
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    return Status::FromErrno("cannot make " + what + " non-blocking");
  struct sockaddr_un addr = {};
  len = sizeof(addr);
  std::string name = "(unnamed)";
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0 &&
      len > offsetof(sockaddr_un, sun_path) && addr.sun_path[0] != '\0')
    name.assign(addr.sun_path, strnlen(addr.sun_path, sizeof(addr.sun_path)));
  SSA_LOG(*log_, kInfo, "listening on unix socket %s (descriptor %d from systemd)", name.c_str(),
          fd);
  return WatchListener(fd);
}

Status ClientServer::ListenTcp(int port, bool loopback_only, const std::string& port_file,
                               const std::string& port_link) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::FromErrno("socket(AF_INET)");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  struct sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = ToBe16(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = ToBe32(loopback_only ? INADDR_LOOPBACK : INADDR_ANY);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) < 0 || listen(fd, SOMAXCONN) < 0) {
    Status st = Status::FromErrno("cannot listen on TCP port " + std::to_string(port));
    RawClose(fd);
    return st;
  }
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  tcp_port_ = FromBe16(addr.sin_port);
  if (!port_file.empty()) {
    Status st = WriteFileAtomically(port_file, std::to_string(tcp_port_) + "\n");
    if (!st.ok())
      SSA_LOG(*log_, kWarn, "cannot publish port: %s", st.ToString().c_str());
    else
      files_.push_back(port_file);
    ReplaceSymlink(port_file, port_link, log_);
    if (!port_link.empty() && port_link != port_file) files_.push_back(port_link);
  }
  SSA_LOG(*log_, kInfo, "listening on TCP port %d (%s)", tcp_port_,
          loopback_only ? "loopback only" : "all addresses");
  return WatchListener(fd);
}

void ClientServer::OnAccept(int listen_fd) {
  // Drain the backlog: many clients may connect between two loop iterations.
  while (!accept_paused_) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      // The client gave up before we accepted it: on to the next one.
      if (errno == EINTR || errno == ECONNABORTED) continue;
      // EMFILE and friends: keep serving the clients we have, and try
      // again once one closes or after accept_retry.
      ++stats_.accept_failures;
      limited_.Log(LogLevel::kWarn, "accept",
                   "accept failed: %s; not accepting clients for %lld ms or until one closes",
                   strerror(errno), static_cast<long long>(limits_.accept_retry.count()));
      PauseAccepting();
      return;
    }
    if (limits_.max_clients && clients_.size() >= limits_.max_clients) {
      ++stats_.refused;
      limited_.Log(LogLevel::kWarn, "max-clients",
                   "refusing a client: %zu connected, the most max_clients allows",
                   clients_.size());
      RawClose(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // fails harmlessly on unix
    auto conn = std::make_unique<Connection>();
    conn->fd = fd;
    conn->id = next_id_++;
    Connection* c = conn.get();
    c->events = EPOLLIN | EPOLLRDHUP;
    Status st = loop_->WatchFd(fd, c->events, [this, c](uint32_t ev) { OnEvents(c, ev); });
    if (!st.ok()) {
      limited_.Log(LogLevel::kWarn, "watch-client", "cannot watch client fd: %s",
                   st.ToString().c_str());
      RawClose(fd);
      continue;
    }
    clients_[c->id] = std::move(conn);
    ++stats_.accepted;
    stats_.open = clients_.size();
    if (stats_.open > stats_.peak_open) stats_.peak_open = stats_.open;
    SSA_LOG(*log_, kTrace, "client %llu connected (fd %d)", static_cast<unsigned long long>(c->id),
            fd);
  }
}

void ClientServer::OnEvents(Connection* c, uint32_t ev) {
  ClientId id = c->id;
  bool reading = !c->paused && !c->waiting_turn;
  if (!reading && (ev & (EPOLLHUP | EPOLLERR))) {
    // Gone while we were not reading it (the hang-up is reported whether
    // watched or not): nobody is left to take the answers.
    CloseConnection(id, "disconnected", LogLevel::kTrace);
    return;
  }
  // One message at once; the rest, if any, waits for the turn list.
  if (reading && (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))) Serve(c, 1);
  if (clients_.count(id) && (ev & EPOLLOUT)) OnWritable(c);
}

void ClientServer::Serve(Connection* c, size_t budget) {
  ClientId id = c->id;
  c->served_in = loop_->iteration();
  const size_t full = budget;
  if (!ParseInput(c, &budget)) return;
  // Read only while there is room: what stays in the socket is the
  // client's to wait for, not our memory.
  uint8_t buf[4096];
  while (budget > 0 && Throttled(*c) == Throttle::kNone && !HasMessage(*c)) {
    ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
    if (n > 0) {
      c->in.insert(c->in.end(), buf, buf + n);
      if (!ParseInput(c, &budget)) return;  // closed while parsing
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    // EOF or error.
    if (!c->in.empty()) {
      ++stats_.truncated;
      CloseConnection(id, "closed in the middle of a message", LogLevel::kWarn, "truncated");
    } else {
      CloseConnection(id, "disconnected", LogLevel::kTrace);
    }
    return;
  }
  if (budget == 0 && full == TurnBudget() && HasMessage(*c)) ++stats_.budget_spent;
  AfterTurn(c);
}

bool ClientServer::HasMessage(const Connection& c) const {
  if (c.in.size() < acm::kHeaderLength) return false;
  size_t frame_len = 0;
  std::string error;
  // An invalid frame counts too: handling it closes the connection.
  return acm::PeekFrame(c.in.data(), c.in.size(), &frame_len, &error) !=
         acm::FrameStatus::kNeedMore;
}

ClientServer::Throttle ClientServer::Throttled(const Connection& c) const {
  if (limits_.max_inflight && c.in_flight >= limits_.max_inflight) return Throttle::kInFlight;
  if (limits_.output_high_water && c.out.size() > limits_.output_high_water)
    return Throttle::kOutput;
  return Throttle::kNone;
}

void ClientServer::AfterTurn(Connection* c) {
  Throttle t = Throttled(*c);
  if (t != Throttle::kNone) {
    if (!c->paused) {
      c->paused = true;
      ++stats_.paused;
      ++(t == Throttle::kInFlight ? stats_.paused_inflight : stats_.paused_output);
      // The wait is ours: client_timeout starts again once it is read.
      c->partial_since = {};
      SSA_LOG(*log_, kTrace, "client %llu: paused (%s)", static_cast<unsigned long long>(c->id),
              t == Throttle::kInFlight ? "requests in flight at the cap" : "answers unread");
    }
  } else if (HasMessage(*c)) {
    QueueTurn(c);
  }
  UpdateInterest(c);
}

void ClientServer::QueueTurn(Connection* c) {
  if (c->waiting_turn) return;
  c->waiting_turn = true;
  ready_.push_back(c->id);
  UpdateInterest(c);
  ArmTurns();
}

// The clients on the list take turns in order, one budget's worth of
// messages per iteration in all (at least one turn): however many clients
// flood, a request from a client that sends one at a time (taken by its fd
// handler, before this) waits for about one budget of theirs and one
// message of each client whose fd was ready with it. A client already
// served through its fd in this iteration goes to the back. Whoever is
// left waits for the next iteration, in order.
void ClientServer::RunTurns() {
  const size_t budget = TurnBudget();
  size_t handled = 0;
  for (size_t n = ready_.size(); n > 0 && handled < budget && !ready_.empty(); --n) {
    ClientId id = ready_.front();
    ready_.pop_front();
    auto it = clients_.find(id);
    if (it == clients_.end()) continue;
    Connection* c = it->second.get();
    if (!c->waiting_turn) continue;
    c->waiting_turn = false;
    if (c->served_in == loop_->iteration()) {
      QueueTurn(c);
      continue;
    }
    uint64_t before = stats_.messages;
    Serve(c, budget);
    handled += stats_.messages - before;
  }
  if (!ready_.empty()) ArmTurns();
}

void ClientServer::ArmTurns() {
  // Armed from an fd handler, it runs in this same iteration after them;
  // armed from RunTurns itself, in the next one.
  if (!turns_timer_)
    turns_timer_ = loop_->AddTimer(EventLoop::Clock::duration::zero(), [this] {
      turns_timer_ = 0;
      RunTurns();
    });
}

void ClientServer::MaybeResume(Connection* c) {
  if (!c->paused || Throttled(*c) != Throttle::kNone) return;
  c->paused = false;
  --stats_.paused;
  // Its next turn takes what it left and then reads on.
  QueueTurn(c);
}

bool ClientServer::ParseInput(Connection* c, size_t* budget) {
  ClientId id = c->id;
  size_t offset = 0;
  // The answers the handler gives at once go out together after the batch.
  c->batching = true;
  while (*budget > 0 && Throttled(*c) == Throttle::kNone &&
         c->in.size() - offset >= acm::kHeaderLength) {
    size_t frame_len = 0;
    std::string error;
    acm::FrameStatus fs =
        acm::PeekFrame(c->in.data() + offset, c->in.size() - offset, &frame_len, &error);
    if (fs == acm::FrameStatus::kNeedMore) break;
    if (fs == acm::FrameStatus::kInvalid) {
      ++stats_.bad_frames;
      std::string reason = "bad message: " + error;
      CloseConnection(id, reason.c_str(), LogLevel::kWarn, "bad-frame");
      return false;
    }
    ++stats_.messages;
    --*budget;
    ++c->in_flight;
    // Copy: the handler may answer synchronously and we may be closed.
    std::vector<uint8_t> msg(c->in.begin() + offset, c->in.begin() + offset + frame_len);
    offset += frame_len;
    handler_->OnMessage(id, msg.data(), msg.size());
    if (!clients_.count(id)) return false;
  }
  c->batching = false;
  c->in.erase(c->in.begin(), c->in.begin() + offset);
  if (c->in.empty() || HasMessage(*c)) {
    // Nothing incomplete, or what is left waits for us, not the client.
    c->partial_since = {};
  } else {
    // A complete message is progress: the clock restarts for the next one.
    if (offset > 0 || c->partial_since == EventLoop::Clock::time_point{})
      c->partial_since = EventLoop::Clock::now();
    ArmTimeout(c);
  }
  return Flush(c);
}

void ClientServer::ArmTimeout(Connection* c) {
  if (limits_.client_timeout.count() <= 0 || c->timeout_timer) return;
  EventLoop::Clock::duration left =
      c->partial_since + limits_.client_timeout - EventLoop::Clock::now();
  ClientId id = c->id;
  c->timeout_timer = loop_->AddTimer(left, [this, id] { OnTimeout(id); });
}

// One timer per connection with a message pending, re-armed while the
// client keeps completing messages.
void ClientServer::OnTimeout(ClientId id) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  Connection* c = it->second.get();
  c->timeout_timer = 0;
  // Paused, or its messages waiting for their turn: the delay is ours.
  if (c->in.empty() || c->paused || HasMessage(*c)) return;
  if (EventLoop::Clock::now() < c->partial_since + limits_.client_timeout) {
    ArmTimeout(c);
    return;
  }
  ++stats_.timeouts;
  std::string reason = "sent " + std::to_string(c->in.size()) +
                       " bytes of a message and no more for " +
                       std::to_string(limits_.client_timeout.count()) + " ms (client_timeout_ms)";
  CloseConnection(id, reason.c_str(), LogLevel::kWarn, "timeout");
}

bool ClientServer::Send(ClientId client, const uint8_t* data, size_t len) {
  auto it = clients_.find(client);
  if (it == clients_.end()) {
    ++stats_.dropped_replies;
    return false;
  }
  Connection* c = it->second.get();
  if (c->in_flight) --c->in_flight;
  if (c->out.empty() && !c->batching) {
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      CloseConnection(client, "send failed", LogLevel::kDebug);
      ++stats_.dropped_replies;
      return false;
    }
    size_t sent = n > 0 ? static_cast<size_t>(n) : 0;
    c->out.append(reinterpret_cast<const char*>(data) + sent, len - sent);
  } else {
    c->out.append(reinterpret_cast<const char*>(data), len);
  }
  if (c->out.size() > kMaxPendingOutput) {
    ++stats_.send_overflows;
    CloseConnection(client, "does not read its answers (output buffer full)", LogLevel::kWarn,
                    "send-overflow");
    return false;
  }
  if (c->batching) return true;  // its turn ends with the flush
  UpdateInterest(c);
  MaybeResume(c);
  return true;
}

bool ClientServer::Flush(Connection* c) {
  while (!c->out.empty()) {
    ssize_t n = send(c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c->out.erase(0, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
    CloseConnection(c->id, "send failed", LogLevel::kDebug);
    return false;
  }
  return true;
}

void ClientServer::OnWritable(Connection* c) {
  if (!Flush(c)) return;
  UpdateInterest(c);
  MaybeResume(c);
}

// Input while the client is read (neither paused nor waiting for its
// turn); output while answers wait.
void ClientServer::UpdateInterest(Connection* c) {
  uint32_t events = 0;
  if (!c->paused && !c->waiting_turn) events |= EPOLLIN | EPOLLRDHUP;
  if (!c->out.empty()) events |= EPOLLOUT;
  if (events == c->events) return;
  c->events = events;
  loop_->ModifyFd(c->fd, events);
}

void ClientServer::Close(ClientId client, const char* reason) {
  CloseConnection(client, reason, LogLevel::kDebug);
}

void ClientServer::CloseConnection(ClientId id, const char* reason, LogLevel level,
                                   const char* kind) {
  auto it = clients_.find(id);
  if (it == clients_.end()) return;
  if (kind)
    limited_.Log(level, kind, "client %llu: %s", static_cast<unsigned long long>(id), reason);
  else if (log_->Enabled(level))
    log_->Log(level, "client %llu: %s", static_cast<unsigned long long>(id), reason);
  if (it->second->timeout_timer) loop_->CancelTimer(it->second->timeout_timer);
  if (it->second->paused) --stats_.paused;
  loop_->UnwatchFd(it->second->fd);
  RawClose(it->second->fd);
  clients_.erase(it);
  ++stats_.closed;
  stats_.open = clients_.size();
  // A descriptor is free again: accept whoever waits for it now.
  ResumeAccepting();
  handler_->OnDisconnect(id);
}

void ClientServer::Shutdown() {
  // Listeners first, so closing the clients resumes nothing.
  for (int fd : listen_fds_) {
    loop_->UnwatchFd(fd);
    RawClose(fd);
  }
  listen_fds_.clear();
  if (accept_timer_) loop_->CancelTimer(accept_timer_);
  accept_timer_ = 0;
  accept_paused_ = false;
  std::vector<ClientId> ids;
  for (const auto& kv : clients_) ids.push_back(kv.first);
  for (ClientId id : ids) CloseConnection(id, "server shutting down", LogLevel::kTrace);
  ready_.clear();
  if (turns_timer_) loop_->CancelTimer(turns_timer_);
  turns_timer_ = 0;
  for (const auto& f : files_) unlink(f.c_str());
  files_.clear();
}

}  // namespace ssa
