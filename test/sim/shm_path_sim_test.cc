// shm_path_sim_test.cc: libibssa_path against ibacm with the ssa provider
// at the end of a whole SSA tree on a simulated fabric (`fallback = none`:
// every socket answer comes from the PRDB):
//   - every LID: the library answers from the shared-memory tables (no
//     socket) with the record the socket gives, byte for byte; our
//     ib_acme --shm -T checks each against the SA (QUERY_SA through the
//     daemon) with 0 mismatches; ib_acme --shm prints exactly what
//     Debian's stock ib_acme prints through the socket for LIDs, GIDs,
//     names and IPs, without a resolve reaching the daemon; all again
//     after a link change, with the next epoch;
//   - a reader holding the old epoch's mapping while the daemon swaps in
//     the next one keeps reading it whole;
//   - with the SM moving on and the tree below the core gone past the
//     daemon's stale_after_s, the port's records leave the tables (the
//     socket refuses them: ENOTCONN) and come back once the core confirms
//     the PRDB again;
//   - the daemon killed (SIGKILL, its tables left behind) and restarted
//     while a reader loops: once the reader looks (check_ms) the stale
//     tables are not served (it gets errors, not old records); the reader
//     gets the right records again from the new daemon's tables.
#include <ibacm_ssa/path.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <infiniband/acm.h>
#include "common/acm/acm_client.h"
#include "common/acm/acm_wire.h"
#include "common/base/big_endian.h"
#include "test/sim/ibacm_node.h"
#include "test/sim/sim_test_util.h"
#include "test/sim/sim_util.h"
#include "test/sim/tree_fixture.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/tool_output.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::test::IbacmNode;
using ssa::test::TreeHarness;
namespace acm = ssa::acm;

namespace {

const char kNode[] = "Hca6";

std::string OurIbAcme() { return std::string(ABS_TOP_BUILDDIR) + "/util/ib_acme/ib_acme"; }

bool SamePath(const ibv_path_record& a, const ibv_path_record& b) {
  return memcmp(&a, &b, sizeof(a)) == 0;
}

}  // namespace

TEST_GROUP_BASE(ShmPathSim, ssa::test::TreeFixture) {
  ibssa_path* h = nullptr;
  std::string hosts_file;

  void teardown() override {
    ibssa_path_close(h);
    h = nullptr;
    TreeFixture::teardown();
  }

  // The tree (12 HCAs, core with a hosts file of node<i>, 10.0.0.<i> and
  // fd00::<i>), ibacm with the ssa provider on kNode holding the core's
  // epoch and its address database, and the library opened on its socket
  // without the socket fallback. `plugin_extra`, `ssa_extra`: more plugin
  // options and [ssa] lines.
  void Start(const std::string& plugin_extra = "", const std::string& ssa_extra = "") {
    hosts_file = dir.path() + "/hosts.data";
    TreeHarness::Options o;
    CHECK_OK(TreeHarness::FatTree(12, 0, &o));
    o.extra_plugin_options = "hosts_file=" + hosts_file + " " + plugin_extra;
    CHECK_OK(tree->Start(o));
    CHECK_OK(tree->StartIbssa("Hca2", "distribution"));
    CHECK_OK(tree->StartIbssa("Hca3", "access"));
    std::string hosts = tree->HostsText(12);
    CHECK_OK(ssa::test::WriteStringToFile(hosts_file, hosts));
    IbacmNode::Options io;
    io.node = kNode;
    io.addr_cfg = "node6 ibsim0 1 default\n10.0.0.6 ibsim0 1 default\nfd00::6 ibsim0 1 default\n";
    io.opts_cfg =
        "[core]\nlog_level = debug\nprovider = ssa default\nsupport_ips_in_addr_cfg = yes\n"
        "[ssa]\nmad_timeout_ms = 300\nfallback = none\n" +
        ssa_extra;
    io.provider_dir = std::string(ABS_TOP_BUILDDIR) + "/providers/ssa/.libs";
    ibacm = std::make_unique<IbacmNode>(tree->fabric(), io);
    CHECK_OK(ibacm->Start());
    ibssa_path_options po{};
    po.size = sizeof(po);
    po.flags = IBSSA_PATH_NO_SOCKET;
    po.check_ms = 10;
    LONGS_EQUAL(0, ibssa_path_open(ibacm->socket_path().c_str(), &po, &h));
    CHECK_OK(ibacm->WaitMetric(
        "ibacm_ssa_addr_names{provider=\"ssa\"}", [](double v) { return v == 12; }, 30s));
    CHECK_OK(ibacm->WaitMetric(
        "ibacm_ssa_addr_ips{provider=\"ssa\"}", [](double v) { return v == 24; }, 30s));
    WaitEpoch(tree->smdb().global_epoch);
  }

  std::string GidOf(const std::string& node) {
    return ssa::test::DefaultGidText(tree->PortGuid(node));
  }

  // The tables answer from `epoch` (the daemon publishes them once the
  // PRDB of that epoch answers).
  void WaitEpoch(uint64_t epoch) {
    CHECK_TEXT(ssa::test::PollUntil(60s, [&] { return ibssa_path_epoch(h, 1) == epoch; }),
               ("the tables never reached epoch " + std::to_string(epoch)).c_str());
  }

  std::vector<uint16_t> Lids() {
    std::vector<uint16_t> lids;
    for (const auto& g : tree->smdb().guid_lids.records)
      if (g.guid == g.port_guid) lids.push_back(g.base_lid);
    return lids;
  }

  // The socket's answer to ib_acme -f l's request.
  ibv_path_record SocketPath(ssa::AcmClient * c, uint16_t dlid) {
    ibv_path_record q{};
    q.slid = ssa::ToBe16(tree->Lid(kNode));
    q.dlid = ssa::ToBe16(dlid);
    q.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
    acm::EpAddr e;
    e.SetPath(q);
    acm::ResolveResponse r;
    CHECK_OK(c->Resolve({e}, &r));
    LONGS_EQUAL_TEXT(0, r.hdr.status, std::to_string(dlid).c_str());
    return r.paths[0].path;
  }

  // Every LID from the tables equals the socket's answer; the same through
  // ib_acme --shm -T, checked against the SA by the daemon.
  void EveryLidEqualsTheSocketAndTheSa(uint64_t epoch) {
    ssa::AcmClient c;
    CHECK_OK(c.Connect(ibacm->socket_path()));
    size_t n = 0;
    for (uint16_t dlid : Lids()) {
      ibv_path_record p;
      ibssa_path_answer a;
      LONGS_EQUAL_TEXT(0, ibssa_path_by_lid(h, tree->Lid(kNode), dlid, 0, &p, &a),
                       std::to_string(dlid).c_str());
      LONGS_EQUAL(IBSSA_PATH_FROM_TABLES, a.from);
      LONGS_EQUAL(epoch, a.epoch);
      CHECK_TEXT(SamePath(p, SocketPath(&c, dlid)), std::to_string(dlid).c_str());
      ++n;
    }
    CHECK(n >= 14);
    std::string out;
    int rc = -1;
    CHECK_OK(ssa::test::RunProgram({OurIbAcme(), "--shm", "-T", "-S", ibacm->socket_path(), "-s",
                                    std::to_string(tree->Lid(kNode)), "--lid-range",
                                    "1-" + std::to_string(Lids().back()), "--verify", "daemon"},
                                   &out, &rc));
    STRCMP_CONTAINS_TEXT("mismatched:   0", out.c_str(), out.c_str());
    STRCMP_CONTAINS_TEXT(("from the shared-memory tables (epoch " + std::to_string(epoch) +
                          "), 0 through the socket")
                             .c_str(),
                         out.c_str(), out.c_str());
  }

  // The daemon's resolve counter (PERF_QUERY).
  uint64_t Resolves() {
    uint64_t n = 0;
    CHECK_OK(ssa::test::DaemonCounter(ibacm->socket_path(), ACM_CNTR_RESOLVE, &n));
    return n;
  }

  // ib_acme --shm prints what the stock ib_acme prints through the socket,
  // and asks the socket nothing: the tables answered.
  void SameOutputAsStockIbAcme(const std::vector<std::string>& args) {
    std::vector<std::string> stock = {"/usr/bin/ib_acme", "-S", ibacm->socket_path()};
    std::vector<std::string> ours = {OurIbAcme(), "--shm", "-S", ibacm->socket_path()};
    stock.insert(stock.end(), args.begin(), args.end());
    ours.insert(ours.end(), args.begin(), args.end());
    std::string a, b;
    int rc_a = -1, rc_b = -1;
    CHECK_OK(ssa::test::RunProgram(stock, &a, &rc_a));
    uint64_t resolves = Resolves();
    CHECK_OK(ssa::test::RunProgram(ours, &b, &rc_b));
    LONGS_EQUAL_TEXT(resolves, Resolves(), b.c_str());
    LONGS_EQUAL_TEXT(0, rc_a, a.c_str());
    LONGS_EQUAL_TEXT(rc_a, rc_b, b.c_str());
    STRCMP_EQUAL(a.c_str(), b.c_str());
  }

  void EveryFormatAsStockIbAcme() {
    std::string slid = std::to_string(tree->Lid(kNode));
    SameOutputAsStockIbAcme({"-f", "l", "-s", slid, "-d", "1-" + std::to_string(Lids().back())});
    for (const char* node : {"Hca1", "Hca9", "Hca12"}) {
      SameOutputAsStockIbAcme({"-f", "g", "-s", GidOf(kNode), "-d", GidOf(node)});
      SameOutputAsStockIbAcme({"-f", "g", "-d", GidOf(node)});
    }
    SameOutputAsStockIbAcme({"-f", "n", "-s", "node6", "-d", "node1"});
    SameOutputAsStockIbAcme({"-f", "n", "-d", "NODE9"});
    SameOutputAsStockIbAcme({"-f", "i", "-s", "10.0.0.6", "-d", "10.0.0.12"});
    SameOutputAsStockIbAcme({"-f", "i", "-s", "fd00::6", "-d", "fd00::3"});
  }
};

TEST(ShmPathSim, TheLibraryAnswersAsTheSocketAndTheSaBeforeAndAfterALinkChange) {
  Start();
  uint64_t epoch = tree->smdb().global_epoch;
  EveryLidEqualsTheSocketAndTheSa(epoch);
  EveryFormatAsStockIbAcme();
  // Names and IPs from the tables too (the library's own handle).
  ibv_path_record p;
  ibssa_path_answer a;
  LONGS_EQUAL(0, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, "node3", 5, nullptr, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_TABLES, a.from);
  STRCMP_EQUAL("node6", reinterpret_cast<const char*>(a.src_addr));

  // A daemon on another socket (none here) has tables of its own: this
  // daemon's are not seen through it.
  ibssa_path* other = nullptr;
  std::string other_socket = ibacm->dir() + "/run/other-unix.sock";
  LONGS_EQUAL(0, ibssa_path_open(other_socket.c_str(), nullptr, &other));
  LONGS_EQUAL(-ENOENT, ibssa_path_refresh(other));
  LONGS_EQUAL(0, ibssa_path_epoch(other, 1));
  ibssa_path_close(other);

  // A reader that would not look again by itself for an hour: its records
  // are copies, and once the daemon replaced the object (marking it
  // retired) its next lookup comes from the new epoch, never from the
  // replaced one.
  ibssa_path* old_reader = nullptr;
  ibssa_path_options po{};
  po.size = sizeof(po);
  po.flags = IBSSA_PATH_NO_SOCKET;
  po.check_ms = 3600 * 1000;  // never looks again by itself
  LONGS_EQUAL(0, ibssa_path_open(ibacm->socket_path().c_str(), &po, &old_reader));
  ibv_path_record before;
  LONGS_EQUAL(0, ibssa_path_by_lid(old_reader, 0, 1, 0, &before, nullptr));

  ssa::smdb::Smdb next;
  CHECK_OK(tree->ChangeLink("L1", 7, false, 30s, &next));
  WaitEpoch(next.global_epoch);
  LONGS_EQUAL(next.global_epoch, ibssa_path_epoch(old_reader, 0));
  ibv_path_record still;
  LONGS_EQUAL(0, ibssa_path_by_lid(old_reader, 0, 1, 0, &still, nullptr));
  LONGS_EQUAL(ssa::FromBe16(before.dlid), ssa::FromBe16(still.dlid));
  ibssa_path_close(old_reader);

  EveryLidEqualsTheSocketAndTheSa(next.global_epoch);
  EveryFormatAsStockIbAcme();
  ibssa_path_stats s;
  ibssa_path_get_stats(h, &s);
  LONGS_EQUAL(0, s.bad_tables);
  LONGS_EQUAL(0, s.socket_answers);
}

TEST(ShmPathSim, ADaemonKilledAndRestartedWhileAReaderLoops) {
  Start();
  // The right record of every LID, from the socket.
  std::map<uint16_t, ibv_path_record> want;
  {
    ssa::AcmClient c;
    CHECK_OK(c.Connect(ibacm->socket_path()));
    for (uint16_t dlid : Lids()) want[dlid] = SocketPath(&c, dlid);
  }
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> right{0}, wrong{0}, refused{0};
  std::thread reader([&] {
    while (!stop) {
      for (const auto& kv : want) {
        ibv_path_record p;
        int rc = ibssa_path_by_lid(h, 0, kv.first, 0, &p, nullptr);
        if (rc == 0)
          ++(SamePath(p, kv.second) ? right : wrong);
        else
          ++refused;
      }
    }
  });
  std::this_thread::sleep_for(300ms);
  uint64_t right_before = right;
  CHECK_OK(ibacm->process()->Kill(SIGKILL));
  int status = 0;
  CHECK_OK(ibacm->process()->Wait(10s, &status));
  // Its tables are still there, but the publisher is gone: not served.
  CHECK(ssa::test::PollUntil(5s, [&] { return ibssa_path_refresh(h) == -ESRCH; }));
  uint64_t refused_at = refused;
  std::this_thread::sleep_for(300ms);
  CHECK(refused > refused_at);
  // Restarted on the same socket: its own tables, the same records.
  unlink(ibacm->socket_path().c_str());
  CHECK_OK(ibacm->Start());
  bool mapped = ssa::test::PollUntil(30s, [&] { return ibssa_path_refresh(h) == 0; });
  char why[320];
  ibssa_path_status(h, why, sizeof(why));
  if (!mapped) {
    stop = true;
    reader.join();
  }
  CHECK_TEXT(mapped, why);
  uint64_t right_at = right;
  std::this_thread::sleep_for(300ms);
  stop = true;
  reader.join();
  CHECK(right_before > 0);
  CHECK(right > right_at);
  LONGS_EQUAL(0, wrong.load());
  ibssa_path_stats s;
  ibssa_path_get_stats(h, &s);
  CHECK(s.stale > 0);
  LONGS_EQUAL(0, s.bad_tables);
}

TEST(ShmPathSim, APortsRecordsLeaveTheTablesWhileItsPrdbIsUnconfirmed) {
  // Renewals every 2 s, a bound of 4 s (ibacm_ssa(7) stale_after_s).
  Start("lease_s=6", "stale_after_s = 4\nfallback_jitter_s = 0\n");
  const uint16_t dlid = static_cast<uint16_t>(tree->Lid("Hca9"));
  ibv_path_record rec;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, dlid, 0, &rec, nullptr));
  ibssa_path* with_socket = nullptr;
  LONGS_EQUAL(0, ibssa_path_open(ibacm->socket_path().c_str(), nullptr, &with_socket));
  struct Close {
    ibssa_path* h;
    ~Close() { ibssa_path_close(h); }
  } close_it{with_socket};

  // The SM moves on (a link change), the tree below the core does not
  // (its one access node killed).
  CHECK_OK(tree->process("Hca3")->Kill(SIGKILL));
  ssa::smdb::Smdb next;
  CHECK_OK(tree->ChangeLink("L1", 7, false, 30s, &next));
  // Past the bound the tables no longer hold it (no socket: -ENODATA);
  // the socket refuses.
  CHECK(ssa::test::PollUntil(
      30s, [&] { return ibssa_path_by_lid(h, 0, dlid, 0, &rec, nullptr) == -ENODATA; }));
  LONGS_EQUAL(-ENOTCONN, ibssa_path_by_lid(with_socket, 0, dlid, 0, &rec, nullptr));

  // Another access node (not Hca3 again: the consumer's reports of its
  // lost parent, by GUID, would keep a new life of it from being assigned).
  CHECK_OK(tree->StartIbssa("Hca4", "access"));
  WaitEpoch(next.global_epoch);
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, dlid, 0, &rec, nullptr));
  LONGS_EQUAL(dlid, ssa::FromBe16(rec.dlid));
}
