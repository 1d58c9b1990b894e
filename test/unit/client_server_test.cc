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
#include <memory>
#include <vector>

#include "common/acm/acm_wire.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"

using namespace std::chrono_literals;

namespace {

// Answers every message with an EINVAL error reply (any well-formed reply
// will do: these tests are about transport, not content).
class EchoHandler : public ssa::ClientServer::Handler {
 public:
  ssa::ClientServer* server = nullptr;
  int messages = 0;
  int disconnects = 0;
  void OnMessage(ssa::ClientServer::ClientId client, const uint8_t* msg, size_t) override {
    ++messages;
    auto reply =
        ssa::acm::EncodeErrorResponse(ssa::acm::MsgHeader::Decode(msg), ssa::acm::kStatusEInval);
    server->Send(client, reply.data(), reply.size());
  }
  void OnDisconnect(ssa::ClientServer::ClientId) override { ++disconnects; }
};

std::vector<uint8_t> PerfQuery() { return ssa::acm::EncodePerfQuery(7, 0); }

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

TEST(ClientServer, ClientThatNeverReadsIsDroppedOthersServed) {
  int slow = Connect();
  int fast = Connect();
  auto msg = PerfQuery();
  // The slow client keeps asking and never reads: its replies pile up until
  // the server gives up on it. Every send is non-blocking for the server.
  bool dropped = loop.RunUntil(
      [&] {
        send(slow, msg.data(), msg.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        return server->stats().send_overflows > 0;
      },
      20s);
  CHECK_TRUE(dropped);
  send(fast, msg.data(), msg.size(), 0);
  ssa::acm::MsgHeader hdr;
  CHECK_TRUE(ReadReply(fast, &hdr));
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
  limits.client_timeout = 300ms;
  server->set_limits(limits);
  int fd = Connect();
  auto msg = PerfQuery();
  size_t half = msg.size() / 2;
  send(fd, msg.data(), half, 0);
  for (int i = 0; i < 6; ++i) {  // 600 ms, always half a message pending
    RunFor(100ms);
    std::vector<uint8_t> piece(msg.begin() + half, msg.end());
    piece.insert(piece.end(), msg.begin(), msg.begin() + half);
    CHECK_EQUAL((ssize_t)piece.size(), send(fd, piece.data(), piece.size(), 0));
  }
  ssa::acm::MsgHeader hdr;
  for (int i = 0; i < 6; ++i) CHECK_TRUE(ReadReply(fd, &hdr));
  LONGS_EQUAL(0, server->stats().timeouts);
  LONGS_EQUAL(6, handler.messages);
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
