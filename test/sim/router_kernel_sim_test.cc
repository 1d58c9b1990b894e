// router_kernel_sim_test.cc: the kernel's path requests for other
// subnets' DGIDs (issue 48 step 1), through ibacm with the ssa provider:
// RDMA_NL_LS_OP_RESOLVE requests, built as the kernel's SA client builds
// them and read as it reads the answers (test/unit/kernel_ls_side.h), to
// test/sim/ibacm_kernel (ibacm with a unix socket standing in for the
// kernel's netlink one). Answered from the replica equal to the SA's record
// with no SA query; a PRDB without prefix rows (an older access node)
// sends them to the SA instead (fallback sa: its answer; fallback none: the
// error, on which the kernel asks the SA itself).
//
// Single-threaded test code; the tree and the daemon stop in teardown.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "test/sim/router_fixture.h"
#include "test/unit/kernel_ls_side.h"

using namespace fidelity;

namespace {

// The kernel's end of the daemon's RDMA_NL_LS socket: bound at
// `daemon_path`.kernel, where ibacm_kernel sends.
class KernelPeer {
 public:
  explicit KernelPeer(const std::string& daemon_path) : daemon_path_(daemon_path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    CHECK(fd_ >= 0);
    std::string own = daemon_path + ".kernel";
    unlink(own.c_str());
    sockaddr_un a = Address(own);
    CHECK(bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) == 0);
  }
  ~KernelPeer() { close(fd_); }

  // A RESOLVE request from `sgid` to `dgid` on ibsim0 port 1 (what the
  // RDMA CM asks for a connection: GMP use, the default P_Key), and the
  // answer as a kernel since 6.1 reads it.
  kernel_side::KernelRead Resolve(const std::string& sgid, const std::string& dgid) {
    const uint32_t seq = ++seq_;
    kernel_side::LsBuilder b(RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE), NLM_F_REQUEST,
                             seq);
    b.ResolveHeader("ibsim0", 1, LS_RESOLVE_PATH_USE_GMP);
    ibv_gid d = RouterFixture::ParseGid(dgid), s = RouterFixture::ParseGid(sgid);
    uint16_t pkey = 0xffff;
    b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_DGID, d.raw, 16);
    b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_SGID, s.raw, 16);
    b.Attr(RDMA_NLA_F_MANDATORY | LS_NLA_TYPE_PKEY, &pkey, 2);
    std::vector<uint8_t> req = b.Done();
    sockaddr_un to = Address(daemon_path_);
    CHECK(sendto(fd_, req.data(), req.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof(to)) == static_cast<ssize_t>(req.size()));
    // The answer to this sequence number (SET_TIMEOUT and older answers
    // are skipped), within the kernel's own wait.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p = {fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      std::vector<uint8_t> buf(8192);
      ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
      CHECK(n > 0);
      buf.resize(static_cast<size_t>(n));
      nlmsghdr h;
      memcpy(&h, buf.data(), sizeof(h));
      if (h.nlmsg_type != RDMA_NL_GET_TYPE(RDMA_NL_LS, RDMA_NL_LS_OP_RESOLVE) || h.nlmsg_seq != seq)
        continue;
      return kernel_side::KernelReadsAnswer(buf, seq, LS_RESOLVE_PATH_USE_GMP,
                                            kernel_side::Kernel::kSince6_1);
    }
    FAIL(("no answer to the RESOLVE request for " + dgid).c_str());
    return {};
  }

 private:
  static sockaddr_un Address(const std::string& path) {
    sockaddr_un a = {};
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    return a;
  }
  std::string daemon_path_;
  int fd_ = -1;
  uint32_t seq_ = 100;
};

}  // namespace

TEST_GROUP_BASE(RouterKernel, RouterFixture) {
  std::unique_ptr<KernelPeer> kernel;

  // ibacm_kernel with `fallback`, its kernel socket's peer bound first.
  void StartKernelIbacm(const std::string& fallback) {
    std::string sock = dir.path() + "/kernel-ls.sock";
    kernel = std::make_unique<KernelPeer>(sock);
    ibacm_binary = std::string(ABS_TOP_BUILDDIR) + "/test/sim/ibacm_kernel";
    ibacm_args = {"--kernel-socket", sock};
    StartIbacm(fallback);
  }

  // The kernel's answer for `dgid`: taken, one record, equal to the SA's.
  void KernelGetsTheSasRecord(const std::string& dgid) {
    kernel_side::KernelRead r = kernel->Resolve(our_gid, dgid);
    CHECK_TEXT(r.taken, (dgid + ": " + r.why).c_str());
    CHECK(r.gmp >= 0);
    EqualsSa(dgid, r.Path(r.gmp));
  }

  // The kernel's answer for `dgid`: the error flag (it then asks the SA).
  void KernelGetsAnError(const std::string& dgid) {
    kernel_side::KernelRead r = kernel->Resolve(our_gid, dgid);
    CHECK_TEXT(!r.taken, (dgid + ": a record, expected the error flag").c_str());
    STRCMP_EQUAL("error flag: asks the SA", r.why.c_str());
  }
};

TEST(RouterKernel, KernelRequestsForOtherSubnetsAreAnsweredFromTheReplicaEqualToTheSa) {
  StartRouted();
  StartKernelIbacm("none");
  std::vector<kernel_side::KernelRead> answers;
  for (const char* d : kRouted) answers.push_back(kernel->Resolve(our_gid, d));
  // The refused prefix: the SA has no record, the replica none either.
  KernelGetsAnError(kRefused);
  LONGS_EQUAL(0, RouteQueries());  // all from the PRDB
  for (size_t i = 0; i < answers.size(); ++i) {
    CHECK_TEXT(answers[i].taken, (std::string(kRouted[i]) + ": " + answers[i].why).c_str());
    EqualsSa(kRouted[i], answers[i].Path(answers[i].gmp));
  }
  ibv_path_record none;
  CHECK(!SaRecord(kRefused, &none));
  CHECK(ibacm->process()->IsRunning());
}

// An access node that sends PRDBs without prefix rows (prefix_rows no, as
// before them): the consumer cannot answer another subnet's DGID.
TEST(RouterKernel, WithoutPrefixRowsTheKernelsRequestsGoToTheSa) {
  access_options = "prefix_rows = no\n";
  StartRouted();
  StartKernelIbacm("sa");
  // The local PRDB is there (its epoch reached the daemon), yet every
  // routed DGID costs an SA query and gets the SA's record.
  for (const char* d : kRouted) {
    const uint64_t before = RouteQueries();
    KernelGetsTheSasRecord(d);
    CHECK_TEXT(RouteQueries() > before, d);
  }
  const uint64_t before = RouteQueries();
  KernelGetsAnError(kRefused);  // the SA has none either
  CHECK(RouteQueries() > before);
  // The same through the socket (our ib_acme, Debian's would do the same).
  std::string out = ProviderTest("-T", "daemon");
  STRCMP_CONTAINS_TEXT("matched:      3\n", out.c_str(), out.c_str());
  STRCMP_CONTAINS_TEXT("mismatched:   0\n", out.c_str(), out.c_str());

  // fallback none: an error for each, never a record (local or wrong).
  StartKernelIbacm("none");
  for (const char* d : kRouted) KernelGetsAnError(d);
  KernelGetsAnError(kRefused);
  LONGS_EQUAL(0, RouteQueries());
  for (const char* d : kRouted) {
    ibv_path_record p;
    LONGS_EQUAL_TEXT(acm::kStatusENoData, AskDaemon(d, false, &p), d);
  }
}
