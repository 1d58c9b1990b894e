// mad_faults_test.cc: the MAD transport's delay fault
// (common/mad/mad_faults.h) over the in-process MAD fabric: each MAD comes
// out no earlier than the delay, in order; the fd the owner watches is
// readable exactly when something is due (an EventLoop is not spun while
// MADs are held back); closing drops what is held; the keys. The other
// faults (drop, dup, reorder) with delay still deliver every MAD, and a
// reordered MAD is never left behind.
//
// Times here only bound waits, except lower bounds (a delay is never
// shorter than asked, whatever the load).
#include "common/mad/mad_faults.h"

#include <poll.h>
#include <sys/epoll.h>

#include <chrono>
#include <memory>
#include <set>
#include <vector>

#include "common/base/event_loop.h"
#include "common/mad/mad_wire.h"
#include "common/tree/inproc_mad.h"
#include "common/tree/ssa_mad.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using ssa::FaultyMadTransport;
using ssa::MadAddress;
using ssa::MadTransport;
using ssa::ReceivedMad;
using ssa::Status;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
namespace mad = ssa::mad;
namespace tree = ssa::tree;

namespace {

bool Readable(const MadTransport& t, int timeout_ms = 0) {
  pollfd p = {t.fd(), POLLIN, 0};
  return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

Status SendTid(MadTransport* t, uint64_t tid, uint16_t dlid) {
  std::vector<uint8_t> m(mad::kMadSize, 0);
  mad::MadHeader h;
  h.mgmt_class = tree::kSsaClass;
  h.class_version = 1;
  h.method = mad::kMethodGet;
  h.tid = tid;
  h.attr_id = 0x10;
  mad::EncodeMadHeader(h, m.data());
  MadAddress to;
  to.dlid = dlid;
  return t->Send(m.data(), m.size(), to, 100);
}

uint32_t Tid(const ReceivedMad& m) { return static_cast<uint32_t>(mad::MadTid(m.data)); }

}  // namespace

TEST_GROUP(MadFaults) {
  tree::InprocMadFabric fabric;
  std::unique_ptr<MadTransport> sender;
  std::unique_ptr<MadTransport> receiver;  // LID 2, wrapped

  // `open_first`: the receiver is opened before it is wrapped, as the
  // daemons do.
  void Open(const std::string& spec, bool open_first = false) {
    sender = fabric.NewTransport(1);
    receiver = fabric.NewTransport(2);
    if (open_first) CHECK_OK(receiver->Open(tree::kSsaClass, 1));
    Status st = ssa::WrapMadFaults(spec, &receiver);
    CHECK_OK(st);
    CHECK_OK(sender->Open(tree::kSsaClass, 1));
    if (!open_first) CHECK_OK(receiver->Open(tree::kSsaClass, 1));
    CHECK(receiver->fd() >= 0);
  }
  const ssa::MadFaultCounters& counters() {
    return static_cast<FaultyMadTransport*>(receiver.get())->counters();
  }
};

TEST(MadFaults, DelayIsAKeyAndUnknownOnesAreErrors) {
  std::unique_ptr<MadTransport> t = fabric.NewTransport(3);
  CHECK_OK(ssa::WrapMadFaults("delay=250,drop=0.1,seed=2", &t));
  t = fabric.NewTransport(3);
  Status st = ssa::WrapMadFaults("delay=250,stall=1", &t);
  CHECK_EQUAL(-EINVAL, st.code());
  STRCMP_CONTAINS("stall", st.message().c_str());
}

TEST(MadFaults, DelayedMadsComeNoEarlierThanTheDelayAndInOrder) {
  Open("delay=200");
  auto t0 = Clock::now();
  for (uint32_t i = 1; i <= 3; ++i) CHECK_OK(SendTid(sender.get(), i, 2));
  ReceivedMad in;
  // Taken in but not due: EAGAIN, and the fd says so.
  CHECK_EQUAL(-EAGAIN, receiver->Receive(&in).code());
  if (Clock::now() - t0 < 150ms)
    CHECK_FALSE(Readable(*receiver));  // (a loaded machine may be late)
  CHECK(Readable(*receiver, 20000));
  CHECK(Clock::now() - t0 >= 200ms);
  for (uint32_t i = 1; i <= 3; ++i) {
    Status st = receiver->Receive(&in);
    CHECK_OK(st);
    CHECK_EQUAL(i, Tid(in));
    CHECK_EQUAL(1, in.slid);
  }
  CHECK_EQUAL(-EAGAIN, receiver->Receive(&in).code());
  CHECK_FALSE(Readable(*receiver));
  CHECK_EQUAL(3u, counters().delayed);
}

// Level-triggered, as the daemons watch it: a handful of wakeups per MAD,
// not a spin while it is held back.
TEST(MadFaults, AnEventLoopIsNotSpunWhileMadsAreHeldBack) {
  Open("delay=300", true);
  ssa::EventLoop loop;
  CHECK_OK(loop.Init());
  int wakeups = 0;
  std::vector<uint32_t> got;
  CHECK_OK(loop.WatchFd(receiver->fd(), EPOLLIN, [&](uint32_t) {
    ++wakeups;
    ReceivedMad in;
    while (receiver->Receive(&in).ok()) got.push_back(Tid(in));
  }));
  auto t0 = Clock::now();
  CHECK_OK(SendTid(sender.get(), 7, 2));
  CHECK(loop.RunUntil([&] { return !got.empty(); }, 20s));
  CHECK(Clock::now() - t0 >= 300ms);
  CHECK_EQUAL(7u, got[0]);
  CHECK_TEXT(wakeups <= 4, std::to_string(wakeups).c_str());
  loop.UnwatchFd(receiver->fd());
}

TEST(MadFaults, WithTheOtherFaultsEveryMadStillComesOnce) {
  Open("delay=50,reorder=0.5,seed=5");
  std::set<uint32_t> want;
  for (uint32_t i = 1; i <= 20; ++i) {
    CHECK_OK(SendTid(sender.get(), i, 2));
    want.insert(i);
  }
  std::set<uint32_t> got;
  auto end = Clock::now() + 20s;
  while (got.size() < want.size() && Clock::now() < end) {
    Readable(*receiver, 100);
    ReceivedMad in;
    while (receiver->Receive(&in).ok()) CHECK(got.insert(Tid(in)).second);
  }
  std::string seen;
  for (uint32_t t : got) seen += std::to_string(t) + " ";
  CHECK_TEXT(got == want, seen.c_str());
  CHECK(counters().reordered > 0);
}

// A MAD held back for reordering comes out as soon as nothing else waits
// (it used to wait for the next MAD: EAGAIN was compared with the wrong
// sign).
TEST(MadFaults, AReorderedMadIsNeverLeftBehind) {
  Open("reorder=1");
  CHECK_OK(SendTid(sender.get(), 9, 2));
  ReceivedMad in;
  Status st = receiver->Receive(&in);
  CHECK_OK(st);
  CHECK_EQUAL(9u, Tid(in));
  CHECK_EQUAL(1u, counters().reordered);
}

TEST(MadFaults, ClosingDropsWhatIsHeldAndReopens) {
  Open("delay=60000");
  CHECK_OK(SendTid(sender.get(), 1, 2));
  ReceivedMad in;
  CHECK_EQUAL(-EAGAIN, receiver->Receive(&in).code());
  receiver->Close();
  CHECK_EQUAL(-1, receiver->fd());
  receiver->Close();  // twice is fine
  CHECK_OK(receiver->Open(tree::kSsaClass, 1));
  CHECK(receiver->fd() >= 0);
  CHECK_EQUAL(-EAGAIN, receiver->Receive(&in).code());
  CHECK_FALSE(Readable(*receiver));
}
