// datagram_sim_test.cc: the datagram transport's simulated backend between
// endpoints in one process (unicast with what a receive completion
// reports, multicast to joined members including the sender, Q_Key and
// P_Key checks, dead members and QPN reuse, the fault wrapper's drops and
// delays), and the verbs backend failing cleanly where there is no HCA.
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "providers/acmp/datagram_transport.h"
#include "providers/acmp/sim_datagram.h"
#include "providers/acmp/verbs_datagram.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::dgram;
using Clock = std::chrono::steady_clock;

namespace {

Gid MakeGid(uint8_t last) {
  Gid g;
  g.raw[0] = 0xfe;
  g.raw[1] = 0x80;
  g.raw[15] = last;
  return g;
}

Group MakeGroup(uint8_t tag) {
  Group g;
  g.mgid.raw[0] = 0xff;
  g.mgid.raw[1] = 0x15;
  g.mgid.raw[15] = tag;
  g.mlid = 0xc001;
  return g;
}

// Waits (with a deadline) until `ep` has a datagram, then takes it.
bool ReceiveWithin(DatagramEndpoint* ep, Datagram* out, int ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(ms);
  for (;;) {
    if (ep->Receive(out)) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p = {ep->fd(), POLLIN, 0};
    poll(&p, 1, static_cast<int>(left.count()));
  }
}

void RemoveTree(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  CHECK_EQUAL(0, system(cmd.c_str()));
}

}  // namespace

TEST_GROUP(DatagramSim) {
  std::string dir;
  std::unique_ptr<DatagramTransport> transport;

  void setup() override {
    char tmpl[] = "/tmp/dgram-test-XXXXXX";
    CHECK(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    transport = MakeSimDatagramTransport(dir);
  }
  void teardown() override { RemoveTree(dir); }

  std::unique_ptr<DatagramEndpoint> Open(uint16_t lid, uint16_t pkey = 0xffff,
                                         uint32_t qkey = 0x80010000) {
    EndpointParams p;
    p.ca_name = "ibsim0";
    p.lid = lid;
    p.gid = MakeGid(static_cast<uint8_t>(lid));
    p.pkey = pkey;
    p.qkey = qkey;
    std::unique_ptr<DatagramEndpoint> ep;
    ssa::Status st = transport->Open(p, &ep);
    CHECK_OK(st);
    return ep;
  }
};

TEST(DatagramSim, UnicastCarriesWhatAReceiveCompletionReports) {
  auto a = Open(2), b = Open(3);
  LONGS_EQUAL(kSimFirstQpn, a->qpn());
  LONGS_EQUAL(kSimFirstQpn, b->qpn());  // QPNs are per LID
  UnicastTarget to;
  to.av.dlid = 3;
  to.av.sl = 4;
  to.av.global = true;
  to.av.dgid = MakeGid(3);
  to.qpn = b->qpn();
  to.qkey = 0x80010000;
  const uint8_t msg[5] = {1, 2, 3, 4, 5};
  CHECK_OK(a->Send(to, msg, sizeof(msg)));
  Datagram d;
  CHECK_TRUE(ReceiveWithin(b.get(), &d, 2000));
  LONGS_EQUAL(5, d.len);
  MEMCMP_EQUAL(msg, d.data, 5);
  LONGS_EQUAL(2, d.slid);
  LONGS_EQUAL(a->qpn(), d.src_qpn);
  LONGS_EQUAL(4, d.sl);
  CHECK_TRUE(d.has_grh);
  CHECK(d.sgid == MakeGid(2));
  CHECK_FALSE(d.multicast);
  CHECK_FALSE(b->Receive(&d));
  LONGS_EQUAL(1, a->stats().sent);
  LONGS_EQUAL(1, b->stats().received);
  // Too big for a UD datagram: refused by the sender.
  uint8_t big[kMaxPayload + 1] = {};
  CHECK_FALSE(a->Send(to, big, sizeof(big)).ok());
  // A target that does not exist: lost on the way, not an error.
  to.qpn = 0x999;
  CHECK_OK(a->Send(to, msg, sizeof(msg)));
  LONGS_EQUAL(1, a->stats().undeliverable);
}

TEST(DatagramSim, MulticastReachesJoinedMembersOnlyTheSenderIncluded) {
  auto a = Open(2), b = Open(3), c = Open(4);
  Group g = MakeGroup(1);
  CHECK_OK(a->Join(g));
  CHECK_OK(b->Join(g));
  const uint8_t msg[3] = {9, 8, 7};
  CHECK_OK(a->SendToGroup(g, msg, sizeof(msg)));
  Datagram d;
  CHECK_TRUE(ReceiveWithin(b.get(), &d, 2000));
  CHECK_TRUE(d.multicast);
  CHECK(d.dgid == g.mgid);
  LONGS_EQUAL(2, d.slid);
  CHECK_TRUE(ReceiveWithin(a.get(), &d, 2000));  // IB multicast loopback
  LONGS_EQUAL(a->qpn(), d.src_qpn);
  CHECK_FALSE(ReceiveWithin(c.get(), &d, 50));  // not a member
  // After Leave, b gets nothing.
  CHECK_OK(b->Leave(g));
  CHECK_OK(a->SendToGroup(g, msg, sizeof(msg)));
  CHECK_TRUE(ReceiveWithin(a.get(), &d, 2000));
  CHECK_FALSE(ReceiveWithin(b.get(), &d, 50));
}

TEST(DatagramSim, WrongQkeyOrPkeyIsDroppedByTheReceiver) {
  auto a = Open(2, 0xffff, 0x11111111), b = Open(3), c = Open(4, 0x8001);
  UnicastTarget to;
  to.av.dlid = 3;
  to.qpn = b->qpn();
  to.qkey = 0x11111111;  // b's Q_Key is 0x80010000
  const uint8_t msg[1] = {1};
  CHECK_OK(a->Send(to, msg, 1));
  Datagram d;
  CHECK_FALSE(ReceiveWithin(b.get(), &d, 100));
  LONGS_EQUAL(1, b->stats().rejected);
  LONGS_EQUAL(1, b->stats().rejected_by[static_cast<int>(RejectReason::kWrongQkey)]);
  // c is in partition 0x8001, b in 0xffff.
  to.av.dlid = 4;
  to.qpn = c->qpn();
  to.qkey = 0x80010000;
  CHECK_OK(b->Send(to, msg, 1));
  CHECK_FALSE(ReceiveWithin(c.get(), &d, 100));
  LONGS_EQUAL(1, c->stats().rejected);
  LONGS_EQUAL(1, c->stats().rejected_by[static_cast<int>(RejectReason::kWrongPkey)]);
  STRCMP_EQUAL("P_Key mismatch", RejectReasonName(RejectReason::kWrongPkey));
}

TEST(DatagramSim, BadFramingIsRejectedWithItsReason) {
  auto b = Open(3);
  std::string path = dir + "/ud/3." + [&] {
    char q[16];
    snprintf(q, sizeof(q), "%x", b->qpn());
    return std::string(q);
  }();
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  CHECK(fd >= 0);
  sockaddr_un sa = {};
  sa.sun_family = AF_UNIX;
  snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
  const char junk[] = "not a datagram header";
  CHECK(sendto(fd, junk, sizeof(junk), 0, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) > 0);
  close(fd);
  Datagram d;
  CHECK_FALSE(ReceiveWithin(b.get(), &d, 100));
  LONGS_EQUAL(1, b->stats().rejected_by[static_cast<int>(RejectReason::kBadHeader)]);
  // What follows is received as usual.
  auto a = Open(2);
  UnicastTarget to;
  to.av.dlid = 3;
  to.qpn = b->qpn();
  to.qkey = 0x80010000;
  const uint8_t msg[1] = {1};
  CHECK_OK(a->Send(to, msg, 1));
  CHECK_TRUE(ReceiveWithin(b.get(), &d, 2000));
  LONGS_EQUAL(1, b->stats().rejected);
}

TEST(DatagramSim, DeadMembersAreDroppedAndTheirQpnReused) {
  auto a = Open(2);
  Group g = MakeGroup(2);
  CHECK_OK(a->Join(g));
  {
    auto b = Open(3);
    CHECK_OK(b->Join(g));
  }  // destroyed: socket and membership removed
  auto b2 = Open(3);
  LONGS_EQUAL(kSimFirstQpn, b2->qpn());
  const uint8_t msg[1] = {1};
  CHECK_OK(a->SendToGroup(g, msg, 1));
  Datagram d;
  CHECK_FALSE(ReceiveWithin(b2.get(), &d, 50));  // it has not joined
  // A second endpoint on one LID gets the next QPN.
  auto b3 = Open(3);
  LONGS_EQUAL(kSimFirstQpn + 1, b3->qpn());
}

TEST(DatagramSim, FaultsDropEverythingOrDelayIt) {
  auto a = Open(2);
  std::unique_ptr<DatagramEndpoint> dropper, delayed;
  FaultOptions drop_all;
  drop_all.drop_probability = 1.0;
  CHECK_OK(WithFaults(Open(3), drop_all, &dropper));
  FaultOptions slow;
  slow.delay_ms = 150;
  CHECK_OK(WithFaults(Open(4), slow, &delayed));
  UnicastTarget to;
  to.qpn = kSimFirstQpn;
  to.qkey = 0x80010000;
  const uint8_t msg[1] = {1};
  to.av.dlid = 3;
  for (int i = 0; i < 5; ++i) CHECK_OK(a->Send(to, msg, 1));
  Datagram d;
  CHECK_FALSE(ReceiveWithin(dropper.get(), &d, 100));
  LONGS_EQUAL(5, dropper->stats().injected_drops);
  LONGS_EQUAL(0, dropper->stats().received);
  to.av.dlid = 4;
  auto start = Clock::now();
  CHECK_OK(a->Send(to, msg, 1));
  CHECK_TRUE(ReceiveWithin(delayed.get(), &d, 3000));
  auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  CHECK(waited.count() >= 150);
  LONGS_EQUAL(1, delayed->stats().injected_delays);
  LONGS_EQUAL(1, delayed->stats().received);
}

TEST(DatagramSim, HalfTheDatagramsDropRandomlyButDeterministically) {
  auto a = Open(2);
  std::unique_ptr<DatagramEndpoint> lossy;
  FaultOptions half;
  half.drop_probability = 0.5;
  half.seed = 42;
  CHECK_OK(WithFaults(Open(3), half, &lossy));
  UnicastTarget to;
  to.av.dlid = 3;
  to.qpn = kSimFirstQpn;
  to.qkey = 0x80010000;
  const uint8_t msg[1] = {1};
  int got = 0;
  for (int i = 0; i < 40; ++i) {
    CHECK_OK(a->Send(to, msg, 1));
    Datagram d;
    // Sent one at a time: the socket queue holds 10 at most.
    auto deadline = Clock::now() + std::chrono::milliseconds(200);
    while (lossy->stats().injected_drops + lossy->stats().received < static_cast<uint64_t>(i + 1) &&
           Clock::now() < deadline) {
      if (lossy->Receive(&d)) ++got;
    }
  }
  CHECK(got > 5 && got < 35);
  LONGS_EQUAL(40, got + static_cast<int>(lossy->stats().injected_drops));
}

TEST(DatagramSim, DefaultDirectoryFollowsTheFabric) {
  // The environment is the process's: put back what was there.
  struct Saved {
    const char* name;
    bool set;
    std::string value;
  } saved[] = {{"SIMFAB_DIR", false, ""}, {"IBSIM_SOCKNAME", false, ""}, {"TMPDIR", false, ""}};
  for (auto& s : saved)
    if (const char* v = getenv(s.name)) s.set = true, s.value = v;
  setenv("SIMFAB_DIR", "/run/fab1", 1);
  STRCMP_EQUAL("/run/fab1/acmp-dgram", DefaultSimDatagramDir().c_str());
  unsetenv("SIMFAB_DIR");
  setenv("IBSIM_SOCKNAME", "a/b", 1);
  setenv("TMPDIR", "/var/tmp", 1);
  STRCMP_EQUAL("/var/tmp/ibacm-acmp-dgram-a_b", DefaultSimDatagramDir().c_str());
  for (auto& s : saved) {
    if (s.set)
      setenv(s.name, s.value.c_str(), 1);
    else
      unsetenv(s.name);
  }
}

TEST_GROUP(DatagramVerbs){};

TEST(DatagramVerbs, OpeningWithoutThatDeviceFailsCleanly) {
  auto t = MakeVerbsDatagramTransport();
  STRCMP_EQUAL("verbs", t->name());
  EndpointParams p;
  p.ca_name = "no_such_hca_0";
  p.lid = 2;
  std::unique_ptr<DatagramEndpoint> ep;
  ssa::Status st = t->Open(p, &ep);
  CHECK_FALSE(st.ok());
  CHECK(ep == nullptr);
  LONGS_EQUAL(-ENODEV, st.code());
  STRCMP_CONTAINS("no_such_hca_0", st.message().c_str());
  CHECK(VerbsDeviceCount() >= 0);
}
