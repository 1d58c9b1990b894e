// sa_client_test.cc: SaClient's queue, timers, retries and TID matching
// over a fake MadTransport (no fabric needed).
#include "common/mad/sa_client.h"

#include <CppUTest/TestHarness.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test/support/check_ok.h"
#include "test/unit/fake_sa_wire.h"

using namespace std::chrono_literals;
using ssa::SaClient;
using ssa::Status;
namespace mad = ssa::mad;

namespace {

using ssa::test::FakeTransport;
using ssa::test::FakeWire;

struct Answer {
  int status;
  uint16_t dlid;  // from the record in the response (0 if none)
  uint16_t mad_status;
};

}  // namespace

TEST_GROUP(SaClient) {
  ssa::EventLoop* loop;
  ssa::Logger* logger;
  std::vector<std::string> log_lines;
  std::shared_ptr<FakeWire> wire;
  SaClient* client;
  std::vector<Answer> answers;
  ssa::UmadPort port;

  void setup() override {
    loop = new ssa::EventLoop();
    CHECK_OK(loop->Init());
    logger = new ssa::Logger();
    logger->set_level(ssa::LogLevel::kWarn);
    logger->set_sink([this](ssa::LogLevel, const std::string& line) { log_lines.push_back(line); });
    wire = std::make_shared<FakeWire>();
    client = nullptr;
    port.ca_name = "fake0";
    port.port_num = 1;
    port.sm_lid = 1;
    port.sm_sl = 0;
  }
  void teardown() override {
    delete client;
    delete logger;
    delete loop;
  }
  void Make(int depth, int timeout_ms = 2000, int retries = 2) {
    ssa::SaClientOptions o;
    o.sa_depth = depth;
    o.timeout_ms = timeout_ms;
    o.retries = retries;
    client = new SaClient(loop, logger, port, o, std::make_unique<FakeTransport>(wire));
    Status st = client->Open();
    CHECK_OK(st);
  }
  SaClient::Callback Record() {
    return [this](int status, const uint8_t* resp, size_t len) {
      Answer a{status, 0, 0};
      if (resp && len >= mad::kSaDataOffset + mad::kPathRecordSize) {
        const uint8_t* r = resp + mad::kSaDataOffset;
        a.dlid = static_cast<uint16_t>((r[40] << 8) | r[41]);
        a.mad_status = mad::MadStatus(resp, len);
      }
      answers.push_back(a);
    };
  }
  Status Query(uint16_t dlid, uint64_t flow = 0) {
    uint8_t m[mad::kMadSize];
    mad::BuildPathRecordGetByLid(0, 2, dlid, 0xffff, m);
    return client->Send(m, sizeof(m), Record(), flow);
  }
  // Answers the one request in flight (depth 1) and waits for the next to
  // go out; the DLIDs of everything sent, in order.
  std::vector<uint16_t> DrainOneByOne() {
    for (size_t i = 0; i < wire->sent.size(); ++i) {
      wire->Answer(i);
      CHECK_TRUE(Run([&] { return answers.size() == i + 1; }));
    }
    std::vector<uint16_t> order;
    for (size_t i = 0; i < wire->sent.size(); ++i) order.push_back(wire->Dlid(i));
    return order;
  }
  bool Run(const std::function<bool()>& done) { return loop->RunUntil(done, 2s); }
  // Runs the loop for `d`, for asserting that nothing happens meanwhile.
  void Idle(std::chrono::milliseconds d) {
    loop->RunUntil([] { return false; }, d);
  }
};

TEST(SaClient, OpenRegistersTheSaClassAndWatchesItsFd) {
  Make(1);
  CHECK_TRUE(wire->open);
  LONGS_EQUAL(0x03, wire->opened_class);
  LONGS_EQUAL(2, wire->opened_version);
  CHECK_TRUE(loop->IsWatched(wire->efd));
  delete client;
  client = nullptr;
  CHECK_FALSE(wire->open);
  LONGS_EQUAL(0u, loop->watch_count());
}

TEST(SaClient, SendsToTheSmOverQp1WithItsOwnTid) {
  port.sm_lid = 5;
  port.sm_sl = 3;
  Make(4, 500);
  CHECK_OK(Query(9));
  CHECK_OK(Query(10));
  LONGS_EQUAL(2, wire->sent.size());
  const FakeWire::Sent& s = wire->sent[0];
  LONGS_EQUAL(mad::kMadSize, s.mad.size());
  LONGS_EQUAL(5, s.to.dlid);
  LONGS_EQUAL(3, s.to.sl);
  LONGS_EQUAL(1, s.to.qpn);
  UNSIGNED_LONGS_EQUAL(0x80010000u, s.to.qkey);
  LONGS_EQUAL(0, s.to.pkey_index);
  CHECK(s.response_timeout_ms >= 500);
  // High half 0, low half non-zero and distinct per request.
  UNSIGNED_LONGLONGS_EQUAL(0, mad::MadTid(s.mad.data()) >> 32);
  CHECK(wire->Tid(0) != 0);
  CHECK(wire->Tid(0) != wire->Tid(1));
}

TEST(SaClient, DepthIsRespectedAndQueueIsFifo) {
  Make(3);
  for (uint16_t d = 1; d <= 10; ++d) CHECK_OK(Query(d));
  LONGS_EQUAL(3, wire->sent.size());
  LONGS_EQUAL(3, client->outstanding());
  LONGS_EQUAL(7, client->queued());
  // Answer the newest in-flight one each time: the next queued one must go
  // out, in order, and never more than 3 may be out.
  std::set<size_t> answered;
  for (size_t k = 1; k <= 10; ++k) {
    size_t i = wire->sent.size();
    do {
      --i;
    } while (answered.count(i));
    answered.insert(i);
    wire->Answer(i);
    CHECK_TRUE(Run([&] { return answers.size() == k; }));
    CHECK(wire->sent.size() - answers.size() <= 3);
    CHECK(client->outstanding() <= 3);
  }
  // Sends went out in FIFO order 1..10.
  for (size_t i = 0; i < wire->sent.size(); ++i) LONGS_EQUAL(i + 1, wire->Dlid(i));
  LONGS_EQUAL(10, wire->sent.size());
  for (const Answer& a : answers) LONGS_EQUAL(0, a.status);
  UNSIGNED_LONGLONGS_EQUAL(7, client->stats().queued_peak);
  UNSIGNED_LONGLONGS_EQUAL(3, client->stats().outstanding_peak);
  UNSIGNED_LONGLONGS_EQUAL(10, client->stats().received);
  UNSIGNED_LONGLONGS_EQUAL(10, client->stats().sent);
}

// One client's burst of QUERY_SA used to sit in one FIFO ahead of every
// other client's query: with sa_depth 1, another's waited behind all of it
// (and timed out while queued when the burst was long enough).
TEST(SaClient, WaitingRequestsAreTakenInTurnBetweenFlows) {
  Make(1);
  for (uint16_t d = 1; d <= 8; ++d) CHECK_OK(Query(d, 7));  // a flooding client
  CHECK_OK(Query(100, 9));                                  // another client
  CHECK_OK(Query(200, 0));                                  // the daemon's own
  LONGS_EQUAL(1, client->outstanding());
  LONGS_EQUAL(9, client->queued());
  LONGS_EQUAL(3, client->queued_flows());
  // Flow 7's first request went out at once; then one request per flow in
  // the order the flows began waiting, FIFO within each.
  std::vector<uint16_t> expected = {1, 2, 100, 200, 3, 4, 5, 6, 7, 8};
  std::vector<uint16_t> order = DrainOneByOne();
  LONGS_EQUAL(expected.size(), order.size());
  for (size_t i = 0; i < expected.size(); ++i)
    LONGS_EQUAL_TEXT(expected[i], order[i], "send order");
  UNSIGNED_LONGLONGS_EQUAL(3, client->stats().queued_flows_peak);
  LONGS_EQUAL(0, client->queued_flows());
}

// A flow's queued request that runs out of time leaves the other flows'
// turns as they were.
TEST(SaClient, AQueuedTimeoutInOneFlowKeepsTheOthersInTurn) {
  Make(1, 40, 0);
  CHECK_OK(Query(1, 7));                                 // in flight
  CHECK_OK(Query(2, 7));                                 // queued
  CHECK_OK(Query(3, 9));                                 // queued
  CHECK_TRUE(Run([&] { return answers.size() == 3; }));  // all time out (40 ms each)
  for (const Answer& a : answers) LONGS_EQUAL(-ETIMEDOUT, a.status);
  LONGS_EQUAL(0, client->queued());
  LONGS_EQUAL(0, client->queued_flows());
  CHECK_OK(Query(4, 9));
  CHECK_OK(Query(5, 7));
  CHECK_OK(Query(6, 9));
  LONGS_EQUAL(2, client->queued_flows());
}

TEST(SaClient, DepthIsClampedWithAWarning) {
  Make(1000);
  LONGS_EQUAL(ssa::kSaMaxDepth, client->sa_depth());
  CHECK_FALSE(log_lines.empty());
  CHECK_TRUE(log_lines.back().find("clamped") != std::string::npos);
  delete client;
  client = nullptr;
  Make(0);
  LONGS_EQUAL(1, client->sa_depth());
}

TEST(SaClient, SubnetTimeoutIsAddedToEachTry) {
  LONGS_EQUAL(1, ssa::SubnetTimeoutToMs(0));
  LONGS_EQUAL(1074, ssa::SubnetTimeoutToMs(18));
  ssa::SaClientOptions o;
  o.timeout_ms = 100;
  o.subnet_timeout_ms = 34;
  client = new SaClient(loop, logger, port, o, std::make_unique<FakeTransport>(wire));
  LONGS_EQUAL(134, client->try_timeout_ms());
}

TEST(SaClient, TimeoutRetriesThenFailsWithEtimedout) {
  Make(1, 20, 2);
  auto t0 = ssa::EventLoop::Clock::now();
  CHECK_OK(Query(7));
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  auto elapsed = ssa::EventLoop::Clock::now() - t0;
  CHECK(elapsed >= 60ms);
  LONGS_EQUAL(-ETIMEDOUT, answers[0].status);
  LONGS_EQUAL(3, wire->sent.size());  // first try + 2 retries
  CHECK(wire->Tid(0) != wire->Tid(1));
  CHECK(wire->Tid(1) != wire->Tid(2));
  for (size_t i = 0; i < 3; ++i) LONGS_EQUAL(7, wire->Dlid(i));
  UNSIGNED_LONGLONGS_EQUAL(1, client->stats().timeouts);
  UNSIGNED_LONGLONGS_EQUAL(3, client->stats().try_timeouts);
  UNSIGNED_LONGLONGS_EQUAL(2, client->stats().retries);
  LONGS_EQUAL(0, client->outstanding());
  LONGS_EQUAL(0u, loop->timer_count());
}

TEST(SaClient, ADeadSaCostsEachRequestItsOwnTimeoutNotTheQueuesSum) {
  // Depth 1, 40 ms x 3 tries: 10 requests to a silent SA. Each must be
  // answered -ETIMEDOUT within its own budget (120 ms after it was sent to
  // the client), not after the 9 before it timed out one by one (1.2 s).
  Make(1, 40, 2);
  auto t0 = ssa::EventLoop::Clock::now();
  for (uint16_t d = 1; d <= 10; ++d) CHECK_OK(Query(d));
  CHECK_TRUE(Run([&] { return answers.size() == 10; }));
  auto elapsed = ssa::EventLoop::Clock::now() - t0;
  CHECK_TEXT(elapsed < 400ms, "the queued requests waited for each other");
  for (const Answer& a : answers) LONGS_EQUAL(-ETIMEDOUT, a.status);
  // The first used its three tries; the others timed out while queued
  // (the second, sent a moment after the first, may just get one short
  // try when the first gives up).
  CHECK(wire->sent.size() == 3 || wire->sent.size() == 4);
  UNSIGNED_LONGLONGS_EQUAL(10, client->stats().timeouts);
  LONGS_EQUAL(0, client->queued());
  LONGS_EQUAL(0u, loop->timer_count());
}

TEST(SaClient, LateAnswerAfterFailureIsStale) {
  Make(1, 10, 1);
  CHECK_OK(Query(7));
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(-ETIMEDOUT, answers[0].status);
  wire->Answer(0);
  wire->Answer(1);
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 2; }));
  LONGS_EQUAL(1, answers.size());
  UNSIGNED_LONGLONGS_EQUAL(0, client->stats().received);
}

TEST(SaClient, AnswerToAnEarlierTryCompletesAndTheRetrysAnswerIsStale) {
  // Tries long enough that a loaded machine still sees the second one out
  // before the third (a loop iteration late by a whole try would send both).
  Make(1, 300, 2);
  CHECK_OK(Query(7));
  CHECK_TRUE(Run([&] { return wire->sent.size() >= 2; }));  // first try timed out
  wire->Answer(0);                                          // late answer to try 1
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(0, answers[0].status);
  LONGS_EQUAL(7, answers[0].dlid);
  wire->Answer(1);
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 1; }));
  Idle(100ms);  // try 2's timer was cancelled: no third try, no second answer
  LONGS_EQUAL(2, wire->sent.size());
  LONGS_EQUAL(1, answers.size());
  LONGS_EQUAL(0u, loop->timer_count());
}

TEST(SaClient, UnknownTidIsDroppedAndCounted) {
  Make(1);
  CHECK_OK(Query(7));
  std::vector<uint8_t> bogus = wire->sent[0].mad;
  bogus[3] = mad::kMethodGetResp;
  mad::SetMadTid(bogus.data(), wire->Tid(0) + 12345);
  wire->Deliver(bogus.data(), bogus.size());
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 1; }));
  LONGS_EQUAL(0, answers.size());
  wire->Answer(0);  // the real answer still gets through
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(0, answers[0].status);
}

TEST(SaClient, DuplicateAnswerIsStale) {
  Make(1);
  CHECK_OK(Query(7));
  wire->Answer(0);
  wire->Answer(0);
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 1; }));
  LONGS_EQUAL(1, answers.size());
}

TEST(SaClient, OnlyTheLow32TidBitsAreMatched) {
  Make(2);
  CHECK_OK(Query(7));
  CHECK_OK(Query(8));
  wire->Answer(1, 0, 0xffffffff);
  wire->Answer(0, 0, 0x00000001);
  CHECK_TRUE(Run([&] { return answers.size() == 2; }));
  LONGS_EQUAL(8, answers[0].dlid);
  LONGS_EQUAL(7, answers[1].dlid);
}

TEST(SaClient, MalformedMadsAreCountedLoggedAndDropped) {
  Make(1);
  CHECK_OK(Query(7));
  std::vector<uint8_t> m = wire->sent[0].mad;
  m[3] = mad::kMethodGetResp;
  wire->Deliver(m.data(), 10);  // short
  std::vector<uint8_t> wrong_class = m;
  wrong_class[1] = 0x04;
  wire->Deliver(wrong_class.data(), wrong_class.size());
  std::vector<uint8_t> request = wire->sent[0].mad;  // not a response
  wire->Deliver(request.data(), request.size());
  std::vector<uint8_t> wrong_method = m;
  wrong_method[3] = mad::kMethodGetTableResp;
  wire->Deliver(wrong_method.data(), wrong_method.size());
  std::vector<uint8_t> wrong_attr = m;
  wrong_attr[17] = 0x38;
  wire->Deliver(wrong_attr.data(), wrong_attr.size());
  CHECK_TRUE(Run([&] { return client->stats().malformed == 5; }));
  LONGS_EQUAL(0, answers.size());
  LONGS_EQUAL(5, log_lines.size());
  CHECK_TRUE(log_lines[0].find("shorter than a MAD header") != std::string::npos);
  // The request is still pending and takes the real answer.
  wire->Answer(0);
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(0, answers[0].status);
}

TEST(SaClient, SaErrorStatusGoesToTheCaller) {
  Make(1);
  CHECK_OK(Query(7));
  wire->Answer(0, mad::kSaStatusNoRecords);
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(0, answers[0].status);
  UNSIGNED_LONGS_EQUAL(0x0300, answers[0].mad_status);
  UNSIGNED_LONGLONGS_EQUAL(1, client->stats().sa_status_errors);
}

TEST(SaClient, CancelAllAnswersEverythingOldestFirst) {
  Make(2);
  for (uint16_t d = 1; d <= 5; ++d) CHECK_OK(Query(d));
  client->CancelAll();
  LONGS_EQUAL(5, answers.size());
  for (const Answer& a : answers) LONGS_EQUAL(-ECANCELED, a.status);
  LONGS_EQUAL(0, client->outstanding());
  LONGS_EQUAL(0, client->queued());
  LONGS_EQUAL(0u, loop->timer_count());
  UNSIGNED_LONGLONGS_EQUAL(5, client->stats().cancelled);
  wire->Answer(0);
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 1; }));
  LONGS_EQUAL(5, answers.size());
  // The client keeps working afterwards.
  CHECK_OK(Query(9));
  wire->Answer(2);
  CHECK_TRUE(Run([&] { return answers.size() == 6; }));
  LONGS_EQUAL(9, answers[5].dlid);
}

// Oldest first, whichever flow each waited in.
TEST(SaClient, CancelAllInOrder) {
  Make(2);
  std::vector<int> order;
  uint8_t m[mad::kMadSize];
  for (int i = 0; i < 6; ++i) {
    mad::BuildPathRecordGetByLid(0, 2, static_cast<uint16_t>(i + 1), 0, m);
    CHECK_OK(client->Send(
        m, sizeof(m), [&order, i](int, const uint8_t*, size_t) { order.push_back(i); },
        static_cast<uint64_t>(3 - i % 3)));
  }
  client->CancelAll();
  LONGS_EQUAL(6, order.size());
  for (int i = 0; i < 6; ++i) LONGS_EQUAL(i, order[i]);
}

TEST(SaClient, SmChangeRetargetsQueuedAndRetriedRequests) {
  Make(1, 30, 1);
  CHECK_OK(Query(7));
  CHECK_OK(Query(8));  // queued
  client->UpdateSm(12, 4);
  LONGS_EQUAL(1, wire->sent[0].to.dlid);  // already in flight: old SM
  // The retry of the first goes to the new SM.
  CHECK_TRUE(Run([&] { return wire->sent.size() == 2; }));
  LONGS_EQUAL(12, wire->sent[1].to.dlid);
  LONGS_EQUAL(4, wire->sent[1].to.sl);
  wire->Answer(1);
  CHECK_TRUE(Run([&] { return wire->sent.size() == 3; }));
  LONGS_EQUAL(8, wire->Dlid(2));
  LONGS_EQUAL(12, wire->sent[2].to.dlid);
  LONGS_EQUAL(4, wire->sent[2].to.sl);
}

TEST(SaClient, NoSmMeansHostUnreachable) {
  port.sm_lid = 0;
  Make(1);
  LONGS_EQUAL(-EHOSTUNREACH, Query(7).code());
  client->UpdateSm(3, 0);
  CHECK_OK(Query(7));
  LONGS_EQUAL(3, wire->sent[0].to.dlid);
}

TEST(SaClient, BadRequestsAreRefused) {
  uint8_t m[mad::kMadSize];
  mad::BuildPathRecordGetByLid(0, 2, 7, 0, m);
  client = new SaClient(loop, logger, port, ssa::SaClientOptions(),
                        std::make_unique<FakeTransport>(wire));
  LONGS_EQUAL(-ENOTCONN, client->Send(m, sizeof(m), Record()).code());
  CHECK_OK(client->Open());
  LONGS_EQUAL(-EINVAL, client->Send(m, 10, Record()).code());
  LONGS_EQUAL(-EINVAL, client->Send(m, 300, Record()).code());
  LONGS_EQUAL(-EINVAL, client->Send(m, sizeof(m), nullptr).code());
  m[1] = 0x04;
  LONGS_EQUAL(-EINVAL, client->Send(m, sizeof(m), Record()).code());
  m[1] = 0x03;
  m[3] = mad::kMethodGetResp;
  LONGS_EQUAL(-EINVAL, client->Send(m, sizeof(m), Record()).code());
  LONGS_EQUAL(0, wire->sent.size());
  // A short but valid request is padded to 256 bytes.
  mad::BuildPathRecordGetByLid(0, 2, 7, 0, m);
  CHECK_OK(client->Send(m, mad::kSaDataOffset + mad::kPathRecordSize, Record()));
  LONGS_EQUAL(mad::kMadSize, wire->sent[0].mad.size());
}

TEST(SaClient, SendFailures) {
  Make(1, 20, 2);
  wire->send_error = -EIO;
  LONGS_EQUAL(-EIO, Query(7).code());  // immediate: callback never called
  wire->send_error = 0;
  CHECK_OK(Query(8));
  CHECK_OK(Query(9));       // queued
  wire->send_error = -EIO;  // retry of 8 and the dispatch of 9 fail
  CHECK_TRUE(Run([&] { return answers.size() == 2; }));
  LONGS_EQUAL(-EIO, answers[0].status);
  LONGS_EQUAL(-EIO, answers[1].status);
  CHECK(client->stats().errors >= 3);
  LONGS_EQUAL(0, client->outstanding());
}

TEST(SaClient, TransportErrorOnTheCurrentTryRetriesAtOnce) {
  Make(1, 10000, 1);
  CHECK_OK(Query(7));
  // The kernel hands the request back with ETIMEDOUT.
  wire->Deliver(wire->sent[0].mad.data(), wire->sent[0].mad.size(), ETIMEDOUT);
  CHECK_TRUE(Run([&] { return wire->sent.size() == 2; }));
  // A notice for the old try is stale now.
  wire->Deliver(wire->sent[0].mad.data(), wire->sent[0].mad.size(), ETIMEDOUT);
  CHECK_TRUE(Run([&] { return client->stats().stale_responses == 1; }));
  wire->Deliver(wire->sent[1].mad.data(), wire->sent[1].mad.size(), EIO);
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(-EIO, answers[0].status);
}

TEST(SaClient, ABrokenTransportIsUnwatchedInsteadOfSpinning) {
  Make(1, 30, 0);
  CHECK_OK(Query(7));
  wire->receive_error = -EIO;
  uint64_t one = 1;
  CHECK_EQUAL(8, write(wire->efd, &one, sizeof(one)));  // readable for good
  CHECK_TRUE(Run([&] { return answers.size() == 1; }));
  LONGS_EQUAL(-ETIMEDOUT, answers[0].status);
  CHECK_FALSE(loop->IsWatched(wire->efd));
  UNSIGNED_LONGLONGS_EQUAL(100, client->stats().errors);
}

TEST(SaClient, CallbackMaySendAgainAndKeepsFifo) {
  Make(1);
  uint8_t m[mad::kMadSize];
  mad::BuildPathRecordGetByLid(0, 2, 1, 0, m);
  CHECK_OK(
      client->Send(m, sizeof(m), [&](int, const uint8_t*, size_t) { CHECK_TRUE(Query(3).ok()); }));
  CHECK_OK(Query(2));
  wire->Answer(0);
  CHECK_TRUE(Run([&] { return wire->sent.size() == 2; }));
  LONGS_EQUAL(2, wire->Dlid(1));  // queued before the callback's request
  wire->Answer(1);
  CHECK_TRUE(Run([&] { return wire->sent.size() == 3; }));
  LONGS_EQUAL(3, wire->Dlid(2));
}

TEST(SaClient, DestructionWithPendingRequestsCallsNothing) {
  Make(2, 20, 5);
  for (uint16_t d = 1; d <= 5; ++d) CHECK_OK(Query(d));
  delete client;
  client = nullptr;
  LONGS_EQUAL(0u, loop->timer_count());
  LONGS_EQUAL(0u, loop->watch_count());
  Idle(60ms);
  LONGS_EQUAL(0, answers.size());
}

TEST(SaClient, CallbackMayDestroyTheClient) {
  Make(3, 20, 0);
  uint8_t m[mad::kMadSize];
  mad::BuildPathRecordGetByLid(0, 2, 1, 0, m);
  int calls = 0;
  auto destroy = [&](int, const uint8_t*, size_t) {
    ++calls;
    delete client;
    client = nullptr;
  };
  for (int i = 0; i < 3; ++i) CHECK_OK(client->Send(m, sizeof(m), destroy));
  CHECK_OK(Query(9));  // queued
  // All three time out in the same loop iteration; the first callback
  // destroys the client, the other two timers must then do nothing.
  CHECK_TRUE(Run([&] { return calls > 0; }));
  Idle(50ms);
  LONGS_EQUAL(1, calls);
  LONGS_EQUAL(0, answers.size());
}

TEST(SaClient, CancelAllCallbackMayDestroyTheClient) {
  Make(1);
  int calls = 0;
  uint8_t m[mad::kMadSize];
  mad::BuildPathRecordGetByLid(0, 2, 1, 0, m);
  for (int i = 0; i < 3; ++i)
    CHECK_OK(client->Send(m, sizeof(m), [&](int, const uint8_t*, size_t) {
      ++calls;
      delete client;
      client = nullptr;
    }));
  client->CancelAll();
  LONGS_EQUAL(1, calls);
}
