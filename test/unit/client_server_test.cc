// ClientServer: framing, reassembly, bad input, slow clients, many clients,
// running out of descriptors.
#include "core/client_server.h"

#include <CppUTest/TestHarness.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "common/acm/acm_wire.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

using namespace std::chrono_literals;

namespace {

// Answers every message with an EINVAL error reply (any well-formed reply
// will do: these tests are about transport, not content), at once or, with
// `hold`, when the test says (AnswerHeld), as a provider that asks the SA
// would. Records which client each message came from, in order.
class EchoHandler : public ssa::ClientServer::Handler {
 public:
  ssa::ClientServer* server = nullptr;
  int messages = 0;
  int disconnects = 0;
  bool hold = false;
  std::vector<ssa::ClientServer::ClientId> from;
  std::vector<std::pair<ssa::ClientServer::ClientId, std::vector<uint8_t>>> held;
  std::function<void()> before_each;  // runs before each message is handled
  void OnMessage(ssa::ClientServer::ClientId client, const uint8_t* msg, size_t) override {
    if (before_each) before_each();
    ++messages;
    from.push_back(client);
    auto reply =
        ssa::acm::EncodeErrorResponse(ssa::acm::MsgHeader::Decode(msg), ssa::acm::kStatusEInval);
    if (hold)
      held.emplace_back(client, reply);
    else
      server->Send(client, reply.data(), reply.size());
  }
  void OnDisconnect(ssa::ClientServer::ClientId) override { ++disconnects; }
  // Answers the `n` oldest held requests.
  void AnswerHeld(size_t n) {
    for (size_t i = 0; i < n && !held.empty(); ++i) {
      server->Send(held.front().first, held.front().second.data(), held.front().second.size());
      held.erase(held.begin());
    }
  }
  int CountFrom(ssa::ClientServer::ClientId client, size_t first_n) const {
    return static_cast<int>(
        std::count(from.begin(), from.begin() + std::min(first_n, from.size()), client));
  }
};

std::vector<uint8_t> PerfQuery() { return ssa::acm::EncodePerfQuery(7, 0); }

// `n` of them back to back, for one write.
std::vector<uint8_t> PerfQueries(int n) {
  std::vector<uint8_t> burst;
  for (int i = 0; i < n; ++i) {
    auto m = PerfQuery();
    burst.insert(burst.end(), m.begin(), m.end());
  }
  return burst;
}

// Uses up every descriptor the process may open, under a soft
// RLIMIT_NOFILE lowered to at most 1024 so that filling stays cheap.
// Free() gives one back; the destructor closes the rest and restores the
// limit.
class DescriptorHog {
 public:
  DescriptorHog() {
    getrlimit(RLIMIT_NOFILE, &saved_);
    struct rlimit lowered = saved_;
    if (lowered.rlim_cur > 1024) lowered.rlim_cur = 1024;
    setrlimit(RLIMIT_NOFILE, &lowered);
    int base = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (base < 0) return;
    fds_.push_back(base);
    for (;;) {
      int fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
      if (fd < 0) break;
      fds_.push_back(fd);
    }
  }
  ~DescriptorHog() {
    for (int fd : fds_) close(fd);
    setrlimit(RLIMIT_NOFILE, &saved_);
  }
  void Free() {
    close(fds_.back());
    fds_.pop_back();
  }

 private:
  struct rlimit saved_;
  std::vector<int> fds_;
};

}  // namespace

TEST_GROUP(ClientServer) {
  ssa::test::TempDir dir{"ssa-cs-"};
  ssa::EventLoop loop;
  ssa::Logger log;
  EchoHandler handler;
  std::unique_ptr<ssa::ClientServer> server;
  std::string path;
  std::vector<int> clients;

  void setup() override {
    CHECK_OK(loop.Init());
    log.set_level(ssa::LogLevel::kError);
    server = std::make_unique<ssa::ClientServer>(&loop, &log, &handler);
    handler.server = server.get();
    CHECK_OK(dir.status());
    path = dir.path() + "/acm.sock";
    CHECK_OK(server->ListenUnix(path, ""));
  }
  void teardown() override {
    for (int fd : clients) close(fd);
    server.reset();
  }
  int Connect() { return ConnectSocket(Socket()); }
  // Connects and waits until the server has accepted it: client ids then
  // follow the order of the calls.
  int ConnectAccepted() {
    size_t accepted = server->stats().accepted;
    int fd = Connect();
    CHECK_TRUE(loop.RunUntil([&] { return server->stats().accepted == accepted + 1; }, 5s));
    return fd;
  }
  int Socket() {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    CHECK(fd >= 0);
    clients.push_back(fd);
    return fd;
  }
  // Connecting needs no new descriptor (on either side, until accept).
  int ConnectSocket(int fd) {
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, path.c_str());
    CHECK_EQUAL(0, connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
    return fd;
  }
  void CloseClient(int fd) {
    close(fd);
    clients.erase(std::find(clients.begin(), clients.end(), fd));
  }
  void RunFor(std::chrono::milliseconds d) {
    auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) loop.RunOnce(5ms);
  }
  // Counts the warnings logged from now on.
  int* CountWarnings() {
    auto count = std::make_shared<int>(0);
    log.set_level(ssa::LogLevel::kWarn);
    log.set_sink([count](ssa::LogLevel level, const std::string&) {
      if (level == ssa::LogLevel::kWarn) ++*count;
    });
    warning_count = count;
    return count.get();
  }
  std::shared_ptr<int> warning_count;
  // Reads one 16-byte reply, running the loop meanwhile.
  bool ReadReply(int fd, ssa::acm::MsgHeader* hdr) {
    uint8_t buf[16];
    size_t got = 0;
    bool ok = loop.RunUntil(
        [&] {
          ssize_t n = recv(fd, buf + got, sizeof(buf) - got, 0);
          if (n > 0) got += n;
          return got == sizeof(buf);
        },
        5s);
    if (ok) *hdr = ssa::acm::MsgHeader::Decode(buf);
    return ok;
  }
  bool PeerClosed(int fd) {
    return loop.RunUntil(
        [&] {
          char c;
          ssize_t n = recv(fd, &c, 1, 0);
          return n == 0 || (n < 0 && errno != EAGAIN);
        },
        5s);
  }
};

TEST(ClientServer, MessageSentByteByByteIsReassembled) {
  int fd = Connect();
  auto msg = PerfQuery();
  for (uint8_t b : msg) {
    CHECK_EQUAL(1, send(fd, &b, 1, 0));
    loop.RunOnce(1ms);
  }
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(fd, &hdr));
  LONGS_EQUAL(1, handler.messages);
  LONGS_EQUAL(ssa::acm::kStatusEInval, hdr.status);
  LONGS_EQUAL(7, hdr.tid);
}

TEST(ClientServer, TwoMessagesInOneWriteAreTwoMessages) {
  int fd = Connect();
  auto one = PerfQuery();
  std::vector<uint8_t> two(one);
  two.insert(two.end(), one.begin(), one.end());
  CHECK_EQUAL((ssize_t)two.size(), send(fd, two.data(), two.size(), 0));
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(fd, &hdr));
  CHECK_TRUE(ReadReply(fd, &hdr));
  LONGS_EQUAL(2, handler.messages);
}

TEST(ClientServer, BadVersionAndOversizedLengthCloseTheConnection) {
  int bad_version = Connect();
  auto msg = PerfQuery();
  msg[0] = 9;
  send(bad_version, msg.data(), msg.size(), 0);
  int oversized = Connect();
  uint8_t big[16] = {1, 2, 0, 0, 0, 0, 0x40, 0x00};  // be16 length 16384 > 592
  send(oversized, big, sizeof(big), 0);
  CHECK_TRUE(PeerClosed(bad_version));
  CHECK_TRUE(PeerClosed(oversized));
  LONGS_EQUAL(2, server->stats().bad_frames);
  LONGS_EQUAL(0, handler.messages);
  // The server still serves others.
  int good = Connect();
  auto ok = PerfQuery();
  send(good, ok.data(), ok.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(good, &hdr));
}

TEST(ClientServer, CloseInTheMiddleOfAMessageIsCountedAsTruncated) {
  int fd = Connect();
  auto msg = PerfQuery();
  send(fd, msg.data(), 10, 0);
  loop.RunOnce(5ms);
  close(fd);
  clients.pop_back();
  CHECK_TRUE(loop.RunUntil([&] { return handler.disconnects == 1; }, 5s));
  LONGS_EQUAL(1, server->stats().truncated);
  LONGS_EQUAL(0, handler.messages);
}

// A client that keeps asking and never reads used to have its answers
// pile up until the server dropped it (1 MiB). Now it is not read once
// output_high_water bytes of answers wait: its requests stay in its
// socket, it is never dropped, and it gets every answer once it reads.
TEST(ClientServer, AClientThatNeverReadsIsPausedNotDroppedOthersServed) {
  ssa::ClientServer::Limits limits;
  limits.output_high_water = 4096;
  limits.client_timeout = 100ms;
  server->set_limits(limits);
  int slow = Connect();
  int fast = Connect();
  auto msg = PerfQuery();
  int sent = 0;
  CHECK_TRUE(loop.RunUntil(
      [&] {
        if (send(slow, msg.data(), msg.size(), MSG_DONTWAIT | MSG_NOSIGNAL) > 0) ++sent;
        return server->stats().paused_output > 0;
      },
      20s));
  // It goes on sending until its socket is full; nothing more is read.
  int handled = handler.messages;
  RunFor(300ms);
  while (send(slow, msg.data(), msg.size(), MSG_DONTWAIT | MSG_NOSIGNAL) > 0) ++sent;
  RunFor(100ms);
  LONGS_EQUAL(handled, handler.messages);
  LONGS_EQUAL(1, server->stats().paused);
  LONGS_EQUAL(0, server->stats().send_overflows);
  LONGS_EQUAL(0, server->stats().timeouts);
  LONGS_EQUAL(2, server->stats().open);
  send(fast, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(fast, &hdr));
  // Reading, it gets an answer to everything it sent.
  for (int i = 0; i < sent; ++i) CHECK_TRUE(ReadReply(slow, &hdr));
  LONGS_EQUAL(sent + 1, handler.messages);
  LONGS_EQUAL(0, server->stats().paused);
  LONGS_EQUAL(1, server->stats().paused_output);
}

// One client's burst used to be read until its socket was empty before
// anyone else's message: a client that keeps 100 requests queued delayed
// every other client by all of them.
TEST(ClientServer, AFloodingClientDelaysAnotherByOneBudgetAtMost) {
  ssa::ClientServer::Limits limits;
  limits.read_budget = 4;
  server->set_limits(limits);
  int flooder = ConnectAccepted();
  int other = ConnectAccepted();
  std::vector<uint8_t> burst = PerfQueries(200);
  CHECK_EQUAL((ssize_t)burst.size(), send(flooder, burst.data(), burst.size(), 0));
  loop.RunOnce(0ms);  // the flooder's first turn
  auto msg = PerfQuery();
  send(other, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(other, &hdr));
  // Before the other's message: the flooder's first message (taken from
  // its fd) and at most one turn of its.
  size_t at = std::find(handler.from.begin(), handler.from.end(), 2u) - handler.from.begin();
  CHECK_TEXT(at <= 1 + limits.read_budget, std::to_string(at).c_str());
  // The flooder is served in full all the same.
  for (int i = 0; i < 200; ++i) CHECK_TRUE(ReadReply(flooder, &hdr));
  CHECK(server->stats().budget_spent > 0);
}

// However many clients flood, the turns they take between two iterations
// add up to one budget: a client sending one message waits for that, not
// for a budget of each flooder.
TEST(ClientServer, ManyFloodersDelayAnotherByOneBudgetInAll) {
  ssa::ClientServer::Limits limits;
  limits.read_budget = 4;
  server->set_limits(limits);
  std::vector<uint8_t> burst = PerfQueries(100);
  for (int i = 0; i < 6; ++i) {
    int fd = ConnectAccepted();
    CHECK_EQUAL((ssize_t)burst.size(), send(fd, burst.data(), burst.size(), 0));
  }
  int other = ConnectAccepted();
  // Every flooder has had its first message and waits on the turn list.
  CHECK_TRUE(loop.RunUntil([&] { return handler.messages >= 6 + 2 * 4; }, 5s));
  // The other client's request arrives in the middle of a turn (sent from
  // the handler, as if by another process while the loop works).
  auto msg = PerfQuery();
  size_t sent_at = 0;
  handler.before_each = [&] {
    if (sent_at) return;
    sent_at = handler.from.size() + 1;
    send(other, msg.data(), msg.size(), 0);
  };
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(other, &hdr));
  handler.before_each = nullptr;
  size_t at = std::find(handler.from.begin(), handler.from.end(), 7u) - handler.from.begin();
  // The rest of that iteration's turns: one budget in all.
  CHECK_TEXT(at - sent_at <= limits.read_budget, std::to_string(at - sent_at).c_str());
  CHECK_TRUE(loop.RunUntil([&] { return handler.messages == 601; }, 10s));
}

// Clients with messages waiting take turns, a budget each.
TEST(ClientServer, ClientsWithMessagesWaitingTakeTurns) {
  ssa::ClientServer::Limits limits;
  limits.read_budget = 3;
  server->set_limits(limits);
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) fds.push_back(ConnectAccepted());
  std::vector<uint8_t> burst = PerfQueries(60);
  for (int fd : fds) CHECK_EQUAL((ssize_t)burst.size(), send(fd, burst.data(), burst.size(), 0));
  CHECK_TRUE(loop.RunUntil([&] { return handler.messages == 180; }, 10s));
  // At every point, no client is ahead of another by more than a turn (or
  // two, where one had its turn in an iteration before the other's).
  for (size_t n = 1; n <= handler.from.size(); ++n)
    for (uint64_t a = 1; a <= 3; ++a)
      for (uint64_t b = 1; b <= 3; ++b)
        CHECK_TEXT(handler.CountFrom(a, n) - handler.CountFrom(b, n) <= 2 * 3,
                   ("after " + std::to_string(n) + " messages").c_str());
}

// A client at max_inflight is not read until an answer goes out: nothing
// it sent is lost, it is not closed, and client_timeout does not count the
// wait (it is ours).
TEST(ClientServer, AClientAtItsInFlightCapIsNotReadUntilAnswersGoOut) {
  ssa::ClientServer::Limits limits;
  limits.max_inflight = 3;
  limits.client_timeout = 100ms;
  server->set_limits(limits);
  handler.hold = true;
  int fd = Connect();
  std::vector<uint8_t> burst = PerfQueries(10);
  burst.resize(burst.size() - 5);  // and the last one incomplete
  CHECK_EQUAL((ssize_t)burst.size(), send(fd, burst.data(), burst.size(), 0));
  RunFor(300ms);
  LONGS_EQUAL(3, handler.messages);
  LONGS_EQUAL(1, server->stats().paused_inflight);
  LONGS_EQUAL(1, server->stats().paused);
  LONGS_EQUAL(0, server->stats().timeouts);
  // One answer out: one more taken, and the cap is reached again.
  handler.AnswerHeld(1);
  CHECK_TRUE(loop.RunUntil([&] { return handler.messages == 4; }, 5s));
  RunFor(50ms);
  LONGS_EQUAL(4, handler.messages);
  LONGS_EQUAL(2, server->stats().paused_inflight);
  // All answered: the rest are taken, up to the incomplete one, which the
  // client then has client_timeout to finish.
  CHECK_TRUE(loop.RunUntil(
      [&] {
        handler.AnswerHeld(handler.held.size());
        return handler.messages == 9;
      },
      5s));
  handler.AnswerHeld(handler.held.size());
  auto last = PerfQuery();
  CHECK_EQUAL(5, send(fd, last.data() + last.size() - 5, 5, 0));
  CHECK_TRUE(loop.RunUntil([&] { return handler.messages == 10; }, 5s));
  handler.AnswerHeld(1);
  ssa::acm::MsgHeader hdr;
  for (int i = 0; i < 10; ++i) CHECK_TRUE(ReadReply(fd, &hdr));
  LONGS_EQUAL(0, server->stats().timeouts);
  LONGS_EQUAL(1, server->stats().open);
  LONGS_EQUAL(0, server->stats().paused);
}

// A client that hangs up while it is not read (hang-ups are reported
// whether it is watched or not) is closed, not spun on.
TEST(ClientServer, AClientGoneWhilePausedIsClosed) {
  ssa::ClientServer::Limits limits;
  limits.max_inflight = 1;
  server->set_limits(limits);
  handler.hold = true;
  int fd = Connect();
  std::vector<uint8_t> two = PerfQueries(2);
  send(fd, two.data(), two.size(), 0);
  CHECK_TRUE(loop.RunUntil([&] { return server->stats().paused == 1; }, 5s));
  CloseClient(fd);
  CHECK_TRUE(loop.RunUntil([&] { return handler.disconnects == 1; }, 5s));
  LONGS_EQUAL(0, server->stats().paused);
  LONGS_EQUAL(0, server->stats().open);
  handler.AnswerHeld(1);  // the late answer is dropped
  LONGS_EQUAL(1, server->stats().dropped_replies);
}

// With max_clients unset the daemon keeps descriptors for itself.
TEST(ClientServer, TheDefaultClientLimitKeepsDescriptorsForTheDaemon) {
  using ssa::ClientServer;
  LONGS_EQUAL(1024 - ClientServer::kReservedFds, ClientServer::DefaultMaxClients(1024));
  LONGS_EQUAL(524288 - ClientServer::kReservedFds, ClientServer::DefaultMaxClients(524288));
  LONGS_EQUAL(256, ClientServer::DefaultMaxClients(512));  // too small to spare 256: half
  LONGS_EQUAL(32, ClientServer::DefaultMaxClients(64));
  LONGS_EQUAL(1, ClientServer::DefaultMaxClients(1));
  LONGS_EQUAL(0, ClientServer::DefaultMaxClients(RLIM_INFINITY));
}

TEST(ClientServer, ManyConcurrentClients) {
  const int kClients = 500;
  for (int i = 0; i < kClients; ++i) Connect();
  CHECK_TRUE(loop.RunUntil([&] { return server->stats().open == (size_t)kClients; }, 10s));
  auto msg = PerfQuery();
  for (int fd : clients) send(fd, msg.data(), msg.size(), 0);
  int answered = 0;
  for (int fd : clients) {
    ssa::acm::MsgHeader hdr;
    if (ReadReply(fd, &hdr)) ++answered;
  }
  LONGS_EQUAL(kClients, answered);
}

TEST(ClientServer, TcpListenerPublishesItsPort) {
  ssa::test::TempDir port_dir("ssa-cs-port-");
  CHECK_OK(port_dir.status());
  std::string port_file = port_dir.path() + "/ibacm-tcp.port";
  CHECK_OK(server->ListenTcp(0, true, port_file, ""));
  CHECK(server->tcp_port() > 0);
  FILE* f = fopen(port_file.c_str(), "r");
  CHECK(f != nullptr);
  int port = 0;
  CHECK_EQUAL(1, fscanf(f, "%d", &port));
  fclose(f);
  LONGS_EQUAL(server->tcp_port(), port);
  server->Shutdown();  // removes the port file
  CHECK(access(port_file.c_str(), F_OK) != 0);
}

// Socket activation: a listening socket made by someone else (systemd) is
// served, and at shutdown it is closed but its file stays: it is systemd's.
TEST(ClientServer, AdoptedUnixSocketIsServedAndItsFileKept) {
  std::string adopted = path + ".activated";
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);  // blocking, as systemd passes it
  CHECK(fd >= 0);
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, adopted.c_str());
  CHECK_EQUAL(0, bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  CHECK_EQUAL(0, listen(fd, 16));
  CHECK_OK(server->AdoptUnix(fd));
  CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);  // accept() must never block the loop

  int client = Socket();
  CHECK_EQUAL(0, connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  auto msg = PerfQuery();
  CHECK_EQUAL((ssize_t)msg.size(), send(client, msg.data(), msg.size(), 0));
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(client, &hdr));
  LONGS_EQUAL(7, hdr.tid);

  server->Shutdown();
  CHECK(fcntl(fd, F_GETFD) < 0);                  // closed
  CHECK_EQUAL(0, access(adopted.c_str(), F_OK));  // but not removed
  unlink(adopted.c_str());
}

TEST(ClientServer, AdoptingWhatIsNotAListeningUnixStreamSocketFails) {
  int not_listening = socket(AF_UNIX, SOCK_STREAM, 0);
  int datagram = socket(AF_UNIX, SOCK_DGRAM, 0);
  int tcp = socket(AF_INET, SOCK_STREAM, 0);
  int file = open("/dev/null", O_RDONLY);
  CHECK_EQUAL(0, listen(tcp, 1));
  for (int fd : {not_listening, datagram, tcp, file}) {
    ssa::Status st = server->AdoptUnix(fd);
    CHECK_FALSE_TEXT(st.ok(), std::to_string(fd).c_str());
    CHECK_EQUAL(0, fcntl(fd, F_GETFD) < 0);  // left open for the caller
    close(fd);
  }
  LONGS_EQUAL(0, server->stats().accepted);
}

// Out of descriptors, accept() fails and the listener stays readable: the
// server used to retry (and log) in a tight loop at 100% CPU.
TEST(ClientServer, OutOfDescriptorsPausesAcceptingAndRetriesOnATimer) {
  const int* warnings = CountWarnings();
  int late = Socket();  // before the descriptors run out
  {
    DescriptorHog hog;
    ConnectSocket(late);
    RunFor(300ms);
    // One attempt, then one per accept_retry (100 ms), not thousands.
    CHECK_TEXT(*warnings == 1, std::to_string(*warnings).c_str());
    CHECK(server->stats().accept_failures >= 1);
    CHECK_TEXT(server->stats().accept_failures <= 10,
               std::to_string(server->stats().accept_failures).c_str());
    LONGS_EQUAL(0, server->stats().accepted);
    // A descriptor frees elsewhere in the process: the next retry takes it.
    hog.Free();
    CHECK_TRUE(loop.RunUntil([&] { return server->stats().accepted == 1; }, 5s));
  }
  auto msg = PerfQuery();
  send(late, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(late, &hdr));
}

TEST(ClientServer, OutOfDescriptorsAClientClosingLetsTheNextOneIn) {
  ssa::ClientServer::Limits limits;
  limits.accept_retry = std::chrono::hours(1);  // only a close can resume
  server->set_limits(limits);
  const int* warnings = CountWarnings();
  int first = Connect();
  CHECK_TRUE(loop.RunUntil([&] { return server->stats().open == 1; }, 5s));
  int late = Socket();
  {
    DescriptorHog hog;
    ConnectSocket(late);
    RunFor(100ms);
    LONGS_EQUAL(1, server->stats().accept_failures);
    CHECK_FALSE(server->accepting());
    CloseClient(first);
    CHECK_TRUE(loop.RunUntil([&] { return server->stats().accepted == 2; }, 5s));
    LONGS_EQUAL(1, *warnings);
  }
  auto msg = PerfQuery();
  send(late, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(late, &hdr));
}

// A client repeating a bad message costs one warning line per interval.
TEST(ClientServer, PerClientWarningsAreRateLimited) {
  const int* warnings = CountWarnings();
  auto msg = PerfQuery();
  msg[0] = 9;  // bad version
  for (int i = 0; i < 50; ++i) {
    int fd = Connect();
    send(fd, msg.data(), msg.size(), 0);
    CHECK_TRUE(PeerClosed(fd));
    CloseClient(fd);
  }
  LONGS_EQUAL(50, server->stats().bad_frames);
  LONGS_EQUAL(1, *warnings);
}

// Half a message and then silence used to hold the connection for ever.
TEST(ClientServer, HalfAMessageThenSilenceIsDroppedAfterTheTimeout) {
  ssa::ClientServer::Limits limits;
  limits.client_timeout = 100ms;
  server->set_limits(limits);
  int idle = Connect();  // sends nothing: kept
  int stalled = Connect();
  auto msg = PerfQuery();
  send(stalled, msg.data(), 10, 0);
  CHECK_TRUE(PeerClosed(stalled));
  LONGS_EQUAL(1, server->stats().timeouts);
  LONGS_EQUAL(0, handler.messages);
  RunFor(200ms);
  LONGS_EQUAL(1, server->stats().open);
  send(idle, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(idle, &hdr));
}

// The clock restarts with every complete message: a client whose writes
// straddle message boundaries is never "stalled" while it makes progress.
TEST(ClientServer, AClientCompletingMessagesInPiecesIsNotTimedOut) {
  ssa::ClientServer::Limits limits;
  // Pieces 100 ms apart for longer than the timeout: each gap is far
  // below it, so a test process descheduled for a while on a loaded
  // machine still completes every piece in time.
  limits.client_timeout = 1000ms;
  server->set_limits(limits);
  int fd = Connect();
  auto msg = PerfQuery();
  size_t half = msg.size() / 2;
  send(fd, msg.data(), half, 0);
  const int pieces = 12;  // 1.2 s, always half a message pending
  for (int i = 0; i < pieces; ++i) {
    RunFor(100ms);
    std::vector<uint8_t> piece(msg.begin() + half, msg.end());
    piece.insert(piece.end(), msg.begin(), msg.begin() + half);
    CHECK_EQUAL((ssize_t)piece.size(), send(fd, piece.data(), piece.size(), 0));
  }
  ssa::acm::MsgHeader hdr;
  for (int i = 0; i < pieces; ++i) CHECK_TRUE(ReadReply(fd, &hdr));
  LONGS_EQUAL(0, server->stats().timeouts);
  LONGS_EQUAL(pieces, handler.messages);
  CHECK_TRUE(PeerClosed(fd));  // and then it stalls
  LONGS_EQUAL(1, server->stats().timeouts);
}

TEST(ClientServer, MaxClientsRefusesTheClientsBeyondIt) {
  ssa::ClientServer::Limits limits;
  limits.max_clients = 2;
  server->set_limits(limits);
  const int* warnings = CountWarnings();
  int a = Connect();
  int b = Connect();
  CHECK_TRUE(loop.RunUntil([&] { return server->stats().open == 2; }, 5s));
  for (int i = 0; i < 5; ++i) CHECK_TRUE(PeerClosed(Connect()));
  LONGS_EQUAL(5, server->stats().refused);
  LONGS_EQUAL(2, server->stats().open);
  LONGS_EQUAL(1, *warnings);  // rate-limited
  auto msg = PerfQuery();
  ssa::acm::MsgHeader hdr;
  send(b, msg.data(), msg.size(), 0);
  CHECK_TRUE(ReadReply(b, &hdr));
  // Room again once one leaves.
  CloseClient(a);
  CHECK_TRUE(loop.RunUntil([&] { return server->stats().open == 1; }, 5s));
  int c = Connect();
  send(c, msg.data(), msg.size(), 0);
  CHECK_TRUE(ReadReply(c, &hdr));
}

// A second daemon on the same socket path used to rename its socket over
// the first one's and take its clients; now it refuses to start.
TEST(ClientServer, ASocketPathAnotherServerListensOnIsAnErrorAStaleOneIsReplaced) {
  ssa::ClientServer second(&loop, &log, &handler);
  ssa::Status st = second.ListenUnix(path, "");
  CHECK_FALSE(st.ok());
  LONGS_EQUAL(-EADDRINUSE, st.code());
  STRCMP_CONTAINS("is in use", st.message().c_str());
  // The first one still serves its clients.
  int fd = Connect();
  CHECK(fd >= 0);
  // A file nobody listens on (a crashed daemon's) is no reason to refuse.
  std::string stale = dir.path() + "/stale.sock";
  int left = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strcpy(addr.sun_path, stale.c_str());
  CHECK_EQUAL(0, bind(left, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  close(left);
  CHECK_OK(second.ListenUnix(stale, ""));
}
