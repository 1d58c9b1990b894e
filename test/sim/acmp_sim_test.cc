// acmp_sim_test.cc: the acmp provider in four ibacm daemons on the 4-HCA
// simulated fabric (ibsim + OpenSM; OpenSM and the daemon of Hca1 share
// that node), each daemon with a name, an IPv4 and an IPv6 address:
//   - route_prot sa: every address of every daemon resolves from every
//     other daemon, by name and by IP (v4 and v6), through our AcmClient,
//     Debian's stock ib_acme and our ib_acme; each path equals OpenSM's
//     (saquery -p --sgid-to-dgid, run as the resolving node);
//   - every receiver of a request caches the requester: a later resolve
//     of the requester from a third node sends no request (counters);
//   - route_prot acm on a fabric of 4x QDR links and one 4x SDR link: the
//     endpoints join a 40 Gb/s group besides the min group, the owner picks
//     the best shared one, and each path equals OpenSM's field by field;
//   - a stopped (and a killed) daemon's names fail with ETIMEDOUT after the
//     retries, and resolve again once it runs again;
//   - malformed and unexpected ACM datagrams sent by a rogue endpoint are
//     counted and dropped and the daemons keep serving;
//   - with a fifth of all datagrams dropped, retries still resolve all.
// Each test starts its own fabric: OpenSM, 4 daemons and at most one
// saquery attach at a time (ibsim's limit is 10). Client tools run locally
// against the daemons' sockets.
#include <arpa/inet.h>
#include <infiniband/acm.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/acmp/sim_datagram.h"
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
using ssa::AcmClient;
using ssa::Status;
using ssa::test::IbacmNode;
using ssa::test::SimFabric;
namespace acm = ssa::acm;

namespace {

const char kStockAcme[] = "/usr/bin/ib_acme";
std::string OurAcme() { return std::string(ABS_TOP_BUILDDIR) + "/util/ib_acme/ib_acme"; }
std::string AcmpDir() { return std::string(ABS_TOP_BUILDDIR) + "/providers/acmp/.libs"; }

// The 4-HCA net with every link 4x QDR but Hca4's (4x SDR).
std::string QdrNetButHca4() {
  std::istringstream in(ssa::test::FourHcaNet());
  std::string line, out, node;
  while (std::getline(in, line)) {
    if (line.rfind("Hca", 0) == 0 || line.rfind("Switch", 0) == 0)
      node = line.substr(line.find('"'));
    bool hca4_link = node.find("\"Hca4\"") == 0 || line.find("\"Hca4\"") != std::string::npos;
    if (line.rfind("[", 0) == 0 && !hca4_link) line += " w=2 s=4";
    out += line + "\n";
  }
  return out;
}

struct Daemon {
  int n = 0;
  std::string node, name, ip, ip6;
  uint16_t lid = 0;
  std::string gid;  // text, as saquery prints it
  std::unique_ptr<IbacmNode> ibacm;
  AcmClient client;
};

acm::EpAddr Addr(const std::string& text, uint32_t flags) {
  acm::EpAddr e;
  e.flags = flags;
  in_addr v4;
  in6_addr v6;
  if (inet_pton(AF_INET, text.c_str(), &v4) == 1)
    e.SetIpv4(v4);
  else if (inet_pton(AF_INET6, text.c_str(), &v6) == 1)
    e.SetIpv6(v6);
  else
    e.SetName(text);
  return e;
}

}  // namespace

TEST_GROUP_BASE(AcmpSim, ssa::test::FabricFixture) {
  Daemon d[5];  // 1..4

  void teardown() override {
    for (auto& x : d) {
      x.client.Close();
      if (x.ibacm && x.ibacm->IsRunning() && UtestShell::getCurrent()->hasFailed())
        fprintf(stderr, "--- %s log tail:\n%s\n", x.node.c_str(),
                ssa::test::TailOfFile(x.ibacm->log_path(), 3000).c_str());
      x.ibacm.reset();
    }
    FabricFixture::teardown();
  }
  // Reads node n's LID and GID, then starts its daemon with acmp.
  void StartDaemon(int n, const std::string& acmp_options) {
    StartDaemonWithFile(n,
                        "[core]\nlog_level = debug\nprovider = acmp default\n"
                        "support_ips_in_addr_cfg = yes\n[acmp]\nsim_dir = " +
                            fabric->run_dir() + "/acmp\ntimeout = 200\n" + acmp_options);
  }
  // The same with `opts_cfg` as its whole options file.
  void StartDaemonWithFile(int n, const std::string& opts_cfg) {
    Daemon& x = d[n];
    x.n = n;
    x.node = "Hca" + std::to_string(n);
    x.name = "node" + std::to_string(n);
    x.ip = "10.0.0." + std::to_string(n);
    x.ip6 = "fd00::" + std::to_string(n);
    if (!x.lid) {
      ssa::test::IbstatPort ibstat = ssa::test::ParseIbstat(Run(x.node, {"ibstat"}));
      x.lid = static_cast<uint16_t>(ibstat.lid);
      x.gid = ssa::test::DefaultGidText(strtoull(ibstat.port_guid.c_str(), nullptr, 16));
    }
    IbacmNode::Options o;
    o.node = x.node;
    o.addr_cfg = x.name + " ibsim0 1 default\n" + x.ip + " ibsim0 1 default\n" + x.ip6 +
                 " ibsim0 1 default\n";
    o.opts_cfg = opts_cfg;
    o.provider_dir = AcmpDir();
    if (x.ibacm) {
      // A restart: the last run's log and (if it was killed) socket must not
      // be mistaken for the new one's.
      rename(x.ibacm->log_path().c_str(), (x.ibacm->log_path() + ".previous").c_str());
      unlink(x.ibacm->socket_path().c_str());
    }
    x.ibacm = std::make_unique<IbacmNode>(fabric.get(), o);
    Status st = x.ibacm->Start();
    CHECK_OK(st);
    bool ready = ssa::test::PollUntil(
        10s, [&] { return x.ibacm->Log().find("pkey 0xffff ready (QPN") != std::string::npos; });
    CHECK_TRUE_TEXT(ready,
                    ("acmp on " + x.node + " never joined its group:\n" + x.ibacm->Log()).c_str());
    st = x.client.Connect(x.ibacm->socket_path());
    CHECK_OK(st);
    x.client.set_timeout_ms(60000);  // longer than any retry sequence here
  }
  void StartAll(const std::string& acmp_options) {
    for (int n = 1; n <= 4; ++n) StartDaemon(n, acmp_options);
  }
  void StopDaemon(int n) {
    d[n].client.Close();
    Status st = d[n].ibacm->Stop();
    CHECK_OK(st);
  }
  // Every daemon counted no error and stops cleanly, its log summing up its
  // datagrams as `summary` ("N malformed, M unexpected responses").
  void StopAllWithoutErrors(const char* summary) {
    for (int n = 1; n <= 4; ++n) {
      LONGS_EQUAL(0, Counters(n)[ACM_CNTR_ERROR]);
      StopDaemon(n);
      STRCMP_CONTAINS(summary, d[n].ibacm->Log().c_str());
    }
  }
  // Resolves `dst` (name, IPv4 or IPv6 text) from daemon `from`, with the
  // source address of the same kind.
  acm::ResolveResponse Resolve(int from, const std::string& dst) {
    std::string src = dst.find(':') != std::string::npos   ? d[from].ip6
                      : dst.find('.') != std::string::npos ? d[from].ip
                                                           : d[from].name;
    acm::ResolveResponse r;
    Status st =
        d[from].client.Resolve({Addr(src, acm::kEpFlagSource), Addr(dst, acm::kEpFlagDest)}, &r);
    CHECK_OK(st);
    return r;
  }
  ibv_path_record ResolveOk(int from, const std::string& dst) {
    acm::ResolveResponse r = Resolve(from, dst);
    LONGS_EQUAL_TEXT(acm::kStatusSuccess, r.hdr.status,
                     (d[from].name + " -> " + dst + "\n" + d[from].ibacm->Log()).c_str());
    CHECK_EQUAL(1u, r.paths.size());
    return r.paths[0].path;
  }
  // Waits until every other daemon has logged handling a request: it has
  // cached the requester by then (the next client request comes after).
  void HeardRequest(const std::string& what) {
    for (int n = 1; n <= 4; ++n) {
      if (what.find("from " + d[n].name + " ") != std::string::npos ||
          what.find("from " + d[n].ip6 + " ") != std::string::npos)
        continue;
      CHECK_TEXT(ssa::test::PollUntil(
                     10s, [&] { return d[n].ibacm->Log().find(what) != std::string::npos; }),
                 (d[n].name + " never logged " + what).c_str());
    }
  }
  std::vector<uint64_t> Counters(int n) {
    acm::PerfResponse r;
    Status st = d[n].client.PerfQuery(1, &r);
    CHECK_OK(st);
    CHECK(r.counters.size() >= ACM_MAX_COUNTER);
    return r.counters;
  }
  std::map<std::string, std::string> SaPath(int from, int to) {
    auto f = ssa::test::ParseSaqueryPath(
        Run(d[from].node, {"saquery", "-p", "--sgid-to-dgid", d[from].gid + "-" + d[to].gid}));
    CHECK_FALSE_TEXT(f.empty(),
                     ("saquery has no path " + d[from].gid + " -> " + d[to].gid).c_str());
    return f;
  }
  // A client tool against daemon `from`; its output.
  std::string Acme(const std::string& tool, int from, const std::string& fmt,
                   const std::string& src, const std::string& dst) {
    std::string out;
    int rc = -1;
    Status st = ssa::test::RunProgram(
        {tool, "-S", d[from].ibacm->socket_path(), "-f", fmt, "-s", src, "-d", dst}, &out, &rc);
    CHECK_OK(st);
    LONGS_EQUAL_TEXT(0, rc, (tool + " " + src + " -> " + dst + ":\n" + out).c_str());
    return out;
  }
};

TEST(AcmpSim, SaRoutesEveryAddressFromEveryNodeEqualsOpensmAndRequestersAreCached) {
  StartFabric(ssa::test::FourHcaNet());
  StartAll("route_prot = sa\n");
  // node1 asks for node2: everyone hears node1's request and caches it.
  ResolveOk(1, "node2");
  HeardRequest("request from node1 for node2");
  for (int n : {2, 3, 4}) {
    ibv_path_record p = ResolveOk(n, "node1");
    LONGS_EQUAL(d[1].lid, ssa::FromBe16(p.dlid));
    std::vector<uint64_t> c = Counters(n);
    LONGS_EQUAL_TEXT(0, c[ACM_CNTR_ADDR_QUERY], d[n].name.c_str());  // no request sent
    // The owner (node2) has node1's route too: it asked for it to answer.
    LONGS_EQUAL(n == 2 ? 0 : 1, c[ACM_CNTR_ADDR_CACHE]);
    LONGS_EQUAL(n == 2 ? 1 : 0, c[ACM_CNTR_ROUTE_CACHE]);
  }
  // The same through an IPv6 source.
  ResolveOk(2, "fd00::3");
  HeardRequest("request from fd00::2 for fd00::3");
  LONGS_EQUAL(0, Counters(4)[ACM_CNTR_ADDR_QUERY]);
  ResolveOk(4, "fd00::2");
  LONGS_EQUAL(0, Counters(4)[ACM_CNTR_ADDR_QUERY]);

  // Every address from every other daemon, against OpenSM's path.
  for (int from = 1; from <= 4; ++from)
    for (int to = 1; to <= 4; ++to) {
      if (from == to) continue;
      auto sa = SaPath(from, to);
      for (const std::string& dst : {d[to].name, d[to].ip, d[to].ip6}) {
        std::string diff = ssa::test::SaqueryDifferences(sa, ResolveOk(from, dst));
        CHECK_TEXT(diff.empty(), (d[from].name + " -> " + dst + ": " + diff).c_str());
      }
    }
  // Debian's stock ib_acme and ours, by name and by IP.
  for (int from = 1; from <= 4; ++from)
    for (int to = 1; to <= 4; ++to) {
      if (from == to) continue;
      const std::string dlid = "dlid: " + std::to_string(d[to].lid) + "\n";
      const std::string dgid = "dgid: " + d[to].gid + "\n";
      for (const std::string& tool : {std::string(kStockAcme), OurAcme()}) {
        std::string out = Acme(tool, from, "n", d[from].name, d[to].name);
        STRCMP_CONTAINS(dlid.c_str(), out.c_str());
        STRCMP_CONTAINS(dgid.c_str(), out.c_str());
        STRCMP_CONTAINS(dlid.c_str(), Acme(tool, from, "i", d[from].ip, d[to].ip).c_str());
        STRCMP_CONTAINS(dlid.c_str(), Acme(tool, from, "i", d[from].ip6, d[to].ip6).c_str());
      }
    }
  // Nothing went wrong anywhere, and every daemon stops cleanly.
  StopAllWithoutErrors("0 malformed, 0 unexpected responses");
}

// Upstream's own options file, as Debian's stock ib_acme -O writes it,
// with its example provider lines switched on ("provider ibacmp ..."),
// unchanged otherwise: ibacmp is our acmp, and names resolve through it.
// (It used to serve nothing: "provider 'ibacmp' is not loaded".)
TEST(AcmpSim, UpstreamsStockOptionsFileWithItsProviderLinesOnServesThroughAcmp) {
  StartFabric(ssa::test::FourHcaNet());
  const std::string stock_dir = fabric->run_dir() + "/stock-opts";
  mkdir(stock_dir.c_str(), 0755);
  std::string out;
  int rc = -1;
  Status st = ssa::test::RunProgram({kStockAcme, "-O", "-D", stock_dir}, &out, &rc);
  CHECK_OK(st);
  LONGS_EQUAL_TEXT(0, rc, out.c_str());
  std::string opts;
  st = ssa::test::ReadFileToString(stock_dir + "/ibacm_opts.cfg", &opts);
  CHECK_OK(st);
  int switched = 0;
  for (size_t at; (at = opts.find("\n# provider ibacmp ")) != std::string::npos; ++switched)
    opts.erase(at + 1, 2);
  LONGS_EQUAL_TEXT(2, switched, opts.c_str());  // the prefix line and the default line
  for (int n : {2, 3}) StartDaemonWithFile(n, opts);
  STRCMP_CONTAINS("provider 'ibacmp' is upstream ibacm's name for our acmp",
                  d[2].ibacm->Log().c_str());
  STRCMP_CONTAINS("port ibsim0/1 served by provider acmp", d[2].ibacm->Log().c_str());
  const std::string dlid = "dlid: " + std::to_string(d[3].lid) + "\n";
  STRCMP_CONTAINS(dlid.c_str(), Acme(kStockAcme, 2, "n", d[2].name, d[3].name).c_str());
  for (int n : {2, 3}) StopDaemon(n);
}

TEST(AcmpSim, AcmRoutesComeFromTheBestSharedGroupAndEqualOpensms) {
  StartFabric(QdrNetButHca4());
  StartAll("route_prot = acm\n");
  // Hca1..3 are 4x QDR: a 40 Gb/s group besides the min group; Hca4 only
  // has the min group.
  // ("ready" means the min group is joined; the better one follows the
  // port's PortInfoRecord.)
  for (int n = 1; n <= 3; ++n)
    CHECK_TEXT(ssa::test::PollUntil(10s,
                                    [&] {
                                      return d[n].ibacm->Log().find(
                                                 "joined ff15:4001:ffff:7:400:: (MLID") !=
                                             std::string::npos;
                                    }),
               d[n].ibacm->Log().c_str());
  CHECK(d[4].ibacm->Log().find("ff15:4001:ffff:7:400::") == std::string::npos);
  for (int from = 1; from <= 4; ++from)
    for (int to = 1; to <= 4; ++to) {
      if (from == to) continue;
      auto sa = SaPath(from, to);
      ibv_path_record p = ResolveOk(from, d[to].name);
      std::string diff = ssa::test::SaqueryDifferences(sa, p);
      CHECK_TEXT(diff.empty(), (d[from].name + " -> " + d[to].name + ": " + diff).c_str());
      CHECK(p.reversible_numpath & 0x80);
      LONGS_EQUAL(from == 4 || to == 4 ? 0x83 : 0x87, p.rate);
    }
  // Routes learned from requests: nobody asked the SA for a path.
  for (int n = 1; n <= 4; ++n) {
    std::vector<uint64_t> c = Counters(n);
    LONGS_EQUAL(0, c[ACM_CNTR_ROUTE_QUERY]);
    CHECK(c[ACM_CNTR_ADDR_QUERY] + c[ACM_CNTR_ROUTE_CACHE] == 3);
  }
}

TEST(AcmpSim, AStoppedOrKilledDaemonsNamesTimeOutThenResolveAfterARestart) {
  StartFabric(ssa::test::FourHcaNet());
  StartAll("retries = 2\n");
  // Nobody has heard of node4 or node3 yet: they only joined.
  StopDaemon(4);
  CHECK_OK(d[3].ibacm->process()->Kill(SIGKILL));
  CHECK_TRUE(ssa::test::PollUntil(10s, [&] { return !d[3].ibacm->IsRunning(); }));
  for (int gone : {4, 3}) {
    auto start = std::chrono::steady_clock::now();
    acm::ResolveResponse r = Resolve(1, d[gone].name);
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    LONGS_EQUAL(acm::kStatusETimedOut, r.hdr.status);
    // 3 tries of (1024 ms subnet timeout + 200 ms), and not many more: a
    // wrong per-try timeout or an extra try fails. The slack covers the
    // client's round trip and a loaded machine.
    CHECK_TEXT(took.count() >= 3 * 1224, std::to_string(took.count()).c_str());
    CHECK_TEXT(took.count() <= 3 * 1224 + 1500, std::to_string(took.count()).c_str());
    STRCMP_CONTAINS(("no answer for " + d[gone].name + " after 3 tries").c_str(),
                    d[1].ibacm->Log().c_str());
  }
  LONGS_EQUAL(acm::kStatusETimedOut, Resolve(2, d[4].ip).hdr.status);
  // Back again: the same names resolve, from the nodes that failed before.
  StartDaemon(4, "retries = 2\n");
  StartDaemon(3, "retries = 2\n");
  LONGS_EQUAL(d[4].lid, ssa::FromBe16(ResolveOk(1, d[4].name).dlid));
  LONGS_EQUAL(d[3].lid, ssa::FromBe16(ResolveOk(1, d[3].name).dlid));
  LONGS_EQUAL(d[4].lid, ssa::FromBe16(ResolveOk(2, d[4].ip).dlid));
  LONGS_EQUAL(d[1].lid, ssa::FromBe16(ResolveOk(4, d[1].name).dlid));
}

TEST(AcmpSim, MalformedAndUnexpectedMessagesAreCountedAndDroppedWhileServing) {
  StartFabric(ssa::test::FourHcaNet());
  StartAll("");
  // A rogue endpoint in the fabric's datagram directory: not a daemon, no
  // SA join, just datagrams.
  auto transport = ssa::dgram::MakeSimDatagramTransport(fabric->run_dir() + "/acmp");
  ssa::dgram::EndpointParams p;
  p.lid = 999;
  p.gid.raw[0] = 0xfe;
  p.gid.raw[1] = 0x80;
  p.gid.raw[15] = 0x99;
  p.qkey = ssa::acmp::kAcmQkey;
  std::unique_ptr<ssa::dgram::DatagramEndpoint> rogue;
  Status st = transport->Open(p, &rogue);
  CHECK_OK(st);
  ssa::dgram::Group min_group;
  min_group.mgid = ssa::acmp::AcmMgid(0xffff, 0, 3, 4);
  min_group.mlid = 0xc001;
  uint8_t junk[200];
  memset(junk, 0x5a, sizeof(junk));
  namespace acmp = ssa::acmp;
  acmp::AcmMessage bad;
  bad.src.type = 7;  // no such address type
  bad.dest.type = acmp::kAddrName;
  strcpy(reinterpret_cast<char*>(bad.dest.data), "node2");
  uint8_t bad_type[acmp::kAcmMessageSize];
  acmp::EncodeAcmMessage(bad, bad_type);
  acmp::AcmMessage stray = bad;
  stray.src.type = acmp::kAddrName;
  stray.method = acmp::kAcmMethodResolve | acmp::kAcmMethodResponse;
  stray.tid = 0xdead;
  stray.gid_count = 1;
  stray.gids[0] = min_group.mgid;
  uint8_t unexpected[acmp::kAcmMessageSize];
  acmp::EncodeAcmMessage(stray, unexpected);
  // Sent one at a time, each after the daemons took the previous one in
  // (their socket queues hold 10 datagrams).
  auto all_logged = [&](const std::string& what, int count) {
    return ssa::test::PollUntil(10s, [&] {
      for (int n = 1; n <= 4; ++n)
        if (d[n].ibacm->Log().find(what + std::to_string(count) + " so far") == std::string::npos)
          return false;
      return true;
    });
  };
  CHECK_OK(rogue->SendToGroup(min_group, junk, sizeof(junk)));
  CHECK_TRUE(all_logged("); ", 1));
  CHECK_OK(rogue->SendToGroup(min_group, bad_type, sizeof(bad_type)));
  CHECK_TRUE(all_logged("); ", 2));
  CHECK_OK(rogue->SendToGroup(min_group, unexpected, sizeof(unexpected)));
  CHECK_TRUE(all_logged("dropped (", 1));
  for (int n = 1; n <= 4; ++n) {
    std::string log = d[n].ibacm->Log();
    STRCMP_CONTAINS("malformed ACM message from LID 999", log.c_str());
    STRCMP_CONTAINS("(not ACM: base version 90", log.c_str());
    STRCMP_CONTAINS("(bad address type: source address type 7", log.c_str());
    STRCMP_CONTAINS("response TID 0xdead from LID 999", log.c_str());
  }
  // Everyone still serves, and nobody cached the rogue.
  for (int from = 1; from <= 4; ++from)
    for (int to = 1; to <= 4; ++to)
      if (from != to) LONGS_EQUAL(d[to].lid, ssa::FromBe16(ResolveOk(from, d[to].name).dlid));
  StopAllWithoutErrors("2 malformed, 1 unexpected responses");
}

TEST(AcmpSim, WithAFifthOfAllDatagramsDroppedRetriesStillResolveEverything) {
  StartFabric(ssa::test::FourHcaNet());
  StartAll("fault_drop_percent = 20\nretries = 8\ntimeout = 100\n");
  for (int from = 1; from <= 4; ++from)
    for (int to = 1; to <= 4; ++to)
      if (from != to) LONGS_EQUAL(d[to].lid, ssa::FromBe16(ResolveOk(from, d[to].ip).dlid));
  uint64_t dropped = 0;
  for (int n = 1; n <= 4; ++n) {
    StopDaemon(n);
    std::string log = d[n].ibacm->Log();
    const std::string kInjected = "fault injection: ";
    size_t at = log.find(kInjected);
    CHECK(at != std::string::npos);
    dropped += strtoull(log.c_str() + at + kInjected.size(), nullptr, 10);
  }
  CHECK(dropped > 0);
}
