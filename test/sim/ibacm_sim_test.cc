// Integration tests on the simulated fabric: our port discovery against
// ibstat, and the ibacm daemon driven by Debian's stock ib_acme, plus a
// robustness run (malformed input, 10,000 idle clients, resolve latency).
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <sstream>

#include "common/acm/acm_client.h"
#include "test/sim/fabric_fixture.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/netgen.h"
#include "test/sim/sim_fabric.h"
#include "test/sim/sim_util.h"
#include "test/support/check_ok.h"
#include "test/support/tool_output.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::test::IbacmNode;
using ssa::test::IbstatField;
using ssa::test::SimFabric;

namespace {

// "key value" lines -> map (first port only; the simulated HCAs have one).
std::map<std::string, std::string> ParseProbe(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string key, value;
  while (in >> key >> value) kv.emplace(key, value);
  return kv;
}

unsigned long long Num(const std::string& s) { return strtoull(s.c_str(), nullptr, 0); }

}  // namespace

TEST_GROUP_BASE(FourHcaFabric, ssa::test::FabricFixture){
    void setup() override{StartFabric(ssa::test::FourHcaNet());
}
// An ibacm with the test provider on `node`, its endpoint named `name`.
std::unique_ptr<IbacmNode> StartIbacm(const std::string& node, const std::string& name,
                                      const std::string& log_level) {
  IbacmNode::Options o;
  o.node = node;
  o.addr_cfg = name + " ibsim0 1 default\n";
  o.opts_cfg = "[core]\nlog_level = " + log_level + "\n";
  o.provider_dir = ssa::test::TestProviderDir();
  auto ibacm = std::make_unique<IbacmNode>(fabric.get(), o);
  ssa::Status st = ibacm->Start();
  CHECK_OK(st);
  return ibacm;
}
}
;

TEST(FourHcaFabric, PortDiscoveryMatchesIbstatOnTwoNodes) {
  std::string probe_bin = std::string(ABS_TOP_BUILDDIR) + "/test/sim/port_probe";
  std::map<std::string, std::string> seen_lid;
  for (const char* node : {"Hca2", "Hca3"}) {
    auto ours = ParseProbe(Run(node, {probe_bin}));
    std::string ibstat = Run(node, {"ibstat"});
    STRCMP_EQUAL("ACTIVE", ours["state"].c_str());
    CHECK_EQUAL(Num(IbstatField(ibstat, "Base lid")), Num(ours["lid"]));
    CHECK_EQUAL(Num(IbstatField(ibstat, "SM lid")), Num(ours["sm_lid"]));
    CHECK_EQUAL(Num(IbstatField(ibstat, "Port GUID")), Num(ours["port_guid"]));
    CHECK_EQUAL(Num(IbstatField(ibstat, "Node GUID")), Num(ours["node_guid"]));
    // ibstat has no prefix line; the SM's default subnet prefix applies.
    CHECK_EQUAL(0xfe80000000000000ULL, Num(ours["gid_prefix"]));
    seen_lid[node] = ours["lid"];
  }
  CHECK(seen_lid["Hca2"] != seen_lid["Hca3"]);  // two nodes, not one seen twice
}

TEST(FourHcaFabric, StockIbAcmeListsEndpointsAndCounters) {
  auto node = StartIbacm("Hca2", "node2", "debug");
  IbacmNode& ibacm = *node;

  std::string ibstat = Run("Hca2", {"ibstat"});
  std::string out;
  int rc = -1;
  CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", ibacm.socket_path(), "-e"}, &out, &rc));
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  char guid[32];
  snprintf(guid, sizeof(guid), "0x%016llx", Num(IbstatField(ibstat, "Node GUID")));
  std::string expected_row = ibacm.socket_path() + "," + guid + ",1,0xffff,1,testprov,node2";
  STRCMP_CONTAINS(expected_row.c_str(), out.c_str());

  // One resolve through the stock client, then its counters.
  std::string lid = IbstatField(ibstat, "Base lid");
  CHECK_OK(ssa::test::RunProgram(
      {"/usr/bin/ib_acme", "-S", ibacm.socket_path(), "-f", "l", "-s", lid, "-d", "1"}, &out, &rc));
  STRCMP_CONTAINS("dlid: 1", out.c_str());
  CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", ibacm.socket_path(), "-P"}, &out, &rc));
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  STRCMP_CONTAINS("svc,Error Count,Resolve Count,No Data", out.c_str());
  std::string counters_row = ibacm.socket_path() + ",0,1,";
  STRCMP_CONTAINS(counters_row.c_str(), out.c_str());

  ssa::Status st = ibacm.Stop();
  CHECK_OK(st);
  STRCMP_CONTAINS("port ibsim0/1 served by provider testprov", ibacm.Log().c_str());
}

// A daemon whose socket path another process listens on (this test, as
// another daemon would) fails, in daemon mode, the command that started
// it, saying so; the other keeps its socket. (It used to rename its socket
// over the other's and take its clients.)
TEST(FourHcaFabric, ASocketPathInUseFailsTheDaemonInDaemonMode) {
  const std::string dir = fabric->run_dir() + "/in-use";
  const std::string path = dir + "/run/ibacm-unix.sock";
  mkdir(dir.c_str(), 0755);
  mkdir((dir + "/run").c_str(), 0755);
  int other = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = {};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  CHECK_EQUAL(0, bind(other, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)));
  CHECK_EQUAL(0, listen(other, 4));
  std::unique_ptr<ssa::test::SimProcess> daemon;
  ssa::Status st = fabric->Spawn(
      "Hca3",
      {ssa::test::IbacmBinary(), "-O", "/dev/null", "-A", "/dev/null", "-R", dir + "/run", "-L",
       dir + "/ibacm.log", "--provider-dir", ssa::test::TestProviderDir()},
      &daemon);
  CHECK_OK(st);
  int status = -1;
  st = daemon->Wait(20s, &status);
  CHECK_OK(st);
  CHECK_TEXT(status != 0, daemon->output().c_str());
  STRCMP_CONTAINS(("ibacm: start: unix socket " + path + " is in use").c_str(),
                  daemon->output().c_str());
  struct stat sb;
  CHECK_EQUAL(0, stat(path.c_str(), &sb));  // still the other's
  close(other);
}

TEST(FourHcaFabric, DaemonSurvivesBadInputAndTenThousandIdleClients) {
  auto node = StartIbacm("Hca3", "node3", "warn");
  IbacmNode& ibacm = *node;
  ssa::Status st;
  const std::string path = ibacm.socket_path();
  auto connect_raw = [&]() {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(fd);
      return -1;
    }
    return fd;
  };

  // Malformed: bad version, oversized length, truncated message, garbage.
  const uint8_t bad_version[16] = {7, 1, 0, 0, 0, 0, 16, 0};
  const uint8_t oversized[16] = {1, 2, 0, 0, 0, 0, 0xff, 0xff};
  const uint8_t truncated[10] = {1, 1, 0, 0, 0, 0, 88, 0, 0, 0};
  for (auto msg :
       {std::string(reinterpret_cast<const char*>(bad_version), 16),
        std::string(reinterpret_cast<const char*>(oversized), 16),
        std::string(reinterpret_cast<const char*>(truncated), 10), std::string(300, '\xff')}) {
    int fd = connect_raw();
    CHECK(fd >= 0);
    CHECK_EQUAL((ssize_t)msg.size(), send(fd, msg.data(), msg.size(), MSG_NOSIGNAL));
    close(fd);
  }

  // 10,000 idle connections (raise our own fd limit first: the test holds
  // one end of each).
  struct rlimit rl;
  getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  setrlimit(RLIMIT_NOFILE, &rl);
  const int kIdle = 10000;
  CHECK_TEXT(rl.rlim_cur > kIdle + 200, "fd hard limit too low for 10,000 clients");
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    int fd = connect_raw();
    if (fd < 0) break;
    idle.push_back(fd);
  }
  LONGS_EQUAL(kIdle, idle.size());

  // With all of them connected, a resolve is still answered fast.
  ssa::AcmClient client;
  st = client.Connect(path);
  CHECK_OK(st);
  ssa::acm::EpAddr dst;
  dst.flags = ssa::acm::kEpFlagDest;
  dst.SetLid(1);
  dst.type = ssa::acm::kAddrLid;
  ssa::acm::EpAddr src;
  src.flags = ssa::acm::kEpFlagSource;
  src.SetName("node3");
  std::vector<double> times;
  for (int i = 0; i < 20; ++i) {
    ssa::acm::ResolveResponse r;
    auto t0 = std::chrono::steady_clock::now();
    st = client.Resolve({src, dst}, &r);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CHECK_OK(st);
    LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  double median_ms = times[times.size() / 2];
  // A bound that tells a server scanning every idle connection per request
  // (or blocked on one) from one that is not, with room for a loaded CI.
  CHECK_TEXT(median_ms < 100.0,
             ("median resolve took " + std::to_string(median_ms) + " ms").c_str());
  for (int fd : idle) close(fd);
  CHECK_TRUE(ibacm.IsRunning());
  st = ibacm.Stop();
  CHECK_OK(st);
  std::string log = ibacm.Log();
  STRCMP_CONTAINS("bad message", log.c_str());
}
