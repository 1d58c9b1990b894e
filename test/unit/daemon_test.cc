// The whole daemon in-process, with the test provider and a made-up port:
// the client protocol end to end, error paths, and the exactly-once rule for
// provider answers. The daemon's loop runs on its own thread; the test
// talks to it only through its socket.
#include "core/daemon.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <CppUTest/TestHarness.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/acm/acm_client.h"
#include "common/base/big_endian.h"
#include "core/client_server.h"
#include "core/port_manager.h"
#include "core/request_dispatcher.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/daemon_fixture.h"

namespace {

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

}  // namespace

TEST_GROUP(Daemon) {
  ssa::test::TempDir tmp{"ssa-daemon-"};
  const std::string& dir = tmp.path();
  std::unique_ptr<ssa::Daemon> daemon;
  std::thread loop_thread;
  std::vector<std::string> log_lines;

  void setup() override { CHECK_OK(tmp.status()); }
  // The port the daemon sees; tests may change it (under the mutex) and the
  // daemon's poll picks the change up.
  std::mutex port_mutex;
  ssa::UmadPort port = ssa::test::FakeDaemonPort();

  void Start(const std::string& extra_opts) {
    ssa::test::WriteDaemonAddrFile(dir);
    ssa::test::StartDaemonThread(MakeSettings(extra_opts), &daemon, &loop_thread);
  }
  ssa::Daemon::Settings MakeSettings(const std::string& extra_opts) {
    ssa::Daemon::Settings s =
        ssa::test::DaemonSettingsIn(dir, "[core]\nlog_level = warn\n" + extra_opts);
    s.discover = [this](std::vector<ssa::UmadPort>* out) {
      std::lock_guard<std::mutex> lock(port_mutex);
      *out = {port};
      return ssa::Status::Ok();
    };
    return s;
  }
  std::string ReadLog() { return ssa::test::ReadWholeFile(dir + "/ibacm.log"); }
  void teardown() override {
    ssa::test::StopDaemonThread(&daemon, &loop_thread);
    CHECK_OK(tmp.Remove());
  }
  std::string Socket() { return dir + "/run/ibacm-unix.sock"; }
  ssa::acm::EpAddr Name(const char* name, uint32_t flags) {
    ssa::acm::EpAddr e;
    e.flags = flags;
    e.SetName(name);
    return e;
  }
};

TEST(Daemon, EndpointQueryListsEveryPkeyEndpoint) {
  Start("");
  ssa::AcmClient c;
  CHECK_OK(c.Connect(Socket()));
  ssa::acm::EpQueryResponse r;
  CHECK_OK(c.EpQuery(1, 0, &r));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
  CHECK(r.config.dev_guid == 0x0002c90300001230ULL);
  LONGS_EQUAL(0xffff, r.config.pkey);
  STRCMP_EQUAL("testprov", r.config.prov_name.c_str());
  LONGS_EQUAL(1, r.config.addrs.size());
  STRCMP_EQUAL("node5", r.config.addrs[0].c_str());
  CHECK_OK(c.EpQuery(2, 0, &r));
  LONGS_EQUAL(0x8001, r.config.pkey);
  STRCMP_EQUAL("node5-b", r.config.addrs[0].c_str());
  CHECK_OK(c.EpQuery(3, 0, &r));
  LONGS_EQUAL(ssa::acm::kStatusEInval, r.hdr.status);  // no third endpoint
  CHECK_OK(c.EpQuery(1, 2, &r));
  LONGS_EQUAL(ssa::acm::kStatusEInval, r.hdr.status);  // nothing on port 2
}

TEST(Daemon, ResolveLidPathWithSelectedSourceAndCounters) {
  Start("");
  ssa::AcmClient c;
  CHECK_OK(c.Connect(Socket()));
  ssa::acm::ResolveResponse r;
  // A name destination without a source: the daemon picks one and says so.
  CHECK_OK(c.Resolve({Name("node5", ssa::acm::kEpFlagDest)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
  LONGS_EQUAL(1, r.paths.size());
  CHECK_TRUE(r.has_source);
  STRCMP_EQUAL("node5", r.source.name().c_str());
  LONGS_EQUAL(5, ssa::FromBe16(r.paths[0].path.slid));
  // Unknown destination: the provider's EDESTADDR reaches the client.
  CHECK_OK(c.Resolve(
      {Name("node5", ssa::acm::kEpFlagSource), Name("nobody", ssa::acm::kEpFlagDest)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusEDestAddr, r.hdr.status);
  // Unknown source: the core's ESRCADDR.
  CHECK_OK(c.Resolve(
      {Name("elsewhere", ssa::acm::kEpFlagSource), Name("node5", ssa::acm::kEpFlagDest)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusESrcAddr, r.hdr.status);
  ssa::acm::PerfResponse perf;
  CHECK_OK(c.PerfQuery(0, &perf));
  LONGS_EQUAL(ssa::acm::kMaxCounter, perf.counters.size());
  LONGS_EQUAL(3, perf.counters[ssa::acm::kCntrResolve]);
  LONGS_EQUAL(2, perf.counters[ssa::acm::kCntrError]);
}

TEST(Daemon, NoDelayAnswersEnodataFirst) {
  Start("");
  ssa::AcmClient c;
  CHECK_OK(c.Connect(Socket()));
  ssa::acm::ResolveResponse r;
  auto dst = Name("node5", ssa::acm::kEpFlagDest | ssa::acm::kFlagNoDelay);
  CHECK_OK(c.Resolve({dst}, &r));
  LONGS_EQUAL(ssa::acm::kStatusENoData, r.hdr.status);
  CHECK_OK(c.Resolve({dst}, &r));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
}

TEST(Daemon, MalformedRequestsGetErrorsAndDaemonKeepsServing) {
  Start("");
  ssa::AcmClient c;
  CHECK_OK(c.Connect(Socket()));
  // Two destinations: EDESTADDR, not a crash, and the connection stays.
  ssa::acm::ResolveResponse r;
  CHECK_OK(c.Resolve({Name("a", ssa::acm::kEpFlagDest), Name("b", ssa::acm::kEpFlagDest)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusEDestAddr, r.hdr.status);
  // A resolve with no destination at all.
  CHECK_OK(c.Resolve({Name("node5", ssa::acm::kEpFlagSource)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusEDestType, r.hdr.status);
  ssa::acm::EpQueryResponse ep;
  CHECK_OK(c.EpQuery(1, 0, &ep));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, ep.hdr.status);
  CHECK(daemon->dispatcher()->stats().bad_requests >= 2);
}

TEST(Daemon, LateAnswerForClosedClientIsDroppedSafely) {
  Start("[testprov]\ndelay_ms = 200\n");
  {
    ssa::AcmClient c;
    CHECK_OK(c.Connect(Socket()));
    std::vector<uint8_t> req;
    CHECK_OK(ssa::acm::EncodeResolveRequest(1, {Name("node5", ssa::acm::kEpFlagDest)}, &req));
    CHECK_EQUAL(0, c.connected() ? 0 : 1);
    // Send and hang up before the provider answers.
    ssa::AcmClient raw;
    CHECK_OK(raw.Connect(Socket()));
    raw.set_timeout_ms(1);
    std::vector<uint8_t> reply;
    ssa::Status st = raw.Transact(req, &reply);
    CHECK_EQUAL(-ETIMEDOUT, st.code());
  }
  // A later client still gets served after the late answer was dropped.
  ssa::AcmClient c2;
  CHECK_OK(c2.Connect(Socket()));
  ssa::acm::ResolveResponse r;
  CHECK_OK(c2.Resolve({Name("node5", ssa::acm::kEpFlagDest)}, &r));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
  CHECK(daemon->server()->stats().dropped_replies >= 1);
}

TEST(Daemon, PortGoingDownAndUpClosesAndReopensEndpoints) {
  Start("port_poll_ms = 100\n");
  ssa::AcmClient c;
  CHECK_OK(c.Connect(Socket()));
  ssa::acm::EpQueryResponse r;
  CHECK_OK(c.EpQuery(1, 0, &r));
  LONGS_EQUAL(ssa::acm::kStatusSuccess, r.hdr.status);
  auto wait_status = [&](uint8_t want) {
    for (int i = 0; i < 200; ++i) {  // 100 ms polls; deadline 10 s
      if (c.EpQuery(1, 0, &r).ok() && r.hdr.status == want) return true;
      usleep(50000);
    }
    return false;
  };
  {
    std::lock_guard<std::mutex> lock(port_mutex);
    port.state = ssa::kPortDown;
  }
  CHECK_TRUE(wait_status(ssa::acm::kStatusEInval));  // no active endpoint
  {
    std::lock_guard<std::mutex> lock(port_mutex);
    port.state = ssa::kPortActive;
    port.lid = 9;  // and a new LID at the same time
  }
  CHECK_TRUE(wait_status(ssa::acm::kStatusSuccess));
  ssa::acm::ResolveResponse rr;
  CHECK_OK(c.Resolve({Name("node5", ssa::acm::kEpFlagDest)}, &rr));
  LONGS_EQUAL(9, ssa::FromBe16(rr.paths[0].path.slid));  // the provider saw the new LID
}

// A burst of hardware port events (PortEvents on a real HCA) is one port
// re-read; the events a provider must hear about go to its port_event
// (ABI 1.1) after the port_changed that the re-read caused, and events for
// a port the daemon does not have are ignored.
TEST(Daemon, HardwarePortEventsRereadOnceThenReachTheProvider) {
  Start("port_poll_ms = 3600000\n");  // no poll tick during the test
  std::mutex lines_mutex;
  daemon->log()->set_level(ssa::LogLevel::kDebug);
  daemon->log()->set_sink([&](ssa::LogLevel, const std::string& line) {
    std::lock_guard<std::mutex> lock(lines_mutex);
    log_lines.push_back(line);
  });
  {
    std::lock_guard<std::mutex> lock(port_mutex);
    port.sm_lid = 2;  // the SM moved
  }
  std::mutex done_mutex;
  bool done = false;
  daemon->loop()->Post([&] {
    daemon->ports()->HandleEvents({{"fake0", 1, SSA_PORT_EVENT_SM_CHANGE},
                                   {"fake0", 1, 0},
                                   {"fake0", 1, SSA_PORT_EVENT_CLIENT_REREGISTER},
                                   {"fake9", 1, SSA_PORT_EVENT_LID_CHANGE}});
    std::lock_guard<std::mutex> lock(done_mutex);
    done = true;
  });
  for (int i = 0; i < 1000; ++i) {  // deadline 10 s
    {
      std::lock_guard<std::mutex> lock(done_mutex);
      if (done) break;
    }
    usleep(10000);
  }
  daemon->RequestStop();
  loop_thread.join();
  daemon->Shutdown();
  daemon.reset();
  std::string all;
  for (const auto& l : log_lines) all += l + "\n";
  size_t changed = all.find("port_changed fake0/1");
  size_t sm_event = all.find("port_event fake0/1 2");
  size_t rereg_event = all.find("port_event fake0/1 1");
  CHECK_TEXT(changed != std::string::npos, all.c_str());
  CHECK_TEXT(sm_event != std::string::npos && sm_event > changed, all.c_str());
  CHECK_TEXT(rereg_event != std::string::npos && rereg_event > sm_event, all.c_str());
  STRCMP_CONTAINS("port_changed=1 ", all.c_str());
  STRCMP_CONTAINS("port_event=2", all.c_str());
}

TEST(Daemon, ClientLimitsComeFromTheCoreOptions) {
  Start(
      "log_level = info\nmax_clients = 3\nclient_timeout_ms = 250\nclient_read_budget = 5\n"
      "client_max_inflight = 7\n");
  LONGS_EQUAL(3, daemon->server()->limits().max_clients);
  LONGS_EQUAL(250, daemon->server()->limits().client_timeout.count());
  LONGS_EQUAL(5, daemon->server()->limits().read_budget);
  LONGS_EQUAL(7, daemon->server()->limits().max_inflight);
  STRCMP_CONTAINS(
      "clients: at most 3 at once (max_clients); each has 5 messages a turn and 7 requests in "
      "flight at most",
      ReadLog().c_str());
}

// max_clients used to default to no limit: clients could take every
// descriptor the daemon has, and its own sockets and files then failed.
TEST(Daemon, TheClientLimitDefaultsToTheDescriptorLimitLessAReserve) {
  struct rlimit saved;
  CHECK_EQUAL(0, getrlimit(RLIMIT_NOFILE, &saved));
  struct rlimit lowered = saved;
  lowered.rlim_cur = std::min<rlim_t>(saved.rlim_max, 1000);
  CHECK_EQUAL(0, setrlimit(RLIMIT_NOFILE, &lowered));
  Start("log_level = info\n");
  setrlimit(RLIMIT_NOFILE, &saved);
  size_t expected = ssa::ClientServer::DefaultMaxClients(lowered.rlim_cur);
  CHECK(expected > 0);
  LONGS_EQUAL(expected, daemon->server()->limits().max_clients);
  std::string line = "clients: at most " + std::to_string(expected) +
                     " at once (the descriptor limit (RLIMIT_NOFILE) " +
                     std::to_string(lowered.rlim_cur) + " less";
  STRCMP_CONTAINS(line.c_str(), ReadLog().c_str());
}

// A missing -A file was one info line, and the daemon served host-named
// endpoints nobody asked for.
TEST(Daemon, AMissingAddressFileGivenWithDashAIsAStartUpError) {
  ssa::Daemon::Settings s = MakeSettings("");
  s.addr_file = dir + "/no-such-addr.cfg";
  s.addr_file_given = true;
  {
    ssa::Daemon d(s);
    ssa::Status st = d.Start();
    CHECK_FALSE(st.ok());
    STRCMP_CONTAINS("no-such-addr.cfg", st.ToString().c_str());
  }
  STRCMP_CONTAINS("error: cannot read address file", ReadLog().c_str());
}

TEST(Daemon, AMissingAddressFileNotGivenIsAWarning) {
  ssa::Daemon::Settings s = MakeSettings("");
  s.addr_file = dir + "/no-such-addr.cfg";  // as if from addr_file or the default
  {
    ssa::Daemon d(s);
    ssa::Status st = d.Start();
    CHECK_OK(st);
    d.Shutdown();
  }
  STRCMP_CONTAINS("warn: cannot read address file", ReadLog().c_str());
}

TEST(Daemon, AddressLinesForUnknownDevicesPkeysAndDuplicatesAreWarned) {
  WriteFile(dir + "/addr.cfg",
            "node5 fake0 1 default\n"
            "node5 fake0 1 0x8001\n"
            "ghost fake9 1 default\n"
            "nopkey fake0 1 0x8123\n");
  ssa::Daemon::Settings s = MakeSettings("");
  {
    ssa::Daemon d(s);
    ssa::Status st = d.Start();
    CHECK_OK(st);
    d.Shutdown();
  }
  std::string log = ReadLog();
  STRCMP_CONTAINS("addr.cfg:2: duplicate address 'node5' (first on line 1)", log.c_str());
  STRCMP_CONTAINS("addr.cfg:3: address 'ghost': no device 'fake9'", log.c_str());
  STRCMP_CONTAINS("addr.cfg:4: address 'nopkey': port fake0/1 has no pkey 0x8123", log.c_str());
}
