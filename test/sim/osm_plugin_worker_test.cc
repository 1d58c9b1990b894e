// The OpenSM plugin's worker (opensm_plugin/extract_worker.h) driven with a
// fake extraction instead of OpenSM: which events extract and when, that
// requests arriving during an extraction coalesce into one and never wait
// for it, that buffers grow after an overflow, and that epochs continue
// from the dump directory after a restart, even when `latest` is missing,
// corrupt or stale.
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/base/file_io.h"
#include "common/smdb/smdb_delta.h"
#include "opensm_plugin/extract_worker.h"
#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/version_store.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/sim_test_util.h"
#include "test/support/check_ok.h"
#include "test/support/poll.h"
#include "test/support/temp_dir.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace std::chrono_literals;
using ssa::opensm_plugin::ExtractWorker;
using ssa::opensm_plugin::PluginLog;
using ssa::opensm_plugin::PluginOptions;
using ssa::smdb::Smdb;

namespace {

// Stands in for ssa_osm_extract: a subnet of `hcas` one-port CAs, copied
// with the same fill-up-to-capacity-and-count rule. Can be held inside the
// "lock" until released, to look at what happens meanwhile.
class FakeSubnet {
 public:
  std::atomic<int> hcas{4};
  std::atomic<int> calls{0};

  int Extract(ssa_raw_buffers* b, ssa_extract_times* t) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++entered_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return !hold_; });
    }
    ++calls;
    *t = ssa_extract_times{0.01, 0.02};
    std::memset(&b->subnet, 0, sizeof(b->subnet));
    b->subnet.subnet_prefix = 0xfe80000000000000ull;
    b->subnet.sm_state = 3;
    std::strcpy(b->subnet.routing_engine, "minhop");
    b->nodes_len = b->ports_len = b->guids_len = b->switches_len = 0;
    b->lft_bytes_len = b->pkey_blocks_len = b->partitions_len = b->prefix_routes_len = 0;
    b->truncated = 0;
    int n = hcas;
    for (int i = 0; i < n; ++i) {
      uint64_t guid = 0x100000 + 2 * i;
      if (b->nodes_len < b->nodes_cap) {
        ssa_raw_node& r = b->nodes[b->nodes_len];
        std::memset(&r, 0, sizeof(r));
        r.node_guid = guid;
        r.node_type = 1;
        r.num_ports = 1;
      }
      ++b->nodes_len;
      if (b->ports_len < b->ports_cap) {
        ssa_raw_port& p = b->ports[b->ports_len];
        std::memset(&p, 0, sizeof(p));
        p.node_guid = guid;
        p.port_guid = guid + 1;
        p.port_num = 1;
        p.node_type = 1;
        p.base_lid = static_cast<uint16_t>(i + 1);
        p.port_state = 4;
      }
      ++b->ports_len;
    }
    return (b->nodes_len > b->nodes_cap || b->ports_len > b->ports_cap) ? 1 : 0;
  }
  void Hold() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = true;
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = false;
    cv_.notify_all();
  }
  // Waits until the worker is inside Extract for the n-th time.
  bool WaitEntered(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, 10s, [&] { return entered_ >= n; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  int entered_ = 0;
};

}  // namespace

TEST_GROUP(OsmPluginWorker) {
  ssa::test::TempDir dir;
  FakeSubnet subnet;
  PluginOptions options;
  std::unique_ptr<ExtractWorker> worker;

  void setup() override {
    CHECK_FALSE(dir.path().empty());
    options.dump_dir = dir.path() + "/dump";
    options.keep = 0;
    options.log_file = dir.path() + "/plugin.log";
    options.log_level = ssa::LogLevel::kDebug;
    options.settle_ms = 20;
  }
  void teardown() override {
    subnet.Release();
    worker.reset();
    if (UtestShell::getCurrent()->hasFailed()) dir.keep();
  }
  void Create() {
    worker.reset();
    auto log = std::make_unique<PluginLog>(nullptr);
    CHECK_OK(ExtractWorker::Create(
        options, std::move(log),
        [this](ssa_raw_buffers* b, ssa_extract_times* t) { return subnet.Extract(b, t); }, nullptr,
        &worker));
  }
  Smdb WaitFor(const std::function<bool(const Smdb&)>& pred) {
    Smdb db;
    CHECK_OK(ssa::test::WaitForVersion(options.dump_dir, pred, 10s, &db));
    return db;
  }
  void WaitLog(const std::string& needle) {
    CHECK_OK(ssa::test::WaitForLogLine(options.log_file, needle, 10s));
  }
  // Versions 1..count, version n from a subnet of n CAs.
  void WriteVersions(int count) {
    for (int n = 1; n <= count; ++n) {
      subnet.hcas = n;
      worker->OnEvent(SSA_EV_SUBNET_UP);
      WaitFor([n](const Smdb& d) { return d.global_epoch == static_cast<uint64_t>(n); });
    }
  }
  // The versions on disk once the store has pruned to options.keep (it
  // prunes right after it points `latest` at the new version).
  std::vector<uint64_t> KeptVersions() {
    std::vector<uint64_t> kept;
    ssa::test::PollUntil(10s, [&] {
      kept = ssa::test::ListVersions(options.dump_dir);
      return kept.size() <= static_cast<size_t>(options.keep);
    });
    return kept;
  }
  // The dump directory's delta file `name`, applied to `from`, gives `to`.
  void CheckDeltaFile(const std::string& name, const Smdb& from, const Smdb& to) {
    Smdb applied;
    std::string delta = ssa::test::ReadFileText(options.dump_dir + "/" + name);
    CHECK_OK(ssa::smdb::ApplyDelta(from, reinterpret_cast<const uint8_t*>(delta.data()),
                                   delta.size(), &applied));
    CHECK_TRUE(applied == to);
  }
};

TEST(OsmPluginWorker, SubnetUpMakesAVersionAndAnUnchangedSubnetNone) {
  Create();
  worker->OnEvent(SSA_EV_HEAVY_SWEEP_START);
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb db = WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  CHECK_EQUAL(4u, db.nodes.records.size());
  // The first walk found empty buffers: they grew and the walk was redone.
  WaitLog("2 walks); build");
  WaitLog("after SUBNET_UP (heavy sweep ");
  worker->OnEvent(SSA_EV_SUBNET_UP);
  WaitLog("no change since epoch 1; lock held 0.020 ms (waited 0.010 ms, 1 walk)");
  CHECK_EQUAL(3, subnet.calls.load());  // 2 walks, then 1
  CHECK_EQUAL(1u, ssa::test::ListVersions(options.dump_dir).size());
}

TEST(OsmPluginWorker, LftChangesOutsideASweepSettleIntoOneExtraction) {
  options.settle_ms = 300;  // far longer than sending 50 events takes
  Create();
  for (int i = 0; i < 50; ++i) worker->OnEvent(SSA_EV_LFT_CHANGE);
  WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  WaitLog("after LFT change");
  // More changes after it extract again, once.
  subnet.hcas = 5;
  for (int i = 0; i < 50; ++i) worker->OnEvent(SSA_EV_LFT_CHANGE);
  WaitFor([](const Smdb& d) { return d.global_epoch == 2; });
  CHECK_EQUAL(2, subnet.calls.load() - 1);  // 3 calls: the first overflowed
}

TEST(OsmPluginWorker, LftChangesInsideAHeavySweepWaitForSubnetUp) {
  options.settle_ms = 0;
  Create();
  worker->OnEvent(SSA_EV_HEAVY_SWEEP_START);
  for (int i = 0; i < 20; ++i) worker->OnEvent(SSA_EV_LFT_CHANGE);
  worker->OnEvent(SSA_EV_UCAST_ROUTING_DONE);  // part of the sweep too
  worker->OnEvent(SSA_EV_SUBNET_UP);
  WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  std::string log = ssa::test::ReadFileText(options.log_file);
  CHECK_TEXT(log.find("after LFT change") == std::string::npos, log.c_str());
  CHECK_TEXT(log.find("after reroute") == std::string::npos, log.c_str());
  CHECK_TEXT(log.find("epoch 1: tables changed: subnet nodes ports; ") != std::string::npos,
             log.c_str());
  // Routing done outside a sweep is a reroute and extracts at once.
  subnet.hcas = 3;
  worker->OnEvent(SSA_EV_UCAST_ROUTING_DONE);
  WaitFor([](const Smdb& d) { return d.global_epoch == 2; });
  WaitLog("after reroute");
}

TEST(OsmPluginWorker, EventsDuringAnExtractionCoalesceAndNeverWait) {
  Create();
  worker->OnEvent(SSA_EV_SUBNET_UP);
  WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  int calls = subnet.calls;
  subnet.Hold();
  subnet.hcas = 6;
  worker->OnEvent(SSA_EV_SUBNET_UP);
  CHECK_TRUE(subnet.WaitEntered(calls + 1));  // the worker is now "under the lock"
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) {
    worker->OnEvent(SSA_EV_HEAVY_SWEEP_START);
    worker->OnEvent(SSA_EV_LFT_CHANGE);
    worker->OnEvent(SSA_EV_SUBNET_UP);
  }
  auto spent = std::chrono::steady_clock::now() - t0;
  // 3000 reports while the worker is stuck: they only record the request.
  CHECK_TRUE(spent < 1s);
  subnet.Release();
  WaitFor([](const Smdb& d) { return d.global_epoch == 2; });
  WaitLog("no change since epoch 2");
  CHECK_EQUAL(calls + 2, subnet.calls.load());  // the held one plus one for all the rest
}

TEST(OsmPluginWorker, EpochsContinueAfterARestartWithADeltaFromTheLastVersion) {
  Create();
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb first = WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  worker.reset();
  subnet.hcas = 7;
  Create();
  WaitLog("continuing from epoch 1");
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb second = WaitFor([](const Smdb& d) { return d.global_epoch == 2; });
  CHECK_EQUAL(7u, second.nodes.records.size());
  CHECK_EQUAL(1u, second.subnet.epoch);  // unchanged since epoch 1
  CHECK_EQUAL(2u, second.nodes.epoch);
  CheckDeltaFile("delta.1-2", first, second);
}

TEST(OsmPluginWorker, KeepPrunesOldVersionsAndTheirDeltas) {
  options.keep = 2;
  Create();
  WriteVersions(4);
  std::vector<uint64_t> kept = KeptVersions();
  CHECK_EQUAL(2u, kept.size());
  CHECK_EQUAL(3u, kept[0]);
  CHECK_EQUAL(4u, kept[1]);
  CHECK_TRUE(ssa::test::ReadFileText(options.dump_dir + "/delta.2-3").size() > 0);
  CHECK_TRUE(ssa::test::ReadFileText(options.dump_dir + "/delta.1-2").empty());
}

// The next epoch follows the highest version on disk whatever `latest`
// says: restarting at 1 beside newer files made keep= prune the version
// just written and left `latest` dangling.
TEST(OsmPluginWorker, ACorruptLatestVersionDoesNotRestartEpochs) {
  options.keep = 2;
  Create();
  WriteVersions(3);
  worker.reset();
  CHECK_OK(ssa::WriteFileAtomically(options.dump_dir + "/smdb.3", "garbage"));
  subnet.hcas = 5;
  Create();
  WaitLog("the next version is epoch 4, written whole");
  worker->OnEvent(SSA_EV_SUBNET_UP);
  WaitLog("epoch 4: tables changed");  // until then `latest` is the garbage
  Smdb db = WaitFor([](const Smdb& d) { return d.global_epoch == 4; });
  CHECK_EQUAL(5u, db.nodes.records.size());
  std::vector<uint64_t> kept = KeptVersions();
  CHECK_EQUAL(2u, kept.size());
  CHECK_EQUAL(4u, kept[1]);
  // No base on disk, so no delta to it.
  CHECK_TRUE(ssa::test::ReadFileText(options.dump_dir + "/delta.3-4").empty());
}

TEST(OsmPluginWorker, AMissingLatestContinuesFromTheHighestVersionOnDisk) {
  Create();
  worker->OnEvent(SSA_EV_SUBNET_UP);
  WaitFor([](const Smdb& d) { return d.global_epoch == 1; });
  subnet.hcas = 2;
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb second = WaitFor([](const Smdb& d) { return d.global_epoch == 2; });
  worker.reset();
  CHECK_EQUAL(0, unlink((options.dump_dir + "/latest").c_str()));
  subnet.hcas = 3;
  Create();
  WaitLog("continuing from epoch 2 (" + options.dump_dir + "/smdb.2)");
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb third = WaitFor([](const Smdb& d) { return d.global_epoch == 3; });
  CheckDeltaFile("delta.2-3", second, third);
}

TEST(OsmPluginWorker, AStaleLatestDoesNotHideANewerVersion) {
  Create();
  WriteVersions(2);
  worker.reset();
  std::string latest = options.dump_dir + "/latest";
  CHECK_EQUAL(0, unlink(latest.c_str()));
  CHECK_EQUAL(0, symlink("smdb.1", latest.c_str()));
  subnet.hcas = 3;
  Create();
  worker->OnEvent(SSA_EV_SUBNET_UP);
  Smdb db = WaitFor([](const Smdb& d) { return d.global_epoch == 3; });
  CHECK_EQUAL(3u, db.nodes.records.size());
}

// Defence in depth: even a version older than the kept ones survives
// pruning while `latest` points to it.
TEST(OsmPluginWorker, PruningNeverRemovesWhatLatestPointsTo) {
  ssa::opensm_plugin::VersionStore store;
  CHECK_OK(ssa::opensm_plugin::VersionStore::Open(options.dump_dir, 2, &store));
  for (uint64_t e : {10, 11, 12}) CHECK_OK(store.Write(e, "v", nullptr, 0, nullptr));
  CHECK_OK(store.Write(1, "v", nullptr, 0, nullptr));
  std::vector<uint64_t> kept = ssa::test::ListVersions(options.dump_dir);
  CHECK_EQUAL(3u, kept.size());
  CHECK_EQUAL(1u, kept[0]);
  CHECK_EQUAL(12u, kept[2]);
  uint64_t target = 0;
  CHECK_TRUE(store.LatestTarget(&target));
  CHECK_EQUAL(1u, target);
  CHECK_EQUAL("v", ssa::test::ReadFileText(options.dump_dir + "/latest"));
}
