// tree_failover_test.cc: the pieces that carry the SSA tree across an SM
// failover (the whole of it runs on ibsim in tree_fault_sim_test.cc):
//   - the SMP that asks the local port where the master SM is, its codec
//     and its timeouts;
//   - the join's epochs and digests on the wire;
//   - the core's judgement of which joins show another core's database.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <deque>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/mad/mad_wire.h"
#include "common/mad/sm_lid_probe.h"
#include "common/tree/epoch_watch.h"
#include "common/tree/ssa_mad.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using ssa::MadAddress;
using ssa::ReceivedMad;
using ssa::Status;
namespace tree = ssa::tree;

namespace {

// The port's answer to `request`: PortInfo with MasterSMLID `sm_lid`.
std::vector<uint8_t> PortInfoAnswer(const uint8_t* request, uint16_t sm_lid, uint8_t sm_sl) {
  std::vector<uint8_t> m(request, request + 256);
  m[3] = ssa::mad::kMethodGetResp;
  m[4] = 0x80;  // D bit: the way back
  m[64 + 18] = static_cast<uint8_t>(sm_lid >> 8);
  m[64 + 19] = static_cast<uint8_t>(sm_lid);
  m[64 + 36] = static_cast<uint8_t>(0x40 | sm_sl);  // NeighborMTU 4 in the high bits
  return m;
}

// A port that answers PortInfo SMPs (or, with `silent`, nothing).
class FakePort : public ssa::MadTransport {
 public:
  Status Open(uint8_t mgmt_class, uint8_t) override {
    opened_class = mgmt_class;
    return loop_fd_.Init();
  }
  void Close() override {}
  int fd() const override { return loop_fd_.fd(); }
  Status Send(const uint8_t* mad, size_t len, const MadAddress& to, int) override {
    CHECK_EQUAL(256u, len);
    sent.push_back(to);
    ++sends;
    if (!silent) {
      queue_.push_back(PortInfoAnswer(mad, sm_lid, 3));
      loop_fd_.Signal();
    }
    return Status::Ok();
  }
  Status Receive(ReceivedMad* out) override {
    if (queue_.empty()) {
      loop_fd_.Drain();
      return Status::Error(EAGAIN, "empty");
    }
    memcpy(out->data, queue_.front().data(), 256);
    out->len = 256;
    queue_.pop_front();
    return Status::Ok();
  }

  uint8_t opened_class = 0;
  bool silent = false;
  uint16_t sm_lid = 7;
  int sends = 0;
  std::vector<MadAddress> sent;

 private:
  // An eventfd-like pipe the loop can watch.
  struct LoopFd {
    int fds[2] = {-1, -1};
    Status Init() {
      if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) return Status::FromErrno("pipe2");
      return Status::Ok();
    }
    ~LoopFd() {
      if (fds[0] >= 0) close(fds[0]);
      if (fds[1] >= 0) close(fds[1]);
    }
    int fd() const { return fds[0]; }
    void Signal() { (void)!write(fds[1], "x", 1); }
    void Drain() {
      char b[64];
      while (read(fds[0], b, sizeof(b)) > 0) {
      }
    }
  } loop_fd_;
  std::deque<std::vector<uint8_t>> queue_;
};

}  // namespace

TEST_GROUP(SmLidProbe){};

TEST(SmLidProbe, TheRequestIsADirectedRoutePortInfoGetWithNoHops) {
  uint8_t m[256];
  ssa::EncodeLocalPortInfoGet(0x1234, 1, m);
  CHECK_EQUAL(1, m[0]);
  CHECK_EQUAL(0x81, m[1]);
  CHECK_EQUAL(1, m[2]);
  CHECK_EQUAL(ssa::mad::kMethodGet, m[3]);
  CHECK_EQUAL(0, m[4] | m[5] | m[6] | m[7]);  // D bit, status, hop pointer, hop count
  CHECK_EQUAL(0x1234u, static_cast<uint32_t>(ssa::mad::MadTid(m)));
  CHECK_EQUAL(0x0015, m[16] << 8 | m[17]);
  CHECK_EQUAL(1, m[23]);
  for (int i = 32; i < 36; ++i) CHECK_EQUAL(0xff, m[i]);  // permissive DrSLID, DrDLID
}

TEST(SmLidProbe, TheAnswerGivesTheMasterSmLidAndSl) {
  uint8_t req[256];
  ssa::EncodeLocalPortInfoGet(1, 1, req);
  std::vector<uint8_t> a = PortInfoAnswer(req, 0x1234, 5);
  uint16_t lid = 0;
  uint8_t sl = 0;
  CHECK_OK(ssa::DecodePortInfoSm(a.data(), a.size(), &lid, &sl));
  CHECK_EQUAL(0x1234, lid);
  CHECK_EQUAL(5, sl);

  std::vector<uint8_t> bad = a;
  bad[4] = 0;  // no D bit: our own request looped back
  CHECK_EQUAL(-EBADMSG, ssa::DecodePortInfoSm(bad.data(), bad.size(), &lid, &sl).code());
  bad = a;
  bad[5] = 0x1c;  // an error status
  CHECK_EQUAL(-EBADMSG, ssa::DecodePortInfoSm(bad.data(), bad.size(), &lid, &sl).code());
  bad = a;
  bad[17] = 0x11;  // NodeInfo
  CHECK_EQUAL(-EBADMSG, ssa::DecodePortInfoSm(bad.data(), bad.size(), &lid, &sl).code());
  CHECK_EQUAL(-EBADMSG, ssa::DecodePortInfoSm(a.data(), 100, &lid, &sl).code());
}

TEST(SmLidProbe, OneSmpAnswersEveryoneWaitingAndSilenceEndsInATimeout) {
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  ssa::Logger log;
  log.set_level(ssa::LogLevel::kError);
  auto port = std::make_unique<FakePort>();
  FakePort* p = port.get();
  ssa::SmLidProbe probe(&loop, std::move(port), &log, 1, 20, 2);
  CHECK_OK(probe.Start());
  CHECK_EQUAL(0x81, p->opened_class);

  std::vector<uint16_t> got;
  for (int i = 0; i < 3; ++i) probe.AskLid([&got](uint16_t lid) { got.push_back(lid); });
  CHECK(loop.RunUntil([&] { return got.size() == 3; }, std::chrono::seconds(5)));
  CHECK_EQUAL(1, p->sends);
  for (uint16_t l : got) CHECK_EQUAL(7, l);
  CHECK_EQUAL(0xFFFF, p->sent[0].dlid);
  CHECK_EQUAL(0u, p->sent[0].qpn);

  p->silent = true;
  Status result;
  bool done = false;
  probe.Ask([&](Status st, uint16_t, uint8_t) {
    result = st;
    done = true;
  });
  CHECK(loop.RunUntil([&] { return done; }, std::chrono::seconds(5)));
  CHECK_EQUAL(-ETIMEDOUT, result.code());
  CHECK_EQUAL(1 + 3, p->sends);  // one try and two retries
  probe.Stop();
}

TEST_GROUP(EpochWatch){};

TEST(EpochWatch, JoinsCarryEpochsAndDigestsOfBothDatabases) {
  tree::JoinRequest r;
  r.roles = tree::kRoleAccess;
  r.port_guid = 0x42;
  r.epoch = 9;
  r.digest = 0xdeadbeef;
  r.addr_epoch = 4;
  r.addr_digest = 0x01020304;
  CHECK_OK(tree::DataAddress::Parse("127.0.0.1:1", &r.data_address));
  uint8_t m[256];
  tree::EncodeJoin(r, 1, m);
  tree::JoinRequest back;
  CHECK_OK(tree::DecodeJoin(m, &back));
  CHECK_EQUAL(9u, back.epoch);
  CHECK_EQUAL(0xdeadbeefu, back.digest);
  CHECK_EQUAL(4u, back.addr_epoch);
  CHECK_EQUAL(0x01020304u, back.addr_digest);
  m[24 + 168] = 1;  // the first reserved byte after them
  CHECK_EQUAL(-EBADMSG, tree::DecodeJoin(m, &back).code());
}

TEST(EpochWatch, AnotherCoresDatabaseIsReportedOnceAndOnlyByEpochForConsumers) {
  tree::EpochWatch w;
  w.SetSmdb(1, 0xaaaa);
  w.SetAddr(1, 0xbbbb);
  tree::JoinRequest access;
  access.roles = tree::kRoleAccess;
  access.port_guid = 2;
  access.epoch = 1;
  access.digest = 0xaaaa;
  access.addr_epoch = 1;
  access.addr_digest = 0xbbbb;
  uint64_t smdb = 0, addr = 0;
  std::vector<std::string> notes;
  // Ours: nothing to do.
  CHECK_FALSE(w.Consider(access, &smdb, &addr, &notes));
  CHECK(notes.empty());
  // A consumer's PRDB digest is not the SMDB's: its epoch number alone counts.
  tree::JoinRequest consumer = access;
  consumer.roles = tree::kRoleConsumer;
  consumer.digest = 0x1111;
  CHECK_FALSE(w.Consider(consumer, &smdb, &addr, &notes));
  // The same epoch under another digest: another core's SMDB.
  access.digest = 0xcccc;
  CHECK(w.Consider(access, &smdb, &addr, &notes));
  CHECK_EQUAL(1u, smdb);
  CHECK_EQUAL(0u, addr);
  CHECK_EQUAL(1u, notes.size());
  STRCMP_CONTAINS("another digest", notes[0].c_str());
  // Every other member of the old core says the same: reported once.
  CHECK_FALSE(w.Consider(access, &smdb, &addr, &notes));
  // A consumer ahead in number, and an address database ahead.
  consumer.epoch = 6;
  consumer.addr_epoch = 3;
  CHECK(w.Consider(consumer, &smdb, &addr, &notes));
  CHECK_EQUAL(6u, smdb);
  CHECK_EQUAL(3u, addr);
  // After the core renumbered, the old epochs are behind it.
  w.SetSmdb(7, 0x7777);
  w.SetAddr(4, 0x4444);
  CHECK_FALSE(w.Consider(consumer, &smdb, &addr, &notes));
  // A claim beyond any plausible history is logged and ignored.
  notes.clear();
  consumer.epoch = 7 + tree::kMaxEpochJump + 1;
  CHECK_FALSE(w.Consider(consumer, &smdb, &addr, &notes));
  CHECK_EQUAL(1u, notes.size());
  STRCMP_CONTAINS("implausibly", notes[0].c_str());
  CHECK_EQUAL(6u, smdb);
}
