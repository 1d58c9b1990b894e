// The whole daemon in-process with the test provider, a made-up port and
// the fake netlink seam: the kernel's path-record requests answered through
// the provider (or with the error flag), and IPoIB addresses added and
// removed at run time as rtnetlink reports them, seen through EP_QUERY and
// resolves. The daemon's loop runs on its own thread; the test feeds the
// fake sockets and talks to the daemon through its client socket.
#include <sys/stat.h>

#include <arpa/inet.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "common/acm/acm_client.h"
#include "common/base/big_endian.h"
#include "core/addr_watch/rtnl_addr_codec.h"
#include "core/daemon.h"
#include "core/kernel_ls/kernel_path_service.h"
#include "core/kernel_ls/ls_codec.h"
#include "test/support/check_ok.h"
#include "test/support/prom_check.h"
#include "test/support/temp_dir.h"
#include "test/unit/daemon_fixture.h"
#include "test/unit/fake_netlink.h"
#include "test/unit/ls_daemon_parse.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;
using namespace ssa::kernel_ls;

namespace {

constexpr uint64_t kPortGuid = 0x0002c90300001231ULL;  // FakeDaemonPort's

void Gid(uint64_t guid, uint8_t* out) {
  uint64_t prefix = ssa::ToBe64(0xfe80000000000000ULL), g = ssa::ToBe64(guid);
  memcpy(out, &prefix, 8);
  memcpy(out + 8, &g, 8);
}

std::vector<uint8_t> KernelRequest(uint32_t seq, bool with_sgid, uint16_t dlid_in_gid,
                                   uint16_t pkey = 0) {
  LsRequest r;
  r.type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE);
  r.flags = NLM_F_REQUEST;
  r.seq = seq;
  r.resolve.device = "fake0";
  r.resolve.port_num = 1;
  r.resolve.path_use = LS_RESOLVE_PATH_USE_ALL;
  r.resolve.has_dgid = true;
  Gid(dlid_in_gid, r.resolve.dgid);
  r.resolve.has_sgid = with_sgid;
  if (with_sgid) Gid(kPortGuid, r.resolve.sgid);
  r.resolve.has_pkey = pkey != 0;
  r.resolve.pkey = pkey;
  return EncodeResolveRequest(r);
}

// An IPv4 address on ib0 (the full-member P_Key's interface) at start-up.
IpoibAddress Ib0Address(const char* ip) {
  IpoibAddress a;
  a.ifname = "ib0";
  a.ifindex = 4;
  a.port_guid = kPortGuid;
  a.pkey = 0xffff;
  a.address.size = sizeof(a.address);
  a.address.type = SSA_ADDR_IP;
  inet_pton(AF_INET, ip, a.address.data);
  a.text = ip;
  return a;
}

AddrEvent AddrChange(bool added, int ifindex, const char* ip) {
  AddrEvent e;
  e.added = added;
  e.ifindex = ifindex;
  e.family = AF_INET;
  e.prefix_len = 24;
  inet_pton(AF_INET, ip, e.address.data);
  return e;
}

// Waits for `pred` (another thread changes what it looks at), up to 5 s.
template <typename Pred>
bool WaitFor(Pred pred) {
  for (int i = 0; i < 5000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return pred();
}

}  // namespace

TEST_GROUP(DaemonKernel) {
  ssa::test::TempDir tmp{"ssa-dkernel-"};
  const std::string& dir = tmp.path();
  std::unique_ptr<Daemon> daemon;
  std::thread loop_thread;
  testing::FakeNetlink netlink;
  testing::FakeLinks links;
  std::vector<IpoibAddress> ipoib_at_start;

  void setup() override {
    CHECK_OK(tmp.status());
    links.AddIpoib(4, "ib0", kPortGuid, 0xffff);
    links.AddIpoib(7, "ib0.8001", kPortGuid, 0x8001);
    links.AddOther(2, "eth0", 1);
  }
  void Start(const std::string& extra_opts) {
    ssa::test::WriteDaemonAddrFile(dir);
    Daemon::Settings s =
        ssa::test::DaemonSettingsIn(dir, "[core]\nlog_level = debug\n" + extra_opts);
    s.discover = [](std::vector<UmadPort>* out) {
      *out = {ssa::test::FakeDaemonPort()};
      return Status::Ok();
    };
    s.netlink_open = netlink.Opener();
    s.links = &links;
    s.list_ipoib = [this](std::vector<IpoibAddress>* out) {
      *out = ipoib_at_start;
      return Status::Ok();
    };
    ssa::test::StartDaemonThread(s, &daemon, &loop_thread);
  }
  void teardown() override {
    ssa::test::StopDaemonThread(&daemon, &loop_thread);
    CHECK_OK(tmp.Remove());
  }
  std::string Log() { return ssa::test::ReadWholeFile(dir + "/ibacm.log"); }
  // The metrics file now ("" while there is none).
  std::string Metrics(const std::string& path) { return ssa::test::ReadWholeFile(path); }
  testing::FakeNetlinkSocket* Rdma() { return netlink.socket(NETLINK_RDMA); }
  testing::FakeNetlinkSocket* Route() { return netlink.socket(NETLINK_ROUTE); }
  // The daemon's n-th message to the kernel (0 is SET_TIMEOUT).
  LsDaemonMessage Sent(size_t n) {
    CHECK_TRUE(WaitFor([&] { return Rdma()->sent_count() > n; }));
    return test::ParseLsDaemonMessage(Rdma()->sent()[n]);
  }
  std::vector<std::string> EndpointAddresses(int index) {
    AcmClient c;
    CHECK_OK(c.Connect(dir + "/run/ibacm-unix.sock"));
    acm::EpQueryResponse r;
    CHECK_OK(c.EpQuery(static_cast<uint8_t>(index), 0, &r));
    return r.config.addrs;
  }
  bool Lists(int index, const std::string& addr) {
    for (const auto& a : EndpointAddresses(index))
      if (a == addr) return true;
    return false;
  }
  std::vector<uint64_t> Counters() {
    AcmClient c;
    CHECK_OK(c.Connect(dir + "/run/ibacm-unix.sock"));
    acm::PerfResponse perf;
    CHECK_OK(c.PerfQuery(0, &perf));
    return perf.counters;
  }
};

TEST(DaemonKernel, KernelRequestsAreAnsweredByTheProvider) {
  Start("kernel_path_timeout = 4000\n");
  CHECK(Rdma() != nullptr);
  LONGS_EQUAL(1u << (RDMA_NL_GROUP_LS - 1), Rdma()->groups);
  LsDaemonMessage set = Sent(0);
  LONGS_EQUAL(RDMA_NL_LS_OP_SET_TIMEOUT, set.op);
  LONGS_EQUAL(4000, set.timeout_ms);

  Rdma()->Inject(KernelRequest(11, true, 0x41));
  LsDaemonMessage a = Sent(1);
  LONGS_EQUAL(11, a.seq);
  if (a.error) fprintf(stderr, "%s", Log().c_str());
  CHECK_FALSE(a.error);
  LONGS_EQUAL(1, a.paths.size());
  // testprov: DLID from the DGID's interface ID, SLID and SGID the port's.
  LONGS_EQUAL(0x41, ssa::FromBe16(a.paths[0].dlid));
  LONGS_EQUAL(5, ssa::FromBe16(a.paths[0].slid));
  LONGS_EQUAL(0xffff, ssa::FromBe16(a.paths[0].pkey));

  // No SGID: the port the kernel names is the source.
  Rdma()->Inject(KernelRequest(12, false, 0x42, 0x8001));
  LsDaemonMessage b = Sent(2);
  LONGS_EQUAL(12, b.seq);
  CHECK_FALSE(b.error);
  uint8_t sgid[16];
  Gid(kPortGuid, sgid);
  MEMCMP_EQUAL(sgid, b.paths[0].sgid.raw, 16);
  LONGS_EQUAL(0x8001, ssa::FromBe16(b.paths[0].pkey));  // the P_Key's endpoint
  std::vector<uint64_t> c = Counters();
  LONGS_EQUAL(2, c[acm::kCntrResolve]);  // kernel requests are resolves
  LONGS_EQUAL(0, c[acm::kCntrError]);
}

// The RDMA CM's address requests: one of the daemon's own IPoIB addresses
// is answered with its port's GID; an address no provider knows gets the
// error flag, and both count as resolves.
TEST(DaemonKernel, KernelAddressRequestsAreAnsweredWithTheGid) {
  ipoib_at_start = {Ib0Address("10.0.0.5")};
  Start("");
  LsRequest r;
  r.type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE);
  r.op = RDMA_NL_LS_OP_IP_RESOLVE;
  r.flags = NLM_F_REQUEST;
  r.seq = 41;
  r.ip.ifindex = 4;
  r.ip.family = AF_INET;
  inet_pton(AF_INET, "10.0.0.5", r.ip.addr);
  Rdma()->Inject(EncodeResolveRequest(r));
  LsDaemonMessage a = Sent(1);
  LONGS_EQUAL(41, a.seq);
  LONGS_EQUAL(RDMA_NL_LS_OP_IP_RESOLVE, a.op);
  if (a.error) fprintf(stderr, "%s", Log().c_str());
  CHECK_FALSE(a.error);
  CHECK_TRUE(a.has_dgid);
  uint8_t gid[16];
  Gid(kPortGuid, gid);
  MEMCMP_EQUAL(gid, a.dgid, 16);

  r.seq = 42;
  inet_pton(AF_INET, "192.0.2.77", r.ip.addr);
  Rdma()->Inject(EncodeResolveRequest(r));
  LsDaemonMessage b = Sent(2);
  LONGS_EQUAL(42, b.seq);
  CHECK_TRUE(b.error);
  std::vector<uint64_t> c = Counters();
  LONGS_EQUAL(2, c[acm::kCntrResolve]);
  LONGS_EQUAL(1, c[acm::kCntrError]);
}

// metrics_file: the daemon's counters in the Prometheus text format, as
// promtool and the Python client's parser (Debian's prometheus and
// python3-prometheus-client, build dependencies of the tests) read it,
// following what happens; removed at a clean stop.
TEST(DaemonKernel, TheMetricsFileHoldsTheCountersAndFollowsThem) {
  std::string path = dir + "/ibacm.prom";
  Start("metrics_file = " + path + "\nmetrics_interval = 1\n");
  CHECK(daemon->metrics_file() != nullptr);
  std::string text;
  auto read = [&] { return text = Metrics(path); };
  CHECK_TRUE(WaitFor([&] { return read().find("ibacm_up 1\n") != std::string::npos; }));
  Rdma()->Inject(KernelRequest(51, true, 0x41));
  CHECK_FALSE(Sent(1).error);
  // The next snapshot (every second) counts the kernel's request.
  CHECK_TRUE(WaitFor([&] {
    return read().find("ibacm_kernel_requests_total{kind=\"path\"} 1\n") != std::string::npos;
  }));
  for (const char* name :
       {"ibacm_resolves_total 1\n", "# TYPE ibacm_endpoint_resolves_total counter\n",
        "ibacm_endpoint_resolves_total{port=\"fake0:1\",pkey=\"0xffff\",provider=\"testprov\"} ",
        "# TYPE ibacm_client_connections gauge\n", "ibacm_client_paused 0\n",
        "ibacm_client_throttled_total{reason=\"inflight\"} 0\n",
        "ibacm_client_throttled_total{reason=\"budget\"} 0\n", "# TYPE ibacm_client_limit gauge\n",
        "# TYPE ibacm_sa_queued gauge\n", "# TYPE ibacm_sa_queued_flows gauge\n",
        "ibacm_kernel_answers_total{outcome=\"answered\"} 1\n",
        // testprov's own family (ABI 1.4), labelled by the core.
        "ibacm_testprov_port_resolves_total{provider=\"testprov\",port=\"fake0:1\"} 1\n",
        "ibacm_provider_metrics_rejected_total{provider=\"testprov\"} 0\n"})
    STRCMP_CONTAINS(name, text.c_str());
  // The tools a site checks its textfile collector's input with.
  std::string snap = dir + "/snap.prom";
  std::ofstream(snap) << text;
  CHECK_OK(ssa::test::CheckPromFile(
      snap, {"ibacm_resolves", "ibacm_client_connections", "ibacm_testprov_port_resolves"}, dir));
  daemon->RequestStop();
  loop_thread.join();
  daemon->Shutdown();
  CHECK(access(path.c_str(), F_OK) != 0);
}

// A provider that gets its metric calls wrong (testprov's bad_metrics: 20
// mistakes a snapshot): each is refused, counted and logged once a minute;
// the file keeps the rest, the daemon's own families and the provider's
// valid ones, and passes the tools.
TEST(DaemonKernel, AProvidersMalformedMetricsAreLeftOutAndCounted) {
  std::string path = dir + "/ibacm.prom";
  Start("metrics_file = " + path + "\nmetrics_interval = 1\n[testprov]\nbad_metrics = yes\n");
  std::string text;
  const std::string refused = "ibacm_provider_metrics_rejected_total{provider=\"testprov\"}";
  // Two snapshots, so the count is seen to add up across them.
  CHECK_TRUE(WaitFor([&] {
    text = Metrics(path);
    return ssa::test::PromSample(text, refused) >= 40;
  }));
  double core_count = ssa::test::PromSample(text, refused);
  LONGS_EQUAL(0, static_cast<long>(core_count) % 20);
  // testprov counted the refusals it was told of: the same number.
  DOUBLES_EQUAL(
      core_count,
      ssa::test::PromSample(text, "ibacm_testprov_refused_calls_total{provider=\"testprov\"}"), 0);
  STRCMP_CONTAINS("ibacm_up 1\n", text.c_str());
  STRCMP_CONTAINS("ibacm_testprov_samples_total{provider=\"testprov\",kind=\"ok\"} 1\n",
                  text.c_str());
  STRCMP_CONTAINS("ibacm_testprov_port_resolves_total{provider=\"testprov\",port=\"fake0:1\"} 0\n",
                  text.c_str());
  for (const char* left_out : {"testprov_no_prefix", "Camel", "ibacm_testprov:colon",
                               "ibacm_testprov_counter ", "ibacm_testprov_gauge_total",
                               "ibacm_testprov_typed", "ibacm_testprov_helpless", "mine", "caf"})
    CHECK_TEXT(text.find(left_out) == std::string::npos, left_out);
  std::string snap = dir + "/snap.prom";
  std::ofstream(snap) << text;
  CHECK_OK(ssa::test::CheckPromFile(
      snap, {"ibacm_up", "ibacm_testprov_samples", "ibacm_provider_metrics_rejected"}, dir));
  std::string log = Log();
  const std::string line = "provider testprov: a metric left out of the metrics file: ";
  size_t first = log.find(line);
  CHECK_TEXT(first != std::string::npos, log.c_str());
  CHECK_TEXT(log.find(line, first + line.size()) == std::string::npos, log.c_str());
}

TEST(DaemonKernel, RequestsNoEndpointServesGetTheErrorFlag) {
  Start("");
  LsRequest r;
  r.type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE);
  r.flags = NLM_F_REQUEST;
  r.seq = 21;
  r.resolve.device = "mlx5_9";  // not ours
  r.resolve.port_num = 1;
  r.resolve.has_dgid = true;
  Gid(0x41, r.resolve.dgid);
  r.resolve.has_sgid = true;
  Gid(0x1234, r.resolve.sgid);  // nor this GID
  Rdma()->Inject(EncodeResolveRequest(r));
  LsDaemonMessage a = Sent(1);
  LONGS_EQUAL(21, a.seq);
  CHECK_TRUE(a.error);
  Rdma()->Inject(KernelRequest(22, true, 0x41, 0x7000));  // no such P_Key
  CHECK_TRUE(Sent(2).error);
  std::vector<uint64_t> c = Counters();
  LONGS_EQUAL(2, c[acm::kCntrResolve]);
  LONGS_EQUAL(2, c[acm::kCntrError]);
}

TEST(DaemonKernel, SlowProviderIsAnsweredForByTheDeadline) {
  Start("kernel_path_timeout = 100\n[testprov]\ndelay_ms = 1000\n");
  Rdma()->Inject(KernelRequest(31, true, 0x41));
  LsDaemonMessage a = Sent(1);
  LONGS_EQUAL(31, a.seq);
  CHECK_TRUE(a.error);
  CHECK(Log().find("kernel path request 31: no provider answer in 80 ms") != std::string::npos);
}

TEST(DaemonKernel, WithoutTheKernelServiceTheDaemonSaysSoAndServes) {
  netlink.Refuse(NETLINK_RDMA, EPROTONOSUPPORT);
  Start("");
  CHECK(daemon->kernel_service() != nullptr);
  CHECK_FALSE(daemon->kernel_service()->active());
  std::string log = Log();
  size_t at = log.find("kernel path-record service unavailable");
  CHECK(at != std::string::npos);
  CHECK(log.find("kernel path-record service unavailable", at + 1) == std::string::npos);
  CHECK_TRUE(Lists(1, "node5"));  // clients are still served
}

TEST(DaemonKernel, SwitchedOffNothingIsOpened) {
  Start("kernel_path_service = no\naddr_watch = no\n");
  CHECK(Rdma() == nullptr);
  CHECK(Route() == nullptr);
  CHECK(daemon->kernel_service() == nullptr);
  CHECK(Log().find("kernel_path_service off") != std::string::npos);
}

TEST(DaemonKernel, IpoibAddressesFollowTheInterfaces) {
  ipoib_at_start = {Ib0Address("10.0.0.5")};
  Start("");
  CHECK(Route() != nullptr);
  CHECK_TRUE(Lists(1, "10.0.0.5"));

  // Added on the child interface: the 0x8001 endpoint's; on eth0: nobody's.
  Route()->Inject(EncodeAddrMessage(AddrChange(true, 7, "10.0.1.6")));
  Route()->Inject(EncodeAddrMessage(AddrChange(true, 2, "192.0.2.1")));
  CHECK_TRUE(WaitFor([&] { return Lists(2, "10.0.1.6"); }));
  CHECK_FALSE(Lists(1, "10.0.1.6"));
  CHECK_FALSE(Lists(1, "192.0.2.1") || Lists(2, "192.0.2.1"));

  // The new address is a source clients can use.
  AcmClient c;
  CHECK_OK(c.Connect(dir + "/run/ibacm-unix.sock"));
  acm::EpAddr src, dst;
  src.flags = acm::kEpFlagSource;
  in_addr ip;
  inet_pton(AF_INET, "10.0.1.6", &ip);
  src.SetIpv4(ip);
  dst.flags = acm::kEpFlagDest;
  dst.SetLid(0x41);
  acm::ResolveResponse r;
  CHECK_OK(c.Resolve({dst, src}, &r));
  LONGS_EQUAL(acm::kStatusSuccess, r.hdr.status);

  // Deleted at start-up's address and the new one: both leave.
  Route()->Inject(EncodeAddrMessage(AddrChange(false, 4, "10.0.0.5")));
  Route()->Inject(EncodeAddrMessage(AddrChange(false, 7, "10.0.1.6")));
  CHECK_TRUE(WaitFor([&] { return !Lists(1, "10.0.0.5") && !Lists(2, "10.0.1.6"); }));
  CHECK_OK(c.Resolve({dst, src}, &r));
  LONGS_EQUAL(acm::kStatusESrcAddr, r.hdr.status);
  CHECK_TRUE(Lists(1, "node5"));  // configured names stay
  CHECK_TRUE(Lists(2, "node5-b"));
  std::string log = Log();
  CHECK(log.find("address 10.0.1.6 added to IPoIB ib0.8001") != std::string::npos);
  CHECK(log.find("(1 added, 2 removed since start)") != std::string::npos);
  CHECK(log.find("remove_address") != std::string::npos);  // testprov heard of it
}
