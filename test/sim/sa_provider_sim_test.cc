// sa_provider_sim_test.cc: the sa provider in our ibacm on simulated fabrics
// (ibsim + a real OpenSM), checked against OpenSM itself:
//   - 4 HCAs, daemon on Hca2 and then on Hca3: every LID OpenSM assigned
//     and every GID resolves through our daemon, and each record equals
//     `saquery -p --slid S --dlid D` (or --sgid-to-dgid) run as the same
//     node, field by field;
//   - a 36-HCA fat tree, daemons on two nodes: the same for every LID;
//   - Debian's stock ib_acme resolves LIDs and names through the daemon and
//     verifies each path with the SA (-v);
//   - the cache seen through PERF_QUERY counters: a second resolve is a hit,
//     NODELAY on a cold cache answers ENODATA at once and warms it, a LID
//     that does not exist fails with EDESTADDR and is negative-cached.
// Each test starts its own fabric; at most OpenSM, two daemons and one
// saquery attach at a time (ibsim's limit is 10).
#include <arpa/inet.h>
#include <endian.h>
#include <infiniband/acm.h>

#include <chrono>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
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
using ssa::test::DefaultGidText;
using ssa::test::IbacmNode;
using ssa::test::IbstatField;
using ssa::test::ParseSaqueryPath;
using ssa::test::SaqueryDifferences;
using ssa::test::SimFabric;
namespace acm = ssa::acm;

namespace {

std::string SaProviderDir() { return std::string(ABS_TOP_BUILDDIR) + "/providers/sa/.libs"; }

unsigned long long Num(const std::string& s) { return strtoull(s.c_str(), nullptr, 0); }

acm::EpAddr Source(const std::string& name) {
  acm::EpAddr e;
  e.flags = acm::kEpFlagSource;
  e.SetName(name);
  return e;
}

acm::EpAddr DestLid(uint16_t lid, uint32_t extra_flags = 0) {
  acm::EpAddr e;
  e.flags = acm::kEpFlagDest | extra_flags;
  e.SetLid(lid);
  return e;
}

acm::EpAddr DestGid(const std::string& text) {
  acm::EpAddr e;
  e.flags = acm::kEpFlagDest;
  ibv_gid gid;
  inet_pton(AF_INET6, text.c_str(), gid.raw);
  e.SetGid(gid);
  return e;
}

// One daemon with the sa provider on `node`, its address "node<N>".
struct SaDaemon {
  std::string node, name;
  std::unique_ptr<IbacmNode> ibacm;
  AcmClient client;
  uint16_t lid = 0;
};

}  // namespace

TEST_GROUP_BASE(SaProviderSim, ssa::test::FabricFixture){
    // Starts ibacm with the sa provider on `node` ("Hca2" -> address "node2").
    void StartDaemon(SaDaemon * d, const std::string& node,
                     const std::string& sa_options = ""){d->node = node;
d->name = "node" + node.substr(3);
d->lid = static_cast<uint16_t>(Num(IbstatField(Run(node, {"ibstat"}), "Base lid")));
CHECK(d->lid != 0);
IbacmNode::Options o;
o.node = node;
o.addr_cfg = d->name + " ibsim0 1 default\n";
o.opts_cfg = "[core]\nlog_level = debug\n[sa]\n" + sa_options;
o.provider_dir = SaProviderDir();
d->ibacm = std::make_unique<IbacmNode>(fabric.get(), o);
Status st = d->ibacm->Start();
CHECK_OK(st);
st = d->client.Connect(d->ibacm->socket_path());
CHECK_OK(st);
}
void StopDaemon(SaDaemon* d) {
  d->client.Close();
  Status st = d->ibacm->Stop();
  CHECK_OK(st);
  STRCMP_CONTAINS("port ibsim0/1 served by provider sa", d->ibacm->Log().c_str());
}
// Our answer for `dst`; fails the test unless it is a success.
ibv_path_record Resolve(SaDaemon* d, const acm::EpAddr& dst) {
  acm::ResolveResponse r;
  Status st = d->client.Resolve({Source(d->name), dst}, &r);
  CHECK_OK(st);
  LONGS_EQUAL_TEXT(acm::kStatusSuccess, r.hdr.status, dst.ToString().c_str());
  CHECK_EQUAL(1u, r.paths.size());
  return r.paths[0].path;
}
uint8_t ResolveStatus(SaDaemon* d, const acm::EpAddr& dst) {
  acm::ResolveResponse r;
  Status st = d->client.Resolve({Source(d->name), dst}, &r);
  CHECK_OK(st);
  return r.hdr.status;
}
std::vector<uint64_t> Counters(SaDaemon* d, uint8_t endpoint_index) {
  acm::PerfResponse r;
  Status st = d->client.PerfQuery(endpoint_index, &r);
  CHECK_OK(st);
  LONGS_EQUAL(acm::kStatusSuccess, r.hdr.status);
  CHECK(r.counters.size() >= 7);
  return r.counters;
}
// Walks LIDs from 1 until `nodes` of them have a path from `d` (every
// node has one LID: LMC 0), comparing each of ours with saquery's. The
// GIDs found on the way are returned for CompareGids.
std::vector<std::string> CompareLids(SaDaemon* d, int nodes) {
  std::vector<std::string> gids;
  const std::string slid = std::to_string(d->lid);
  int found = 0;
  for (int lid = 1; found < nodes; ++lid) {
    CHECK_TEXT(
        lid <= 4 * nodes,
        ("only " + std::to_string(found) + " of " + std::to_string(nodes) + " LIDs found").c_str());
    auto sa = ParseSaqueryPath(
        Run(d->node, {"saquery", "-p", "--slid", slid, "--dlid", std::to_string(lid)}));
    if (sa.empty()) continue;  // OpenSM gave this LID to no one
    ++found;
    ibv_path_record ours = Resolve(d, DestLid(static_cast<uint16_t>(lid)));
    std::string diff = SaqueryDifferences(sa, ours);
    CHECK_TEXT(diff.empty(), (d->node + " -> LID " + std::to_string(lid) + ": " + diff).c_str());
    gids.push_back(sa["dgid"]);
  }
  return gids;
}
void CompareGids(SaDaemon* d, const std::string& sgid, const std::vector<std::string>& gids) {
  for (const auto& dgid : gids) {
    auto sa =
        ParseSaqueryPath(Run(d->node, {"saquery", "-p", "--sgid-to-dgid", sgid + "-" + dgid}));
    CHECK_FALSE_TEXT(sa.empty(), ("saquery has no path to " + dgid).c_str());
    ibv_path_record ours = Resolve(d, DestGid(dgid));
    std::string diff = SaqueryDifferences(sa, ours);
    CHECK_TEXT(diff.empty(), (d->node + " -> GID " + dgid + ": " + diff).c_str());
  }
}
std::string OwnGid(SaDaemon* d) {
  auto sa = ParseSaqueryPath(Run(d->node, {"saquery", "-p", "--slid", std::to_string(d->lid),
                                           "--dlid", std::to_string(d->lid)}));
  CHECK_FALSE(sa.empty());
  return sa["sgid"];
}
void EveryLidAndGidMatchesOpensm(const std::string& node) {
  StartFabric(ssa::test::FourHcaNet());
  SaDaemon d;
  StartDaemon(&d, node);
  std::vector<std::string> gids = CompareLids(&d, 6);  // 4 HCAs, 2 switches
  LONGS_EQUAL(6, gids.size());
  CompareGids(&d, OwnGid(&d), gids);
  // Every answer above came from the SA once: 6 LIDs + 6 GIDs.
  std::vector<uint64_t> c = Counters(&d, 1);
  LONGS_EQUAL(12, c[ACM_CNTR_ROUTE_QUERY]);
  LONGS_EQUAL(0, c[ACM_CNTR_ERROR]);
  StopDaemon(&d);
}
}
;

TEST(SaProviderSim, FourHcasEveryLidAndGidMatchesOpensmFromHca2) {
  EveryLidAndGidMatchesOpensm("Hca2");
}

TEST(SaProviderSim, FourHcasEveryLidAndGidMatchesOpensmFromHca3) {
  EveryLidAndGidMatchesOpensm("Hca3");
}

TEST(SaProviderSim, FatTreeOf36HcasEveryLidMatchesOpensmFromTwoNodes) {
  ssa::test::FatTreeOptions t;
  t.hcas = 36;
  ssa::test::GeneratedNet net;
  Status st = ssa::test::FatTreeNet(t, &net);
  CHECK_OK(st);
  StartFabric(net.text, net.ibsim_args);
  SaDaemon a, b;
  StartDaemon(&a, "Hca2");
  StartDaemon(&b, "Hca36");  // on the other leaf
  LONGS_EQUAL(net.nodes, CompareLids(&a, net.nodes).size());
  LONGS_EQUAL(net.nodes, CompareLids(&b, net.nodes).size());
  StopDaemon(&a);
  StopDaemon(&b);
}

TEST(SaProviderSim, StockIbAcmeResolvesAndVerifiesLidsAndNames) {
  StartFabric(ssa::test::FourHcaNet());
  // Names through the address data: node1..node4 -> their port GIDs.
  std::string hosts;
  std::map<int, std::string> gid_of;
  for (int i = 1; i <= 4; ++i) {
    std::string ibstat = Run("Hca" + std::to_string(i), {"ibstat"});
    gid_of[i] = DefaultGidText(Num(IbstatField(ibstat, "Port GUID")));
    hosts += "node" + std::to_string(i) + " " + gid_of[i] + "\n";
  }
  std::string hosts_file = fabric->run_dir() + "/ibacm_hosts.data";
  CHECK_OK(ssa::test::WriteStringToFile(hosts_file, hosts));
  SaDaemon d;
  StartDaemon(&d, "Hca2", "addr_preload = acm_hosts\naddr_data_file = " + hosts_file + "\n");
  const std::string sock = d.ibacm->socket_path();
  std::string out;
  int rc = -1;
  for (int lid = 1; lid <= 6; ++lid) {
    CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", sock, "-f", "l", "-s",
                                    std::to_string(d.lid), "-d", std::to_string(lid), "-v"},
                                   &out, &rc));
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS(("dlid: " + std::to_string(lid) + "\n").c_str(), out.c_str());
    STRCMP_CONTAINS("SA verification: success", out.c_str());
  }
  for (int i = 1; i <= 4; ++i) {
    CHECK_OK(ssa::test::RunProgram({"/usr/bin/ib_acme", "-S", sock, "-f", "n", "-s", d.name, "-d",
                                    "node" + std::to_string(i), "-v"},
                                   &out, &rc));
    LONGS_EQUAL_TEXT(0, rc, out.c_str());
    STRCMP_CONTAINS(("dgid: " + gid_of[i] + "\n").c_str(), out.c_str());
    STRCMP_CONTAINS("SA verification: success", out.c_str());
  }
  // A name in no address data: a clear error, no crash.
  CHECK_OK(ssa::test::RunProgram(
      {"/usr/bin/ib_acme", "-S", sock, "-f", "n", "-s", d.name, "-d", "node99"}, &out, &rc));
  CHECK(rc != 0);
  std::vector<uint64_t> c = Counters(&d, 1);
  LONGS_EQUAL(4, c[ACM_CNTR_ADDR_CACHE]);
  StopDaemon(&d);
}

TEST(SaProviderSim, CacheHitsNodelayAndNegativeCacheShowInTheCounters) {
  StartFabric(ssa::test::FourHcaNet());
  SaDaemon d;
  StartDaemon(&d, "Hca3");
  auto route_queries = [&] { return Counters(&d, 1)[ACM_CNTR_ROUTE_QUERY]; };
  auto route_hits = [&] { return Counters(&d, 1)[ACM_CNTR_ROUTE_CACHE]; };

  // A second resolve of one destination is a cache hit.
  ibv_path_record first = Resolve(&d, DestLid(1));
  LONGS_EQUAL(1, route_queries());
  LONGS_EQUAL(0, route_hits());
  ibv_path_record second = Resolve(&d, DestLid(1));
  MEMCMP_EQUAL(&first, &second, sizeof(first));
  LONGS_EQUAL(1, route_queries());
  LONGS_EQUAL(1, route_hits());
  LONGS_EQUAL(1, Counters(&d, 0)[ACM_CNTR_ROUTE_CACHE]);  // daemon-wide too

  // NODELAY on a cold cache: ENODATA at once, and the lookup warms the cache.
  LONGS_EQUAL(acm::kStatusENoData, ResolveStatus(&d, DestLid(2, acm::kFlagNoDelay)));
  uint8_t status = acm::kStatusENoData;
  bool warmed = ssa::test::PollUntil(5s, [&] {
    status = ResolveStatus(&d, DestLid(2, acm::kFlagNoDelay));
    return status != acm::kStatusENoData;
  });
  CHECK_TRUE_TEXT(warmed, "NODELAY never found the path in the cache");
  LONGS_EQUAL(acm::kStatusSuccess, status);
  LONGS_EQUAL(2, route_queries());  // one query for LID 2, however often it was asked
  CHECK(Counters(&d, 1)[ACM_CNTR_NODATA] >= 1);

  // A LID nobody has: a clear error, and the second try asks no one.
  const uint16_t nobody = 200;
  LONGS_EQUAL(acm::kStatusEDestAddr, ResolveStatus(&d, DestLid(nobody)));
  LONGS_EQUAL(3, route_queries());
  LONGS_EQUAL(acm::kStatusEDestAddr, ResolveStatus(&d, DestLid(nobody)));
  LONGS_EQUAL(3, route_queries());
  LONGS_EQUAL(2, Counters(&d, 1)[ACM_CNTR_ERROR]);
  StopDaemon(&d);
  STRCMP_CONTAINS("LID 200: status 9: SA answered ERR_NO_RECORDS", d.ibacm->Log().c_str());
}
