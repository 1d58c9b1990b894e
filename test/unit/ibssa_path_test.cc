// ibssa_path_test.cc: libibssa_path (include/ibacm_ssa/path.h) on tables
// published the way the ssa provider publishes them (TablePublisher),
// without a daemon: lookups as the provider answers them (P_Key rules, SL
// drawn in the SA's range), names and IPs, the epoch; tables of a process
// that stopped, foreign or truncated objects, and none at all, all
// answered "no data" (the socket is turned off) and counted, as is an
// object others may write; and a writer
// replacing epochs in a loop while readers on other threads look up: every
// answer comes whole from one epoch, and mappings do not pile up. With the
// socket on, what the tables cannot answer goes to a stand-in daemon with
// the request ib_acme would send, and its answer (or refusal) comes back.
#include <ibacm_ssa/path.h>
#include <infiniband/acm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/base/big_endian.h"
#include "common/shm_prdb/shm_prdb_publisher.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/shm_path_fixture.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using shm_test::Gid;
using shm_test::Object;

namespace {

uint64_t Self() { return ibssa_shm_process_start(getpid()); }

uint32_t Mark(const ibv_path_record& p) { return ssa::FromBe32(p.flowlabel_hoplimit) >> 8; }

int MappedTables(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) ++n;
  return n;
}

// A stand-in daemon on `path`: answers each resolve with a path whose DLID
// is the request's (a path request's) or 77 (an address request), or
// ENODATA for DLID 66; counts requests.
class FakeDaemon {
 public:
  explicit FakeDaemon(const std::string& path) {
    listen_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
    bind(listen_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa));
    listen(listen_, 4);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeDaemon() {
    shutdown(listen_, SHUT_RDWR);
    int c = conn_.load();
    if (c >= 0) shutdown(c, SHUT_RDWR);  // a client still connected
    thread_.join();
    close(listen_);
  }
  int requests() const { return requests_.load(); }

 private:
  void Serve() {
    int fd;
    while ((fd = accept(listen_, nullptr, nullptr)) >= 0) {
      conn_ = fd;
      acm_msg m;
      while (recv(fd, &m.hdr, ACM_MSG_HDR_LENGTH, MSG_WAITALL) == ACM_MSG_HDR_LENGTH) {
        size_t body = m.hdr.length - ACM_MSG_HDR_LENGTH;
        if (recv(fd, m.data, body, MSG_WAITALL) != static_cast<ssize_t>(body)) break;
        ++requests_;
        acm_ep_addr_data* entries = reinterpret_cast<acm_ep_addr_data*>(m.data);
        const acm_ep_addr_data& e = entries[body / ACM_MSG_EP_LENGTH - 1];
        uint16_t dlid = e.type == ACM_EP_INFO_PATH ? ssa::FromBe16(e.info.path.dlid) : 77;
        m.hdr.opcode |= ACM_OP_ACK;
        m.hdr.status = dlid == 66 ? ACM_STATUS_ENODATA : ACM_STATUS_SUCCESS;
        m.hdr.length = m.hdr.status ? ACM_MSG_HDR_LENGTH : ACM_MSG_HDR_LENGTH + ACM_MSG_EP_LENGTH;
        memset(m.data, 0, ACM_MSG_EP_LENGTH);
        entries[0].type = ACM_EP_INFO_PATH;
        entries[0].info.path.dlid = ssa::ToBe16(dlid);
        send(fd, &m, m.hdr.length, MSG_NOSIGNAL);
      }
      conn_ = -1;
      close(fd);
    }
  }
  int listen_ = -1;
  std::atomic<int> conn_{-1};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace

TEST_GROUP(IbssaPath) {
  ssa::test::TempDir dir{"ibssa-path-test."};
  std::string socket;
  std::unique_ptr<ssa::shm_prdb::TablePublisher> pub;
  ibssa_path* h = nullptr;

  int placeholder = -1;  // the daemon's socket, whose owner vouches for the tables

  void setup() override {
    socket = dir.path() + "/ibacm-unix.sock";
    pub.reset(new ssa::shm_prdb::TablePublisher(socket));
  }
  void teardown() override {
    ibssa_path_close(h);
    pub.reset();
    if (placeholder >= 0) close(placeholder);
  }
  // A socket at the daemon's path, unless a stand-in daemon holds it.
  void Placeholder() {
    struct stat st;
    if (stat(socket.c_str(), &st) == 0) return;
    placeholder = shm_test::BindSocket(socket);
    CHECK(placeholder >= 0);
  }
  void Open(int check_ms = 1) {
    Placeholder();
    ibssa_path_options o{};
    o.size = sizeof(o);
    o.flags = IBSSA_PATH_NO_SOCKET;
    o.check_ms = check_ms;
    LONGS_EQUAL(0, ibssa_path_open(socket.c_str(), &o, &h));
  }
  // With the socket for what the tables do not answer.
  void OpenWithSocket() {
    ibssa_path_options o{};
    o.size = sizeof(o);
    o.timeout_ms = 2000;
    LONGS_EQUAL(0, ibssa_path_open(socket.c_str(), &o, &h));
  }
  ibssa_path_stats Stats() {
    ibssa_path_stats s;
    ibssa_path_get_stats(h, &s);
    return s;
  }
};

TEST(IbssaPath, AnswersAsTheProviderWould) {
  CHECK_OK(pub->Publish(Object(7, getpid(), Self())));
  Open();
  ibv_path_record p;
  ibssa_path_answer a;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, &a));
  LONGS_EQUAL(3, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(0xffff, ssa::FromBe16(p.pkey));
  LONGS_EQUAL(IBSSA_PATH_FROM_TABLES, a.from);
  LONGS_EQUAL(7, a.epoch);
  // Any SLID of the port; the endpoint's P_Key answers, membership bit and all.
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 1, 4, 0x7fff, &p, &a));
  LONGS_EQUAL(0xffff, ssa::FromBe16(p.pkey));
  // No endpoint with that P_Key, a record of another partition, a LID
  // not held, a SLID of no port: the socket's (here: no data).
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 3, 0x0005, &p, &a));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 6, 0, &p, &a));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 99, 0, &p, &a));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 40, 3, 0, &p, &a));
  // By GID, from the port's GID or none.
  std::array<uint8_t, 16> sgid = Gid(2, 1), other = Gid(2, 9);
  LONGS_EQUAL(0, ibssa_path_by_gid(h, sgid.data(), Gid(1, 8).data(), 0, &p, &a));
  LONGS_EQUAL(8, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(0, ibssa_path_by_gid(h, nullptr, Gid(1, 8).data(), 0, &p, &a));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_gid(h, other.data(), Gid(1, 8).data(), 0, &p, &a));
  // Names (any case) and IPs, from the source the daemon picks.
  LONGS_EQUAL(0, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, "Hca9", 4, nullptr, 0, &p, &a));
  LONGS_EQUAL(9, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(1, a.src_type);
  STRCMP_EQUAL("self", reinterpret_cast<const char*>(a.src_addr));
  LONGS_EQUAL(0, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, "hca10", 5, "self", 4, &p, &a));
  LONGS_EQUAL(10, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(0, a.src_type);  // named by the caller: not reported
  LONGS_EQUAL(-ENODATA,
              ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, "hca10", 5, "other", 5, &p, &a));
  // An IP: no endpoint has one, so the daemon's own pick is the source.
  uint8_t ip[4] = {10, 0, 0, 11};
  LONGS_EQUAL(0, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP, ip, 4, nullptr, 0, &p, &a));
  LONGS_EQUAL(11, ssa::FromBe16(p.dlid));
  // A source of another family than the destination is the socket's.
  LONGS_EQUAL(-ENODATA, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP, ip, 4, "self", 4, &p, &a));
  LONGS_EQUAL(-EINVAL, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_IP, ip, 3, nullptr, 0, &p, &a));
  LONGS_EQUAL(7, ibssa_path_epoch(h, 0));
  ibssa_path_stats s = Stats();
  LONGS_EQUAL(7, s.table_answers);
  LONGS_EQUAL(7, s.misses);
}

TEST(IbssaPath, DrawsTheSlUniformlyInTheSasRange) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self())));
  Open();
  int seen[16] = {};
  for (int i = 0; i < 4000; ++i) {
    ibv_path_record p;
    LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 5, 0, &p, nullptr));
    ++seen[ssa::FromBe16(p.qosclass_sl) & 0xf];
  }
  for (int sl = 0; sl < 16; ++sl) {
    if (sl >= 2 && sl <= 5)
      CHECK_TEXT(seen[sl] > 800 && seen[sl] < 1200, std::to_string(sl).c_str());
    else
      LONGS_EQUAL(0, seen[sl]);
  }
}

TEST(IbssaPath, NoTablesStoppedPublisherAndBadObjectsAreCountedNotServed) {
  Open();
  ibv_path_record p;
  LONGS_EQUAL(-ENOENT, ibssa_path_refresh(h));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  // A publisher that has exited: stale.
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  CHECK_OK(pub->Publish(Object(2, child, 12345)));
  LONGS_EQUAL(-ESRCH, ibssa_path_refresh(h));
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  CHECK(Stats().stale >= 1);
  // Our own process with another start time: a reused PID, stale too.
  CHECK_OK(pub->Publish(Object(3, getpid(), Self() + 1)));
  LONGS_EQUAL(-ESRCH, ibssa_path_refresh(h));
  // Truncated, then foreign: rejected once each, counted.
  std::string o = Object(4, getpid(), Self());
  CHECK_OK(pub->Publish(o.substr(0, o.size() - 8)));
  LONGS_EQUAL(-EBADMSG, ibssa_path_refresh(h));
  LONGS_EQUAL(-EBADMSG, ibssa_path_refresh(h));
  CHECK_OK(pub->Publish(std::string(4096, 'z')));
  LONGS_EQUAL(-EBADMSG, ibssa_path_refresh(h));
  LONGS_EQUAL(2, Stats().bad_tables);
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  char why[320];
  LONGS_EQUAL(-EBADMSG, ibssa_path_status(h, why, sizeof(why)));
  STRCMP_CONTAINS("not valid tables", why);
  // Writable by others: not trusted.
  CHECK_OK(pub->Publish(o));
  CHECK_EQUAL(0, chmod(pub->path().c_str(), 0666));
  LONGS_EQUAL(-EPERM, ibssa_path_refresh(h));
  LONGS_EQUAL(-EPERM, ibssa_path_status(h, why, sizeof(why)));
  STRCMP_CONTAINS("may be written by others", why);
  LONGS_EQUAL(3, Stats().bad_tables);
  // Good again.
  CHECK_OK(pub->Publish(o));
  LONGS_EQUAL(0, ibssa_path_refresh(h));
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, nullptr));
  pub->Withdraw();
  LONGS_EQUAL(-ENOENT, ibssa_path_refresh(h));
  LONGS_EQUAL(0, ibssa_path_epoch(h, 0));
}

TEST(IbssaPath, ReadersSeeWholeEpochsWhileTheWriterReplacesThem) {
  CHECK_OK(pub->Publish(Object(1, getpid(), Self(), 200)));
  Open(1);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> lookups{0}, torn{0}, failed{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&, t] {
      uint16_t d = static_cast<uint16_t>(2 + t);
      while (!stop.load()) {
        ibv_path_record p;
        ibssa_path_answer a;
        d = static_cast<uint16_t>(d % 200 + 2);
        if (d == 6) continue;  // another partition
        if (ibssa_path_by_lid(h, 0, d, 0, &p, &a) != 0) {
          ++failed;
          continue;
        }
        // The record's mark is its object's epoch: one object, whole.
        if (Mark(p) != (a.epoch & 0xfffff) || ssa::FromBe16(p.dlid) != d) ++torn;
        ++lookups;
      }
    });
  uint64_t epoch = 1;
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  while (std::chrono::steady_clock::now() < until) {
    CHECK_OK(pub->Publish(Object(++epoch, getpid(), Self(), 200)));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  stop = true;
  for (auto& r : readers) r.join();
  LONGS_EQUAL(0, torn.load());
  LONGS_EQUAL(0, failed.load());
  CHECK(lookups.load() > 1000);
  CHECK(Stats().remaps > 10);
  // Replaced objects are unmapped (at the next look): at most the current
  // one stays.
  LONGS_EQUAL(epoch, ibssa_path_epoch(h, 1));
  CHECK(MappedTables(pub->path()) <= 1);
}

TEST(IbssaPath, WhatTheTablesCannotAnswerGoesToTheSocket) {
  FakeDaemon daemon(socket);
  CHECK_OK(pub->Publish(Object(5, getpid(), Self())));
  OpenWithSocket();
  ibv_path_record p;
  ibssa_path_answer a;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_TABLES, a.from);
  LONGS_EQUAL(0, daemon.requests());
  // Not in the tables, another partition's record: the socket's answers.
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 99, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_SOCKET, a.from);
  LONGS_EQUAL(99, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 6, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_SOCKET, a.from);
  LONGS_EQUAL(-ENODATA, ibssa_path_by_lid(h, 0, 66, 0, &p, &a));
  LONGS_EQUAL(0, ibssa_path_by_addr(h, IBSSA_PATH_ADDR_NAME, "nobody", 6, nullptr, 0, &p, &a));
  LONGS_EQUAL(77, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(4, daemon.requests());
  // Without tables everything goes there.
  pub->Withdraw();
  LONGS_EQUAL(-ENOENT, ibssa_path_refresh(h));
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 3, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_SOCKET, a.from);
  LONGS_EQUAL(5, daemon.requests());
  ibssa_path_stats s = Stats();
  LONGS_EQUAL(1, s.table_answers);
  LONGS_EQUAL(5, s.socket_answers);
  ibssa_path_close(h);  // before the stand-in stops
  h = nullptr;
}

TEST(IbssaPath, AConnectionTheDaemonClosedIsReplacedOnceNotFailed) {
  auto daemon = std::make_unique<FakeDaemon>(socket);
  OpenWithSocket();
  ibv_path_record p;
  ibssa_path_answer a;
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 9, 0, &p, &a));
  LONGS_EQUAL(IBSSA_PATH_FROM_SOCKET, a.from);
  // The daemon restarts: the library's kept connection is dead, and the
  // first request after must reach the new daemon, not fail.
  daemon.reset();
  unlink(socket.c_str());
  daemon = std::make_unique<FakeDaemon>(socket);
  LONGS_EQUAL(0, ibssa_path_by_lid(h, 0, 10, 0, &p, &a));
  LONGS_EQUAL(10, ssa::FromBe16(p.dlid));
  LONGS_EQUAL(1, daemon->requests());
  // Gone for good: the request fails as the daemon's absence, once.
  daemon.reset();
  unlink(socket.c_str());
  LONGS_EQUAL(-ENOENT, ibssa_path_by_lid(h, 0, 11, 0, &p, &a));
  LONGS_EQUAL(-ENOENT, ibssa_path_by_lid(h, 0, 11, 0, &p, &a));
  ibssa_path_close(h);
  h = nullptr;
}
