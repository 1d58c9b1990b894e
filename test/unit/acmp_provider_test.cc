// acmp_provider_test.cc: the built acmp provider, several instances in one
// process exchanging ACM messages over the simulated datagram transport,
// with a fake core and SA (acmp_fake_fabric.h): names, IPv4 and IPv6
// resolve; every receiver caches the requester; routes from the SA or the
// group; timeouts after the retries and recovery; the flushes on SM
// changes, re-registration and address removal; malformed and unexpected
// datagrams counted and dropped; NODELAY; requests waiting for the join;
// QUERY_SA; LID destinations.
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "common/base/big_endian.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/acmp/sim_datagram.h"
#include "test/support/check_ok.h"
#include "test/unit/acmp_fake_fabric.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using acmp_test::FakeFabric;
using acmp_test::FakeNode;
namespace acmp = ssa::acmp;
namespace dgram = ssa::dgram;

namespace {

size_t CountLogs(const FakeNode* n, const std::string& text) {
  size_t c = 0;
  for (const auto& l : n->logs)
    if (l.find(text) != std::string::npos) ++c;
  return c;
}

}  // namespace

TEST_GROUP(AcmpProvider) {
  std::unique_ptr<FakeFabric> fab;
  // A rogue endpoint on the same simulated fabric (OpenRogue), for the
  // tests that send what no acmp instance would.
  std::unique_ptr<dgram::DatagramTransport> transport;
  std::unique_ptr<dgram::DatagramEndpoint> rogue;
  // What the rogue sends that is no ACM message.
  const std::vector<uint8_t> junk = std::vector<uint8_t>(100, 0xa5);
  void setup() override { fab = std::make_unique<FakeFabric>(); }
  void teardown() override {
    rogue.reset();
    transport.reset();
    fab.reset();
  }

  void OpenRogue() {
    transport = dgram::MakeSimDatagramTransport(fab->dir() + "/dgram");
    dgram::EndpointParams p;
    p.lid = 99;
    p.gid.raw[15] = 99;
    p.qkey = acmp::kAcmQkey;
    CHECK_OK(transport->Open(p, &rogue));
  }

  // Unicast straight to n's QPN, with the ACM Q_Key unless told otherwise.
  static dgram::UnicastTarget ToQpnOf(const FakeNode* n, uint32_t qkey = acmp::kAcmQkey) {
    dgram::UnicastTarget to;
    to.av.dlid = n->lid;
    to.qpn = dgram::kSimFirstQpn;
    to.qkey = qkey;
    return to;
  }

  // Nodes 1 and 2, both added before either starts.
  std::pair<FakeNode*, FakeNode*> StartTwoNodes() {
    FakeNode* a = fab->AddNode(1);
    FakeNode* b = fab->AddNode(2);
    fab->Start(a);
    fab->Start(b);
    return {a, b};
  }

  void CheckPathTo(const FakeNode::Answer& a, const FakeNode* from, const FakeNode* to) {
    LONGS_EQUAL(ACM_STATUS_SUCCESS, a.status);
    CHECK_TRUE(a.has_path);
    LONGS_EQUAL(to->lid, ssa::FromBe16(a.path.dlid));
    LONGS_EQUAL(from->lid, ssa::FromBe16(a.path.slid));
    MEMCMP_EQUAL(to->gid, a.path.dgid.raw, 16);
    MEMCMP_EQUAL(from->gid, a.path.sgid.raw, 16);
    LONGS_EQUAL(0xffff, ssa::FromBe16(a.path.pkey));
  }
};

TEST(AcmpProvider, NamesIpv4AndIpv6ResolveWithSaRoutes) {
  auto [a, b] = StartTwoNodes();
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Ip("10.0.0.2")), a, b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Ip6("fd00::2")), a, b);
  const FakeNode::Answer& r = fab->ResolveNow(b, FakeFabric::Name("NODE1"));
  CheckPathTo(r, b, a);
  LONGS_EQUAL(0x92, r.path.packetlifetime);  // the SA's record, as it came
  LONGS_EQUAL(3, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  LONGS_EQUAL(3, fab->Counter(a, ACM_CNTR_ROUTE_QUERY));
  // Again: from the cache, nothing asked.
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Ip6("fd00::2")), a, b);
  LONGS_EQUAL(3, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ROUTE_CACHE));
  LONGS_EQUAL(1, a->global_counters[ACM_CNTR_ROUTE_CACHE]);
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ERROR));
  // A local name answers from the port (loopback_prot local).
  const FakeNode::Answer& self = fab->ResolveNow(a, FakeFabric::Name("node1"));
  CheckPathTo(self, a, a);
  LONGS_EQUAL(0x84, self.path.mtu);
  // A name nobody has: ETIMEDOUT after the retries.
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, fab->ResolveNow(a, FakeFabric::Name("node9")).status);
  LONGS_EQUAL(1, CountLogs(a, "no answer for node9 after 3 tries"));
}

// Upstream keeps at most 4 addresses per endpoint; here any number resolve.
TEST(AcmpProvider, AnEndpointWithManyAddressesAnswersForEachOfThem) {
  FakeNode* a = fab->AddNode(1);
  FakeNode* b = fab->AddNode(2);
  b->aliases = 12;
  fab->Start(a);
  fab->Start(b);
  LONGS_EQUAL(15, b->addr_ctx.size());
  for (int alias = 1; alias <= 12; ++alias)
    CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2-alias" + std::to_string(alias))), a, b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Ip6("fd00::2")), a, b);
  LONGS_EQUAL(13, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ERROR));
}

TEST(AcmpProvider, EveryReceiverCachesTheRequester) {
  FakeNode* a = fab->AddNode(1);
  FakeNode* b = fab->AddNode(2);
  FakeNode* c = fab->AddNode(3);
  fab->Start(a);
  fab->Start(b);
  fab->Start(c);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  // c saw a's request: it resolves node1 without a request of its own.
  CheckPathTo(fab->ResolveNow(c, FakeFabric::Name("node1")), c, a);
  LONGS_EQUAL(0, fab->Counter(c, ACM_CNTR_ADDR_QUERY));
  LONGS_EQUAL(1, fab->Counter(c, ACM_CNTR_ADDR_CACHE));
  LONGS_EQUAL(1, fab->Counter(c, ACM_CNTR_ROUTE_QUERY));  // route_prot sa
  // So did b, the owner.
  CheckPathTo(fab->ResolveNow(b, FakeFabric::Name("node1")), b, a);
  LONGS_EQUAL(0, fab->Counter(b, ACM_CNTR_ADDR_QUERY));
}

TEST(AcmpProvider, AcmRoutesComeFromTheSharedGroupWithoutPathQueries) {
  std::vector<std::pair<std::string, std::string>> acm = {{"route_prot", "acm"}};
  FakeNode* a = fab->AddNode(1, acm);
  FakeNode* b = fab->AddNode(2, acm);
  FakeNode* c = fab->AddNode(3, acm);
  fab->Start(a);
  fab->Start(b);
  fab->Start(c);
  const FakeNode::Answer& r = fab->ResolveNow(a, FakeFabric::Name("node2"));
  CheckPathTo(r, a, b);
  LONGS_EQUAL(0x84, r.path.mtu);  // the group's MTU and rate, "exactly"
  LONGS_EQUAL(0x83, r.path.rate);
  // Not the group's lifetime (0): the subnet timeout (8 here), as the SA
  // gives a unicast path, and NumbPath 0 as in the SA's answer.
  LONGS_EQUAL(0x88, r.path.packetlifetime);
  LONGS_EQUAL(0x80, r.path.reversible_numpath);
  LONGS_EQUAL(0, fab->path_queries);
  // c has a's route already: a cache hit, no query of any kind.
  CheckPathTo(fab->ResolveNow(c, FakeFabric::Name("node1")), c, a);
  LONGS_EQUAL(1, fab->Counter(c, ACM_CNTR_ROUTE_CACHE));
  LONGS_EQUAL(0, fab->Counter(c, ACM_CNTR_ADDR_QUERY));
  LONGS_EQUAL(0, fab->path_queries);
}

TEST(AcmpProvider, AStoppedOwnerTimesOutAfterTheRetriesAndResolvesAfterItsRestart) {
  auto [a, b] = StartTwoNodes();
  fab->Stop(b);
  auto start = std::chrono::steady_clock::now();
  LONGS_EQUAL(ACM_STATUS_ETIMEDOUT, fab->ResolveNow(a, FakeFabric::Name("node2")).status);
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  CHECK(took.count() >= 3 * 50);  // 3 tries of timeout (50) + subnet timeout (1 ms)
  LONGS_EQUAL(1, CountLogs(a, "no answer for node2 after 3 tries (51 ms each)"));
  fab->Start(b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
}

TEST(AcmpProvider, SmChangesAndReregistrationFlushTheCacheAndRejoin) {
  auto [a, b] = StartTwoNodes();
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  int joins = a->sa_sent[0x0038];
  // The SM moved: cached destinations are dropped and groups joined anew.
  a->port.sm_lid = 7;
  fab->prov()->port_changed(a->port_ctx, &a->port);
  STRCMP_CONTAINS("1 cached destinations dropped", a->AllLogs().c_str());
  CHECK(fab->RunUntil([&] { return CountLogs(a, " ready (QPN") == 2; }, 5000));
  CHECK(a->sa_sent[0x0038] > joins);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  LONGS_EQUAL(2, fab->Counter(a, ACM_CNTR_ADDR_QUERY));  // asked again
  // Client re-registration: the same, without any port attribute change.
  CHECK(fab->prov()->port_event != nullptr);
  fab->prov()->port_event(a->port_ctx, SSA_PORT_EVENT_CLIENT_REREGISTER);
  CHECK(fab->RunUntil([&] { return CountLogs(a, " ready (QPN") == 3; }, 5000));
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  LONGS_EQUAL(3, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  fab->prov()->port_event(a->port_ctx, 99);  // unknown: ignored
  LONGS_EQUAL(3, CountLogs(a, " ready (QPN"));
  // A LID change moves the endpoint's datagram address too; b learns the
  // new one from a's next request.
  // On hardware the LID_CHANGE event follows (the core calls port_changed,
  // then port_event): flushed once, not twice.
  a->port.lid = 42;
  a->lid = 42;
  fab->prov()->port_changed(a->port_ctx, &a->port);
  fab->prov()->port_event(a->port_ctx, SSA_PORT_EVENT_LID_CHANGE);
  LONGS_EQUAL(1, CountLogs(a, "flushed for this change already"));
  CHECK(fab->RunUntil([&] { return CountLogs(a, " ready (QPN") == 4; }, 5000));
  LONGS_EQUAL(3, CountLogs(a, "cached destinations dropped"));  // SM, re-registration, LID
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  STRCMP_CONTAINS("node1 now at LID 42", b->AllLogs().c_str());
  CheckPathTo(fab->ResolveNow(b, FakeFabric::Name("node1")), b, a);
}

TEST(AcmpProvider, RemovingALocalAddressDropsWhatWasCachedAboutIt) {
  std::vector<std::pair<std::string, std::string>> none = {{"loopback_prot", "none"}};
  FakeNode* a = fab->AddNode(1, none);
  fab->Start(a);
  // loopback_prot none: our own name goes over the wire, and we answer.
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node1")), a, a);
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node1")), a, a);
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ROUTE_CACHE));
  fab->prov()->remove_address(a->addr_ctx[0]);
  a->addr_ctx.erase(a->addr_ctx.begin());
  // Not ours any more, and not cached: asked again, and nobody answers.
  uint64_t id = fab->Resolve(a, FakeFabric::Name("node1"));
  LONGS_EQUAL(2, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  const FakeNode::Answer& r = fab->Wait(a, id);
  LONGS_EQUAL_TEXT(ACM_STATUS_ETIMEDOUT, r.status, a->AllLogs().c_str());
}

TEST(AcmpProvider, MalformedAndUnexpectedDatagramsAreCountedAndDropped) {
  auto [a, b] = StartTwoNodes();
  OpenRogue();
  dgram::Group g;
  g.mgid = acmp::AcmMgid(0xffff, 0, 3, 4);
  g.mlid = 0xc001;
  CHECK_OK(rogue->SendToGroup(g, junk.data(), junk.size()));  // garbage
  acmp::AcmMessage m;
  m.src.type = acmp::kAddrName;
  strcpy(reinterpret_cast<char*>(m.src.data), "rogue");
  m.dest.type = 9;  // no such address type
  m.gid_count = 1;
  m.gids[0] = g.mgid;
  uint8_t buf[acmp::kAcmMessageSize];
  acmp::EncodeAcmMessage(m, buf);
  CHECK_OK(rogue->SendToGroup(g, buf, sizeof(buf)));
  buf[2] = 7;  // class version
  CHECK_OK(rogue->SendToGroup(g, buf, sizeof(buf)));
  // A response nobody asked for, straight to a's QPN.
  m.method = acmp::kAcmMethodResolve | acmp::kAcmMethodResponse;
  m.tid = 12345;
  acmp::EncodeAcmMessage(m, buf);
  dgram::UnicastTarget to = ToQpnOf(a);
  CHECK_OK(rogue->Send(to, buf, sizeof(buf)));
  CHECK(fab->RunUntil(
      [&] {
        return CountLogs(a, "malformed ACM message") == 3 &&
               CountLogs(a, "answers no request of ours") == 1;
      },
      5000));
  STRCMP_CONTAINS("bad address type", a->AllLogs().c_str());
  STRCMP_CONTAINS("not ACM", a->AllLogs().c_str());
  LONGS_EQUAL(3, CountLogs(b, "malformed ACM message"));
  // And both still serve.
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("node2")), a, b);
  CheckPathTo(fab->ResolveNow(b, FakeFabric::Name("node1")), b, a);
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ERROR));
}

// More datagrams ready at once than one Drain() batch (64), on an fd that
// does not wake again for what is left (the fault wrapper, like a verbs
// completion channel, wakes once when delayed datagrams come due): all are
// handled without a further arrival.
TEST(AcmpProvider, ABacklogLargerThanOneBatchIsDrainedWithoutAFurtherArrival) {
  // The delay must outlast the sends below, which under TSan on a busy
  // machine took over 250 ms.
  FakeNode* a = fab->AddNode(1, {{"fault_delay_ms", "1500"}});
  fab->Start(a);
  OpenRogue();
  dgram::UnicastTarget to = ToQpnOf(a);
  // Socket queues hold 10 datagrams: send in small bursts, letting the
  // node take each burst into the wrapper's delay queue.
  const int kTotal = 150;
  auto start = std::chrono::steady_clock::now();
  for (int sent = 0; sent < kTotal;) {
    for (int k = 0; k < 5 && sent < kTotal; ++k, ++sent)
      CHECK_OK(rogue->Send(to, junk.data(), junk.size()));
    fab->RunUntil([] { return false; }, 3);
  }
  // All must have reached the wrapper before the first came due.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1400));
  LONGS_EQUAL(0, rogue->stats().undeliverable);
  usleep(1600 * 1000);  // all due now, not one handled yet
  fab->RunUntil([] { return false; }, 300);
  fab->Stop(a);
  STRCMP_CONTAINS((std::to_string(kTotal) + " malformed").c_str(), a->AllLogs().c_str());
}

TEST(AcmpProvider, TransportRejectsAreWarnedAboutWhenTheyHappen) {
  FakeNode* a = fab->AddNode(1);
  fab->Start(a);
  OpenRogue();
  dgram::UnicastTarget to = ToQpnOf(a, 0x12345678);  // not the ACM Q_Key
  uint8_t buf[acmp::kAcmMessageSize] = {};
  CHECK_OK(rogue->Send(to, buf, sizeof(buf)));
  CHECK_OK(rogue->Send(to, buf, sizeof(buf)));
  CHECK(fab->RunUntil([&] { return CountLogs(a, "(wrong Q_Key); 2 so far") == 1; }, 5000));
  // Named, at WARN, with the count.
  bool warned = false;
  for (const auto& w : a->warnings)
    if (w.find("endpoint ibsim0/1 pkey 0xffff") == 0 &&
        w.find("rejected by the transport (wrong Q_Key); 2 so far") != std::string::npos)
      warned = true;
  CHECK_TEXT(warned, a->AllLogs().c_str());
}

TEST(AcmpProvider, CountersAreLoggedEveryStatsIntervalWhenTheyChanged) {
  FakeNode* a = fab->AddNode(1, {{"stats_interval", "1"}});
  fab->Start(a);
  OpenRogue();
  dgram::UnicastTarget to = ToQpnOf(a);
  CHECK_OK(rogue->Send(to, junk.data(), junk.size()));
  to.qkey = 0x12345678;
  CHECK_OK(rogue->Send(to, junk.data(), junk.size()));
  CHECK(fab->RunUntil([&] { return CountLogs(a, " statistics: ") == 1; }, 3000));
  std::string line;
  for (const auto& l : a->logs)
    if (l.find(" statistics: ") != std::string::npos) line = l;
  STRCMP_CONTAINS("endpoint ibsim0/1 pkey 0xffff statistics: ", line.c_str());
  STRCMP_CONTAINS("1 malformed", line.c_str());
  STRCMP_CONTAINS("1 rejected (wrong Q_Key 1)", line.c_str());
  // Nothing changed since: no other line. Bad input is not a client error.
  fab->RunUntil([] { return false; }, 1500);
  LONGS_EQUAL(1, CountLogs(a, " statistics: "));
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ERROR));
}

TEST(AcmpProvider, NodelayAnswersEnodataAtOnceAndWarmsTheCache) {
  auto [a, b] = StartTwoNodes();
  uint64_t id = fab->Resolve(a, FakeFabric::Name("node2"), ACM_FLAGS_NODELAY);
  CHECK(a->answers.count(id));  // inside resolve()
  LONGS_EQUAL(ACM_STATUS_ENODATA, a->answers[id].status);
  bool warm = fab->RunUntil(
      [&] {
        uint64_t i = fab->Resolve(a, FakeFabric::Name("node2"), ACM_FLAGS_NODELAY);
        return a->answers[i].status == ACM_STATUS_SUCCESS;
      },
      5000);
  CHECK_TRUE(warm);
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
  CHECK(fab->Counter(a, ACM_CNTR_NODATA) >= 1);
}

TEST(AcmpProvider, RequestsBeforeTheJoinWaitForItAndFailedJoinsAreRetried) {
  FakeNode* b = fab->AddNode(2);
  fab->Start(b);
  FakeNode* a = fab->AddNode(1);
  fab->join_failures_left = 1;  // a's first join is refused
  fab->Start(a, false);
  uint64_t id = fab->Resolve(a, FakeFabric::Name("node2"));
  CHECK_FALSE(a->answers.count(id));
  CheckPathTo(fab->Wait(a, id), a, b);  // after the retried join
  STRCMP_CONTAINS("join of ff15:4001:ffff:3:400:: failed", a->AllLogs().c_str());
  STRCMP_CONTAINS("ready (QPN 0x100, 1 requests were waiting)", a->AllLogs().c_str());
  // An ops table from another major, or none: refused.
  void* ctx = nullptr;
  LONGS_EQUAL(-EPROTO, fab->prov()->init(nullptr, a->handle(), &ctx));
}

TEST(AcmpProvider, QuerySaAndLidDestinationsGoToTheSa) {
  auto [a, b] = StartTwoNodes();
  ibv_path_record q = {};
  q.slid = ssa::ToBe16(a->lid);
  q.dlid = ssa::ToBe16(b->lid);
  const FakeNode::Answer& r = fab->Wait(a, fab->QuerySa(a, q));
  CheckPathTo(r, a, b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Lid(b->lid)), a, b);
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Lid(b->lid)), a, b);
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ROUTE_CACHE));
  LONGS_EQUAL(ACM_STATUS_EDESTADDR, fab->ResolveNow(a, FakeFabric::Lid(77)).status);
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ADDR_QUERY));  // none multicast
}

TEST(AcmpProvider, HostsAndRoutePreloadsAnswerWithoutRequests) {
  // addr_preload acm_hosts: "far2" is node2's GID; route_preload
  // opensm_full_v1: node1's block has a route to LID 3 (node2).
  std::string hosts = fab->dir() + "/hosts";
  std::string routes = fab->dir() + "/routes";
  FakeNode* a = fab->AddNode(1, {{"addr_preload", "acm_hosts"},
                                 {"addr_data_file", hosts},
                                 {"route_preload", "opensm_full_v1"},
                                 {"route_data_file", routes}});
  FakeNode* b = fab->AddNode(2);
  FakeNode* c = fab->AddNode(3);
  char gid_b[INET6_ADDRSTRLEN], gid_c[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, b->gid, gid_b, sizeof(gid_b));
  inet_ntop(AF_INET6, c->gid, gid_c, sizeof(gid_c));
  FILE* f = fopen(hosts.c_str(), "w");
  fprintf(f, "# name GID\nfar2 %s\nfar3 %s\n", gid_b, gid_c);
  fclose(f);
  f = fopen(routes.c_str(), "w");
  fprintf(f,
          "Channel Adapter 0x%016llx, base LID %u, \"node1 ibsim0\", port 1\n"
          "# LID  : SL : MTU : RATE\n0x%04x : 0 : 4 : 3\n0x%04x : 1 : 3 : 7\n\n"
          "Channel Adapter 0x%016llx, base LID %u, \"node2 ibsim0\", port 1\n"
          "0x%04x : 0 : 4 : 3\n",
          static_cast<unsigned long long>(a->guid), a->lid, a->lid, b->lid,
          static_cast<unsigned long long>(b->guid), b->lid, a->lid);
  fclose(f);
  fab->Start(a);
  fab->Start(b);
  fab->Start(c);
  STRCMP_CONTAINS("2 routes preloaded", a->AllLogs().c_str());
  // The preloaded route to LID 3: no SA query, the dump's SL, MTU and rate.
  const FakeNode::Answer& r = fab->ResolveNow(a, FakeFabric::Lid(b->lid));
  CheckPathTo(r, a, b);
  LONGS_EQUAL(1, ssa::FromBe16(r.path.qosclass_sl) & 0xf);
  LONGS_EQUAL(3, r.path.mtu & 0x3f);
  LONGS_EQUAL(7, r.path.rate & 0x3f);
  LONGS_EQUAL(0, fab->path_queries);
  // Hosts-file names: their GIDs are known, so no ACM request. far2's
  // route is preloaded (by GID): no SA query either; far3's is asked for.
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("far2")), a, b);
  LONGS_EQUAL(0, fab->path_queries);
  LONGS_EQUAL(2, fab->Counter(a, ACM_CNTR_ROUTE_CACHE));
  CheckPathTo(fab->ResolveNow(a, FakeFabric::Name("far3")), a, c);
  LONGS_EQUAL(1, fab->path_queries);
  LONGS_EQUAL(1, fab->Counter(a, ACM_CNTR_ADDR_CACHE));
  LONGS_EQUAL(0, fab->Counter(a, ACM_CNTR_ADDR_QUERY));
}
