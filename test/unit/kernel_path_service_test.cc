// KernelPathService (core/kernel_ls/) on a real EventLoop with the fake
// netlink socket and a scripted PathResolver: every request gets exactly one
// answer (path, provider error, deadline, malformed), late provider answers
// are dropped, messages not from the kernel are not answered, and a kernel
// without the service is reported once.
#include "core/kernel_ls/kernel_path_service.h"

#include <infiniband/acm.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <cstring>
#include <sstream>

#include "common/base/big_endian.h"
#include "common/base/event_loop.h"
#include "test/support/check_ok.h"
#include "test/unit/fake_netlink.h"
#include "test/unit/kernel_ls_side.h"
#include "test/unit/ls_daemon_parse.h"
#include "test/unit/netlink_loop_fixture.h"

// Last: its memory-leak macros redefine new.
#include <CppUTest/TestHarness.h>

using namespace ssa;
using namespace ssa::kernel_ls;

namespace {

class ScriptedResolver : public PathResolver {
 public:
  struct Call {
    ibv_path_record path;
    std::string device;
    int port = 0;
    DoneFn done;
  };
  // answer_now: answer inside ResolvePath with `status`; otherwise keep it.
  bool answer_now = true;
  uint8_t status = ACM_STATUS_SUCCESS;
  uint8_t hop_limit = 0;  // of the answers: above 1, a routed path
  std::vector<Call> calls;

  void ResolvePath(const ibv_path_record& path, const std::string& device, int port,
                   DoneFn done) override {
    calls.push_back({path, device, port, done});
    if (!answer_now) return;
    ibv_path_record answer = path;
    answer.dlid = ssa::ToBe16(0x41);
    answer.flowlabel_hoplimit = ssa::ToBe32(hop_limit);
    calls.back().done = nullptr;
    done(status, status == ACM_STATUS_SUCCESS ? &answer : nullptr);
  }
  // Address queries: the family and address asked; answered (when
  // answer_now) with a path whose DGID ends in the address's last byte.
  std::vector<std::pair<int, std::vector<uint8_t>>> addresses;
  DoneFn held_address;
  void ResolveAddress(int family, const uint8_t* addr, DoneFn done) override {
    addresses.emplace_back(family, std::vector<uint8_t>(addr, addr + (family == AF_INET ? 4 : 16)));
    if (!answer_now) {
      held_address = done;
      return;
    }
    ibv_path_record answer = {};
    answer.dgid.raw[0] = 0xfe;
    answer.dgid.raw[1] = 0x80;
    answer.dgid.raw[15] = addresses.back().second.back();
    done(status, status == ACM_STATUS_SUCCESS ? &answer : nullptr);
  }
};

std::vector<uint8_t> IpRequest(uint32_t seq, int family, const std::vector<uint8_t>& addr) {
  LsRequest r;
  r.type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE);
  r.op = RDMA_NL_LS_OP_IP_RESOLVE;
  r.flags = NLM_F_REQUEST;
  r.seq = seq;
  r.ip.ifindex = 5;
  r.ip.family = family;
  std::memcpy(r.ip.addr, addr.data(), addr.size());
  return EncodeResolveRequest(r);
}

std::vector<uint8_t> Request(uint32_t seq, const char* dev = "mlx5_0",
                             uint8_t path_use = LS_RESOLVE_PATH_USE_ALL) {
  LsRequest r;
  r.type = RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE);
  r.flags = NLM_F_REQUEST;
  r.seq = seq;
  r.resolve.device = dev;
  r.resolve.port_num = 1;
  r.resolve.path_use = path_use;
  r.resolve.has_dgid = true;
  r.resolve.dgid[0] = 0xfe;
  r.resolve.dgid[1] = 0x80;
  r.resolve.dgid[15] = 0x41;
  return EncodeResolveRequest(r);
}

LsDaemonMessage Parse(const std::vector<uint8_t>& bytes) {
  return test::ParseLsDaemonMessage(bytes);
}

}  // namespace

TEST_GROUP_BASE(KernelPathService, test::NetlinkLoopTest) {
  ScriptedResolver resolver;
  std::unique_ptr<KernelPathService> service;

  void Start(uint32_t timeout_ms = 2000) {
    KernelPathService::Options o;
    o.timeout_ms = timeout_ms;
    service = std::make_unique<KernelPathService>(&loop, &log, &resolver, o);
    CHECK_TRUE(service->Start(netlink.Opener()));
    TakeSocket(NETLINK_RDMA);
  }
  // Runs the loop until `n` messages were sent (SET_TIMEOUT included).
  void WaitSent(size_t n) {
    CHECK_TRUE(loop.RunUntil([&] { return sock->sent_count() >= n; }, std::chrono::seconds(5)));
  }
  void Drain() { loop.RunOnce(std::chrono::milliseconds(10)); }
};

TEST(KernelPathService, JoinsTheGroupAndSetsTheKernelTimeout) {
  Start(3000);
  LONGS_EQUAL(1u << (RDMA_NL_GROUP_LS - 1), sock->groups);
  LONGS_EQUAL(1, sock->sent_count());
  LsDaemonMessage m = Parse(sock->sent()[0]);
  LONGS_EQUAL(RDMA_NL_LS_OP_SET_TIMEOUT, m.op);
  CHECK_TRUE(m.request);
  CHECK_TRUE(m.has_timeout);
  LONGS_EQUAL(3000, m.timeout_ms);
  LONGS_EQUAL(2400, service->answer_deadline_ms());
}

TEST(KernelPathService, AnswersWithTheProvidersPath) {
  Start();
  sock->Inject(Request(501));
  WaitSent(2);
  LONGS_EQUAL(1, resolver.calls.size());
  STRCMP_EQUAL("mlx5_0", resolver.calls[0].device.c_str());
  LONGS_EQUAL(1, resolver.calls[0].port);
  LONGS_EQUAL(0x41, resolver.calls[0].path.dgid.raw[15]);
  LsDaemonMessage m = Parse(sock->sent()[1]);
  LONGS_EQUAL(501, m.seq);
  CHECK_FALSE(m.error);
  CHECK_FALSE(m.request);
  LONGS_EQUAL(1, m.paths.size());
  LONGS_EQUAL(0x41, ssa::FromBe16(m.paths[0].dlid));
  LONGS_EQUAL(1, service->stats().answered_path);
  LONGS_EQUAL(0, service->outstanding());
}

// A routed path: a kernel that asks with ALL (6.1 and later) gets the
// outbound and inbound records after the GMP one and takes all three; one
// that asks with GMP (older ones) gets the one record it takes.
TEST(KernelPathService, ARoutedPathGetsDirectionalRecordsWhereTheKernelTakesThem) {
  Start();
  resolver.hop_limit = 64;
  sock->Inject(Request(521, "mlx5_0", LS_RESOLVE_PATH_USE_ALL));
  sock->Inject(Request(522, "mlx5_0", LS_RESOLVE_PATH_USE_GMP));
  WaitSent(3);
  kernel_side::KernelRead all = kernel_side::KernelReadsAnswer(
      sock->sent()[1], 521, LS_RESOLVE_PATH_USE_ALL, kernel_side::Kernel::kSince6_1);
  CHECK_TEXT(all.taken, all.why.c_str());
  LONGS_EQUAL(3, all.records.size());
  LONGS_EQUAL(0x41, ssa::FromBe16(all.Path(all.outbound).dlid));
  LONGS_EQUAL(0x41, ssa::FromBe16(all.Path(all.inbound).slid));
  kernel_side::KernelRead gmp = kernel_side::KernelReadsAnswer(
      sock->sent()[2], 522, LS_RESOLVE_PATH_USE_GMP, kernel_side::Kernel::kUpTo6_0);
  CHECK_TEXT(gmp.taken, gmp.why.c_str());
  LONGS_EQUAL(1, Parse(sock->sent()[2]).paths.size());
  LONGS_EQUAL(2, service->stats().answered_path);
  LONGS_EQUAL(1, service->stats().answered_directional);
}

TEST(KernelPathService, ProviderErrorBecomesTheErrorFlag) {
  Start();
  resolver.status = ACM_STATUS_EDESTADDR;
  sock->Inject(Request(502));
  WaitSent(2);
  LsDaemonMessage m = Parse(sock->sent()[1]);
  LONGS_EQUAL(502, m.seq);
  CHECK_TRUE(m.error);
  LONGS_EQUAL(0, m.paths.size());
  LONGS_EQUAL(1, service->stats().provider_errors);
  LONGS_EQUAL(1, service->stats().answered_error);
}

TEST(KernelPathService, NoProviderAnswerByTheDeadlineIsAnErrorAndTheLateOneIsDropped) {
  Start(100);  // deadline 80 ms
  resolver.answer_now = false;
  sock->Inject(Request(503));
  WaitSent(2);
  LsDaemonMessage m = Parse(sock->sent()[1]);
  LONGS_EQUAL(503, m.seq);
  CHECK_TRUE(m.error);
  LONGS_EQUAL(1, service->stats().timeouts);
  ibv_path_record p = resolver.calls[0].path;
  resolver.calls[0].done(ACM_STATUS_SUCCESS, &p);  // the provider, too late
  LONGS_EQUAL(2, sock->sent_count());
  LONGS_EQUAL(1, service->stats().late_answers);
}

TEST(KernelPathService, MalformedAndUnsupportedRequestsAreAnsweredWithAnError) {
  Start();
  std::vector<uint8_t> bad = Request(504);
  bad.resize(bad.size() - 20);  // cut into the DGID attribute
  uint32_t len = static_cast<uint32_t>(bad.size());
  std::memcpy(bad.data(), &len, 4);
  sock->Inject(bad);
  NlMessageWriter ip(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_IP_RESOLVE), NLM_F_REQUEST, 505, 0);
  uint32_t ifindex = 4;
  ip.Append(&ifindex, 4);
  sock->Inject(ip.Finish());
  WaitSent(3);
  LsDaemonMessage a = Parse(sock->sent()[1]), b = Parse(sock->sent()[2]);
  LONGS_EQUAL(504, a.seq);
  CHECK_TRUE(a.error);
  LONGS_EQUAL(505, b.seq);
  LONGS_EQUAL(RDMA_NL_LS_OP_IP_RESOLVE, b.op);
  CHECK_TRUE(b.error);
  LONGS_EQUAL(2, service->stats().bad_requests);
  LONGS_EQUAL(0, resolver.calls.size());
}

TEST(KernelPathService, WhatIsNotAKernelRequestIsNotAnswered) {
  Start();
  sock->Inject(Request(506), /*from_kernel=*/false);
  NlMessageWriter answer(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), 0, 507, 0);
  sock->Inject(answer.Finish());
  sock->Inject({1, 2, 3});  // not even a header
  sock->InjectError(ENOBUFS);
  sock->Inject(Request(508));  // still served afterwards
  WaitSent(2);
  Drain();
  LONGS_EQUAL(2, sock->sent_count());
  LONGS_EQUAL(508, Parse(sock->sent()[1]).seq);
  LONGS_EQUAL(2, service->stats().ignored);
  LONGS_EQUAL(1, service->stats().malformed);
  LONGS_EQUAL(1, service->stats().overflows);
}

// The RDMA CM's address resolution through an IB router: the address the
// kernel asks about goes to the providers, and the answer is its GID.
TEST(KernelPathService, AnIpAddressIsAnsweredWithItsGid) {
  Start();
  sock->Inject(IpRequest(601, AF_INET, {10, 0, 0, 0x21}));
  sock->Inject(IpRequest(602, AF_INET6, {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x22}));
  WaitSent(3);
  LONGS_EQUAL(2, resolver.addresses.size());
  LONGS_EQUAL(AF_INET, resolver.addresses[0].first);
  LONGS_EQUAL(0x21, resolver.addresses[0].second[3]);
  LONGS_EQUAL(AF_INET6, resolver.addresses[1].first);
  LONGS_EQUAL(0, resolver.calls.size());  // no path query
  for (size_t i = 1; i <= 2; ++i) {
    LsDaemonMessage m = Parse(sock->sent()[i]);
    LONGS_EQUAL(RDMA_NL_LS_OP_IP_RESOLVE, m.op);
    LONGS_EQUAL(600 + i, m.seq);
    CHECK_FALSE(m.error);
    CHECK_FALSE(m.request);
    CHECK_TRUE(m.has_dgid);
    LONGS_EQUAL(0xfe, m.dgid[0]);
    LONGS_EQUAL(0x20 + i, m.dgid[15]);
    CHECK(m.paths.empty());
  }
  LONGS_EQUAL(2, service->stats().ip_requests);
  LONGS_EQUAL(2, service->stats().answered_path);
}

// An address nobody knows gets the error flag (the kernel then fails the
// resolution at once), and so does one no provider answers by the deadline.
TEST(KernelPathService, AnUnknownOrUnansweredAddressGetsTheErrorFlagInTime) {
  Start(200);
  resolver.status = ACM_STATUS_ENODATA;
  sock->Inject(IpRequest(611, AF_INET, {10, 0, 0, 0x30}));
  WaitSent(2);
  LsDaemonMessage m = Parse(sock->sent()[1]);
  CHECK_TRUE(m.error);
  LONGS_EQUAL(611, m.seq);
  LONGS_EQUAL(RDMA_NL_LS_OP_IP_RESOLVE, m.op);

  resolver.answer_now = false;
  sock->Inject(IpRequest(612, AF_INET, {10, 0, 0, 0x31}));
  WaitSent(3);
  m = Parse(sock->sent()[2]);
  CHECK_TRUE(m.error);
  LONGS_EQUAL(612, m.seq);
  LONGS_EQUAL(1, service->stats().timeouts);
  LONGS_EQUAL(1, service->stats().provider_errors);
  // The late answer is dropped, not sent.
  ibv_path_record late = {};
  resolver.held_address(ACM_STATUS_SUCCESS, &late);
  Drain();
  LONGS_EQUAL(3, sock->sent_count());
  LONGS_EQUAL(1, service->stats().late_answers);
}

TEST(KernelPathService, StopAnswersWhatIsOpen) {
  Start();
  resolver.answer_now = false;
  sock->Inject(Request(509));
  sock->Inject(Request(510));
  CHECK_TRUE(loop.RunUntil([&] { return resolver.calls.size() == 2; }, std::chrono::seconds(5)));
  service->Stop();
  LONGS_EQUAL(3, sock->sent_count());
  CHECK_TRUE(Parse(sock->sent()[1]).error);
  CHECK_TRUE(Parse(sock->sent()[2]).error);
  CHECK_FALSE(service->active());
  CHECK(lines.str().find("2 requests (0 for an address): 0 answered with a path or GID (0 with "
                         "outbound and inbound records), 2 with an error") != std::string::npos);
}

TEST(KernelPathService, KernelWithoutTheServiceIsReportedOnce) {
  netlink.Refuse(NETLINK_RDMA, EPROTONOSUPPORT);
  KernelPathService s(&loop, &log, &resolver, KernelPathService::Options());
  CHECK_FALSE(s.Start(netlink.Opener()));
  CHECK_FALSE(s.active());
  std::string text = lines.str();
  size_t first = text.find("kernel path-record service unavailable");
  CHECK(first != std::string::npos);
  CHECK(text.find("not supported") != std::string::npos);
  CHECK(text.find("kernel path-record service unavailable", first + 1) == std::string::npos);
}
