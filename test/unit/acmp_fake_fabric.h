// acmp_fake_fabric.h: test fixture for acmp_provider_test.cc: the built
// acmp provider (providers/acmp/.libs/acmp.so, loaded once with dlopen)
// run as several "nodes" in one process, each its own provider instance
// with a fake core (test/support/fake_core.h) whose timers and fds are on
// one shared EventLoop, talking through the simulated datagram transport
// in a temporary directory. A fake SA answers what the provider sends
// through sa_send, on the loop (never inside sa_send), as OpenSM does:
// PortInfoRecord (4x SDR, MTU 2048, SubnetTimeOut 8), MCMemberRecord joins
// (one MLID per MGID, the requested MTU/rate "exactly", packet lifetime 0)
// and leaves, PathRecords between the nodes (MTU 2048, 10 Gb/s, lifetime
// 18; ERR_NO_RECORDS for unknown ones).
//
// Each test owns one fixture; one thread.
#ifndef IBACM_SSA_TEST_UNIT_ACMP_FAKE_FABRIC_H
#define IBACM_SSA_TEST_UNIT_ACMP_FAKE_FABRIC_H

#include <arpa/inet.h>
#include <dlfcn.h>
#include <infiniband/acm.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/event_loop.h"
#include "test/support/fake_core.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

namespace acmp_test {

inline const std::string kAcmpProvider = TEST_PROVIDER_DIR "/../../providers/acmp/.libs/acmp.so";

class FakeFabric;

// One provider instance and its core. The core records as FakeCore does
// (answers, logs, counters); its SA is the fabric's, its timers and fds
// are the fabric's loop's.
struct FakeNode : ssa::test::FakeCore {
  FakeFabric* fabric = nullptr;
  std::string name;  // "nodeN"; also its address, with 10.0.0.N and fd00::N
  int number = 0;
  uint16_t lid = 0;
  uint64_t guid = 0;
  std::string options_file;  // its [acmp] section, also FakeCore::options
  int aliases = 0;           // more names ("nodeN-aliasK") on the endpoint, set before Start
  // Provider contexts.
  void* prov_ctx = nullptr;
  void* dev_ctx = nullptr;
  void* port_ctx = nullptr;
  void* ep_ctx = nullptr;
  std::vector<void*> addr_ctx;
  ssa_port_info port{};
  uint16_t pkeys[1] = {0xffff};
  // What the provider did, besides FakeCore's record.
  uint64_t (&global_counters)[ACM_MAX_COUNTER] = counters;
  std::vector<std::string> warnings;  // log lines at warn or worse, config warnings
  std::map<uint16_t, int> sa_sent;    // by attribute ID
  uint64_t next_req = 1;

  bool running() const { return prov_ctx != nullptr; }
  std::string AllLogs() const;
  uint8_t gid[16] = {};

 protected:
  void Log(int level, const std::string& line) override;
  void ConfigWarn(const std::string& text) override;
  int SaSend(ssa_core_port_t* port, const uint8_t* mad, size_t len, ssa_sa_done_fn done,
             void* arg) override;
  uint64_t TimerAdd(uint32_t delay_ms, ssa_timer_fn fn, void* arg) override;
  int TimerCancel(uint64_t id) override;
  int FdWatch(int fd, uint32_t events, ssa_fd_fn fn, void* arg) override;
  int FdUnwatch(int fd) override;
};

class FakeFabric {
 public:
  FakeFabric();
  ~FakeFabric();

  // Adds "node<n>" with LID n + 1 (not started).
  FakeNode* AddNode(int n, const std::vector<std::pair<std::string, std::string>>& extra = {});
  // init .. add_address, then (with `wait_ready`) runs the loop until the
  // endpoint's min group is joined (the log says "ready").
  void Start(FakeNode* node, bool wait_ready = true);
  // remove_address .. fini, cancelling its SA operations first, as the
  // core does.
  void Stop(FakeNode* node);

  uint64_t Resolve(FakeNode* from, const ssa_address& dst, uint32_t flags = 0);
  uint64_t QuerySa(FakeNode* from, const ibv_path_record& path);
  // Runs the loop until `from` answered `id` (or `ms` pass).
  const FakeNode::Answer& Wait(FakeNode* from, uint64_t id, int ms = 5000);
  // Resolve + Wait.
  const FakeNode::Answer& ResolveNow(FakeNode* from, const ssa_address& dst, uint32_t flags = 0);
  uint64_t Counter(FakeNode* node, int counter);
  bool RunUntil(const std::function<bool()>& done, int ms);

  static ssa_address Name(const std::string& n);
  static ssa_address Ip(const std::string& text);
  static ssa_address Ip6(const std::string& text);
  static ssa_address Lid(uint16_t lid);

  const ssa_provider* prov() const { return prov_; }
  ssa::EventLoop* loop() { return &loop_; }
  const std::string& dir() const { return dir_.path(); }
  FakeNode* NodeByLid(uint16_t lid);
  FakeNode* NodeByGid(const uint8_t* gid);

  // The fake SA.
  int join_failures_left = 0;  // answer this many joins with ERR_REQ_INVALID
  int path_queries = 0;
  void SaSend(FakeNode* node, const uint8_t* mad, size_t len, ssa_sa_done_fn done, void* arg);

 private:
  struct Pending {
    FakeNode* node;
    ssa_sa_done_fn done;
    void* arg;
    std::vector<uint8_t> reply;
    bool finished = false;
  };
  void Answer(uint8_t* mad);

  void* handle_ = nullptr;
  const ssa_provider* prov_ = nullptr;
  ssa::EventLoop loop_;
  ssa::test::TempDir dir_{"acmp-test-"};
  std::vector<std::unique_ptr<FakeNode>> nodes_;
  std::vector<std::shared_ptr<Pending>> pending_;
  std::map<std::string, uint16_t> mlids_;
};

}  // namespace acmp_test

#endif
