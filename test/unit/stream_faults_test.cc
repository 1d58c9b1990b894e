// stream_faults_test.cc: the data channel's timed faults (delay, stall:
// common/tree/stream_faults.h through common/tree/stream_relay.h) over real
// loopback TCP: a delayed chunk arrives no earlier than the delay, intact
// and in order; a stalled reader makes the writer see EAGAIN and then
// resume; a refused connect, end of stream and a reset reach the owner as
// without the relay; the owner's last frame before closing still goes out;
// destroying a stream with data in flight or mid-stall is prompt. Plus the
// option's keys.
//
// Times here only bound waits, except lower bounds (a delay is never
// shorter than asked, whatever the load).
#include "common/tree/stream_faults.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "common/base/fault_spec.h"
#include "common/tree/stream.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using ssa::Status;
using ssa::tree::DataAddress;
using ssa::tree::FaultyStreamTransport;
using ssa::tree::Stream;
using ssa::tree::StreamListener;
using ssa::tree::StreamTransport;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr auto kBound = 20s;  // only ever reached when something hangs

bool WaitFd(int fd, short events, std::chrono::milliseconds timeout) {
  pollfd p = {fd, events, 0};
  return poll(&p, 1, static_cast<int>(timeout.count())) == 1;
}

DataAddress Loopback(uint16_t port) {
  DataAddress a;
  a.family = 4;
  a.port = port;
  a.addr[0] = 127;
  a.addr[3] = 1;
  return a;
}

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7919 + i / 251) & 0xff);
  return s;
}

// Reads what `s` has now into `got`; its last Read's result.
ssize_t ReadSome(Stream* s, std::string* got) {
  char buf[65536];
  for (;;) {
    ssize_t n = s->Read(buf, sizeof(buf));
    if (n <= 0) return n;
    got->append(buf, static_cast<size_t>(n));
  }
}

// Reads until `want` bytes or the stream's end/error; its last result.
ssize_t ReadAll(Stream* s, size_t want, std::string* got) {
  auto end = Clock::now() + kBound;
  while (got->size() < want && Clock::now() < end) {
    WaitFd(s->fd(), POLLIN, 100ms);
    ssize_t n = ReadSome(s, got);
    if (n != -EAGAIN) return n;
  }
  return -EAGAIN;
}

void WriteAll(Stream* s, const std::string& data) {
  size_t off = 0;
  auto end = Clock::now() + kBound;
  while (off < data.size() && Clock::now() < end) {
    ssize_t n = s->Write(data.data() + off, data.size() - off);
    if (n > 0)
      off += static_cast<size_t>(n);
    else if (n == -EAGAIN)
      WaitFd(s->fd(), POLLOUT, 100ms);
    else
      FAIL("write failed");
  }
  CHECK_EQUAL(data.size(), off);
}

std::unique_ptr<FaultyStreamTransport> Faulty(const std::string& spec_text) {
  ssa::FaultSpec spec;
  Status st = ssa::FaultSpec::Parse(spec_text, FaultyStreamTransport::Keys(), &spec);
  CHECK_OK(st);
  return std::make_unique<FaultyStreamTransport>(ssa::tree::NewTcpTransport(), spec);
}

}  // namespace

// A plain TCP listener; the client side goes through a faulty transport.
TEST_GROUP(StreamFaults) {
  std::unique_ptr<StreamTransport> tcp = ssa::tree::NewTcpTransport();
  std::unique_ptr<StreamListener> listener;
  std::unique_ptr<FaultyStreamTransport> faulty;
  std::unique_ptr<Stream> client, server;

  void setup() override { CHECK_OK(tcp->Listen(Loopback(0), &listener)); }

  // `faulty` made from `spec`; `client` connected through it, `server`
  // the plain end.
  void Connect(const std::string& spec) {
    faulty = Faulty(spec);
    Status st = faulty->Connect(Loopback(listener->address().port), &client);
    CHECK_OK(st);
    CHECK(WaitFd(client->fd(), POLLOUT, kBound));
    st = client->FinishConnect();
    CHECK_OK(st);
    CHECK(WaitFd(listener->fd(), POLLIN, kBound));
    CHECK_OK(listener->Accept(&server));
  }
};

TEST(StreamFaults, TheNewKeysParseAndUnknownOnesAreErrors) {
  std::unique_ptr<StreamTransport> t = ssa::tree::NewTcpTransport();
  CHECK_OK(ssa::tree::WrapStreamFaults("delay=200,stall=0.5,stall_ms=3000,seed=4", &t));
  t = ssa::tree::NewTcpTransport();
  Status st = ssa::tree::WrapStreamFaults("delay=200,stal=0.5", &t);
  CHECK_EQUAL(-EINVAL, st.code());
  STRCMP_CONTAINS("stal", st.message().c_str());
  // Timed faults need a kernel fd the relay can poll.
  t = ssa::tree::NewRsocketTransport();
  st = ssa::tree::WrapStreamFaults("delay=10", &t);
  CHECK_EQUAL(-EINVAL, st.code());
  STRCMP_CONTAINS("tcp", st.message().c_str());
  t = ssa::tree::NewRsocketTransport();
  CHECK_OK(ssa::tree::WrapStreamFaults("flip=0.1", &t));  // untimed ones do not
}

TEST(StreamFaults, DelayedChunksArriveNoEarlierThanTheDelayIntactAndInOrder) {
  Connect("delay=200,seed=3");
  auto t0 = Clock::now();
  WriteAll(server.get(), "hello");
  std::string got;
  CHECK_EQUAL(-EAGAIN, ReadAll(client.get(), 5, &got));
  auto waited = Clock::now() - t0;
  STRCMP_EQUAL("hello", got.c_str());
  CHECK_TEXT(waited >= 200ms, "a delayed chunk came early");

  // A megabyte, then the end: all of it, in order, then end of stream.
  const std::string big = Pattern(1 << 20);
  WriteAll(server.get(), big);
  server.reset();
  got.clear();
  CHECK_EQUAL(0, ReadAll(client.get(), big.size() + 1, &got));
  CHECK_EQUAL(big.size(), got.size());
  CHECK(got == big);
  CHECK(faulty->relay_counters().delayed.load() >= 2);
  CHECK_EQUAL(0u, faulty->relay_counters().stalls.load());
}

TEST(StreamFaults, WhatTheOwnerWritesGoesOutAsIs) {
  Connect("delay=600000");
  const std::string data = Pattern(300000);
  WriteAll(client.get(), data);
  std::string got;
  CHECK_EQUAL(-EAGAIN, ReadAll(server.get(), data.size(), &got));
  CHECK_TEXT(got == data, "the owner's writes were held back too");
}

TEST(StreamFaults, AStalledReaderMakesTheWriterWaitThenItResumes) {
  // Small buffers so a few hundred kilobytes fill them.
  Connect("stall=1,stall_ms=150,seed=9");
  int small = 32768;
  setsockopt(server->fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
  const std::string data = Pattern(512 * 1024);
  size_t off = 0;
  int eagains = 0;
  std::string got;
  auto t0 = Clock::now();
  auto end = t0 + 60s;
  while (got.size() < data.size() && Clock::now() < end) {
    if (off < data.size()) {
      ssize_t n = server->Write(data.data() + off, data.size() - off);
      if (n > 0)
        off += static_cast<size_t>(n);
      else if (n == -EAGAIN)
        ++eagains;
      else
        FAIL("write failed");
    }
    WaitFd(client->fd(), POLLIN, 20ms);
    CHECK_EQUAL(-EAGAIN, ReadSome(client.get(), &got));
  }
  auto took = Clock::now() - t0;
  CHECK_EQUAL(data.size(), got.size());
  CHECK(got == data);
  CHECK_TEXT(eagains > 0, "the writer never waited");
  uint64_t stalls = faulty->relay_counters().stalls.load();
  CHECK(stalls >= 2);
  // Every stall but the last held the rest back.
  CHECK(took >= std::chrono::milliseconds(150 * (stalls - 1)));
}

TEST(StreamFaults, WhileTheReaderStallsTheWriterIsBlockedAndClosingIsPrompt) {
  Connect("stall=1,stall_ms=600000");
  int small = 32768;
  setsockopt(server->fd(), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
  const std::string data = Pattern(8 << 20);
  size_t off = 0;
  std::string got;
  // Write until the writer is held back and stays so while the reader
  // reads all it is given.
  auto end = Clock::now() + kBound;
  while (Clock::now() < end) {
    ssize_t n = server->Write(data.data() + off, data.size() - off);
    if (n > 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    CHECK_EQUAL(-EAGAIN, n);
    WaitFd(client->fd(), POLLIN, 50ms);
    ReadSome(client.get(), &got);
    if (!WaitFd(server->fd(), POLLOUT, 300ms)) break;
  }
  CHECK(off < data.size());
  CHECK_EQUAL(1u, faulty->relay_counters().stalls.load());
  CHECK(got.size() <= 65536);  // the one chunk read before the stall
  CHECK(got == data.substr(0, got.size()));
  // Destroyed with a stalled relay and bytes in flight: prompt, clean.
  auto t0 = Clock::now();
  client.reset();
  CHECK(Clock::now() - t0 < 5s);
  // The writer learns the reader is gone.
  ssize_t n = 0;
  end = Clock::now() + kBound;
  while ((n = server->Write(data.data(), 65536)) >= 0 || n == -EAGAIN) {
    if (Clock::now() > end) break;
    WaitFd(server->fd(), POLLOUT, 50ms);
  }
  CHECK(n == -ECONNRESET || n == -EPIPE);
}

TEST(StreamFaults, AResetReachesTheOwnerAfterTheDataBeforeIt) {
  Connect("delay=100");
  WriteAll(server.get(), "last words");
  std::string got;
  CHECK_EQUAL(-EAGAIN, ReadAll(client.get(), 10, &got));
  STRCMP_EQUAL("last words", got.c_str());
  linger l = {1, 0};  // close with a reset
  setsockopt(server->fd(), SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  server.reset();
  got.clear();
  CHECK_EQUAL(-ECONNRESET, ReadAll(client.get(), 1, &got));
  CHECK(got.empty());
  CHECK_EQUAL(-ECONNRESET, client->Write("x", 1));
}

TEST(StreamFaults, ARefusedConnectIsWhatFinishConnectSays) {
  uint16_t port = listener->address().port;
  listener.reset();  // nobody there now
  faulty = Faulty("delay=100");
  Status st = faulty->Connect(Loopback(port), &client);
  CHECK_OK(st);
  CHECK(WaitFd(client->fd(), POLLOUT, kBound));
  st = client->FinishConnect();
  CHECK_EQUAL(-ECONNREFUSED, st.code());
  char c;
  CHECK(WaitFd(client->fd(), POLLIN, kBound));
  CHECK_EQUAL(-ECONNREFUSED, client->Read(&c, 1));
}

TEST(StreamFaults, DestroyedWithDataOnItsWayInIsPrompt) {
  Connect("delay=60000");
  WriteAll(server.get(), Pattern(200000));
  WriteAll(client.get(), "bye");
  auto t0 = Clock::now();
  client.reset();
  CHECK(Clock::now() - t0 < 5s);
  // What the owner wrote just before went out; then the end (a reset if
  // the kernel still held unread bytes for it, as for any socket).
  std::string got;
  ssize_t r = ReadAll(server.get(), 4, &got);
  CHECK(r == 0 || r == -ECONNRESET);
  STRCMP_EQUAL("bye", got.c_str());
}

// The accepting side delays what it reads; a frame written just before
// closing still reaches the peer (as a parent's REFUSE does).
TEST(StreamFaults, TheAcceptingSideToo) {
  faulty = Faulty("delay=150");
  std::unique_ptr<StreamListener> l;
  CHECK_OK(faulty->Listen(Loopback(0), &l));
  CHECK_OK(tcp->Connect(Loopback(l->address().port), &client));
  CHECK(WaitFd(client->fd(), POLLOUT, kBound));
  CHECK_OK(client->FinishConnect());
  CHECK(WaitFd(l->fd(), POLLIN, kBound));
  CHECK_OK(l->Accept(&server));
  CHECK_OK(server->FinishConnect());
  auto t0 = Clock::now();
  WriteAll(client.get(), "hello");
  std::string got;
  ReadAll(server.get(), 5, &got);
  STRCMP_EQUAL("hello", got.c_str());
  CHECK(Clock::now() - t0 >= 150ms);
  WriteAll(server.get(), "refused");
  server.reset();
  got.clear();
  CHECK_EQUAL(0, ReadAll(client.get(), 8, &got));
  STRCMP_EQUAL("refused", got.c_str());
}
