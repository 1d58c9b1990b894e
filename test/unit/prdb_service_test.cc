// prdb_service_test.cc: the access role's PRDB service: a consumer's PRDB
// equals BuildPrdb on the same SMDB, whether computed whole or patched
// from the previous epoch after random changes; two services publish
// byte-identical PRDBs for the same SMDB.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/whole_prdb.h"
#include "distrib/prdb_service.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"

#include "CppUTest/TestHarness.h"

using namespace path_engine_test;
using ssa::distrib::PrdbService;
using ssa::distrib::PrdbVersion;

TEST_GROUP(PrdbService) {
  ssa::EventLoop loop;
  ssa::Logger log;
  std::unique_ptr<ssa::WorkerPool> pool;
  std::vector<PrdbVersion> published;

  void setup() override {
    CHECK_OK(loop.Init());
    log.set_level(ssa::LogLevel::kError);
    pool = std::make_unique<ssa::WorkerPool>(&loop, 2);
  }
  void teardown() override { pool.reset(); }

  std::unique_ptr<PrdbService> Make() {
    return std::make_unique<PrdbService>(
        &loop, pool.get(), &log, [this](const PrdbVersion& v) { published.push_back(v); },
        [](uint64_t, const ssa::Status& st) { FAIL(st.ToString().c_str()); });
  }

  // Runs the loop until `n` versions in total were published.
  void WaitPublished(size_t n) {
    CHECK(loop.RunUntil([&] { return published.size() >= n; }, std::chrono::seconds(10)));
  }

  // A service with every port of the two-switch fabric as a consumer,
  // holding epoch 1's PRDBs; *db is that SMDB.
  std::unique_ptr<PrdbService> StartOnTwoSwitches(std::shared_ptr<Smdb> * db,
                                                  std::vector<uint64_t> * consumers) {
    std::unique_ptr<PrdbService> svc = Make();
    *db = std::make_shared<Smdb>(TwoSwitchFabric());
    (*db)->global_epoch = 1;
    *consumers = AddAllConsumers(**db, svc.get());
    svc->OnSmdb(*db);
    WaitPublished(consumers->size());
    return svc;
  }

  // Every consumer's PRDB in `svc` equals a whole build from `index`.
  static void CheckEqualsWholeBuilds(const PrdbService& svc, const SmdbIndex& index, uint64_t epoch,
                                     const std::vector<uint64_t>& consumers, int round) {
    PathEngine engine(&index);
    for (uint64_t g : consumers) {
      Prdb full;
      CHECK_OK(BuildPrdb(engine, g, epoch, &full));
      std::shared_ptr<const Prdb> got = svc.Current(g);
      CHECK(got != nullptr);
      CHECK_TEXT(full == *got, ("round " + std::to_string(round)).c_str());
    }
  }

  // Every port with a GUID and a LID (in GUID order), each made a
  // consumer of `svc`.
  static std::vector<uint64_t> AddAllConsumers(const Smdb& db, PrdbService* svc) {
    std::vector<uint64_t> consumers;
    for (const auto& p : db.ports.records)
      if (p.port_guid && p.base_lid) consumers.push_back(p.port_guid);
    std::sort(consumers.begin(), consumers.end());
    for (uint64_t g : consumers) svc->AddConsumer(g);
    return consumers;
  }
};

TEST(PrdbService, IncrementalEqualsFullAfterRandomChanges) {
  std::shared_ptr<Smdb> db;
  std::vector<uint64_t> consumers;
  std::unique_ptr<PrdbService> svc = StartOnTwoSwitches(&db, &consumers);

  std::mt19937 rng(7);
  uint64_t computed = 0, total = 0;
  size_t in_parts = 0;  // versions published as images with overrides
  for (int round = 0; round < 30; ++round) {
    auto next = std::make_shared<Smdb>(*db);
    // One LFT entry moved: a typical reroute.
    auto& b = next->lft_blocks.records[rng() % next->lft_blocks.records.size()];
    b.ports[rng() % kLftBlockSize] = static_cast<uint8_t>(rng() % 9);
    BumpEpochs(*db, next.get());
    if (next->global_epoch == db->global_epoch) continue;
    std::unique_ptr<SmdbIndex> index;
    if (!SmdbIndex::Build(*next, &index).ok()) continue;
    size_t before = published.size();
    std::map<uint64_t, std::shared_ptr<const Prdb>> previous;
    for (uint64_t g : consumers) previous[g] = svc->Current(g);
    uint64_t computed_before = svc->paths_computed();
    uint64_t if_full_before = svc->paths_if_full();
    // Every other round with the delta that made it, as an access node
    // has it: the route diff then reads only the LFT blocks it names.
    std::shared_ptr<std::string> delta;
    if (round % 2) {
      delta = std::make_shared<std::string>();
      CHECK_OK(MakeDelta(*db, *next, delta.get()));
    }
    svc->OnSmdb(next, delta, db->global_epoch);
    WaitPublished(before + consumers.size());
    computed += svc->paths_computed() - computed_before;
    uint64_t if_full = svc->paths_if_full() - if_full_before;
    CheckEqualsWholeBuilds(*svc, *index, next->global_epoch, consumers, round);
    for (uint64_t g : consumers) {
      size_t all = index->assigned_lids().size() << index->port(index->PortByGuid(g)).lmc;
      total += all;
      if_full -= all;
    }
    CHECK_EQUAL(0u, if_full);  // paths_if_full counts what a full build would compute
    // What was published: the digest of the bytes, and the delta MakeDelta
    // makes from the previous version (patched or built whole alike).
    for (size_t i = before; i < published.size(); ++i) {
      const PrdbVersion& v = published[i];
      // Made whole here without keeping it (a kept one would be the next
      // patch's base: the chains of overrides would go untested).
      std::string whole;
      v.image->Materialize(&whole);
      CHECK_EQUAL(Crc32(reinterpret_cast<const uint8_t*>(whole.data()), whole.size()), v.digest);
      in_parts += !v.image->whole();
      // Some rounds a child takes the version whole (the data server's
      // full transfer): the image keeps what it made, and the next patch
      // starts from that (PrdbService::Compute).
      if (round % 5 == 3) CHECK(*v.bytes() == whole);
      CHECK(v.delta != nullptr);
      std::string want;
      CHECK_OK(MakeDelta(*previous[v.port_guid], *svc->Current(v.port_guid), &want));
      CHECK_TEXT(want == *v.delta, ("round " + std::to_string(round)).c_str());
    }
    db = next;
  }
  // Recomputing only what can change is most of the point.
  CHECK(computed < total);
  CHECK(in_parts > 0);
}

// With the delta that made each SMDB, the index of each version catches
// up the LFT buffer of the version two before (SmdbIndex::Build): the
// PRDBs are still those of a whole build, and the counters show it.
TEST(PrdbService, IndexLftsCaughtUpFromDeltasGiveTheSamePrdbs) {
  std::shared_ptr<Smdb> db;
  std::vector<uint64_t> consumers;
  std::unique_ptr<PrdbService> svc = StartOnTwoSwitches(&db, &consumers);
  std::mt19937 rng(17);
  uint64_t versions = 1;
  for (int round = 0; round < 16; ++round) {
    auto next = std::make_shared<Smdb>(*db);
    auto& b = next->lft_blocks.records[rng() % next->lft_blocks.records.size()];
    b.ports[1 + rng() % (kLftBlockSize - 1)] = static_cast<uint8_t>(rng() % 9);
    BumpEpochs(*db, next.get());
    if (next->global_epoch == db->global_epoch) continue;
    auto delta = std::make_shared<std::string>();
    CHECK_OK(MakeDelta(*db, *next, delta.get()));
    size_t before = published.size();
    svc->OnSmdb(next, delta, db->global_epoch);
    WaitPublished(before + consumers.size());
    ++versions;
    std::unique_ptr<SmdbIndex> index;
    CHECK_OK(SmdbIndex::Build(*next, &index));
    CheckEqualsWholeBuilds(*svc, *index, next->global_epoch, consumers, round);
    db = next;
  }
  CHECK_EQUAL(versions, svc->index_lft_catch_ups() + svc->index_lft_full_builds());
  // The first three have nothing to catch up from (none; the first SMDB's
  // buffer, whose version came whole); those after do, unless the buffer
  // two versions back was not released yet (the previous build's job may
  // still hold its engine when the next build starts): then whole.
  CHECK(svc->index_lft_full_builds() >= 3);
  CHECK(svc->index_lft_catch_ups() > 0);
}

TEST(PrdbService, TwoServicesPublishIdenticalBytes) {
  auto db = std::make_shared<Smdb>(TwoSwitchFabric());
  db->global_epoch = 5;
  uint64_t guid = 0;
  for (const auto& p : db->ports.records)
    if (p.port_guid && p.base_lid) guid = p.port_guid;
  std::unique_ptr<PrdbService> a = Make(), b = Make();
  a->AddConsumer(guid);
  a->OnSmdb(db);
  b->OnSmdb(db);
  WaitPublished(1);
  b->AddConsumer(guid);
  WaitPublished(2);
  CHECK(*published[0].bytes() == *published[1].bytes());
  CHECK_EQUAL(published[0].digest, published[1].digest);
  CHECK_EQUAL(5u, published[0].epoch);
}

// Jobs in flight are bounded (each finished one holds a new serialization
// until the loop publishes it); the other consumers wait their turn, and
// one removed while waiting is skipped, or served once if it came back.
TEST(PrdbService, JobsInFlightAreBoundedAndWaitingConsumersServedOnce) {
  std::unique_ptr<PrdbService> svc = Make();
  auto db = std::make_shared<Smdb>(TwoSwitchFabric());
  db->global_epoch = 3;
  std::vector<uint64_t> consumers = AddAllConsumers(*db, svc.get());
  CHECK(consumers.size() > svc->max_jobs() + 2);
  svc->OnSmdb(db);
  // The engine comes back; the first max_jobs() consumers get a job and
  // the others wait (the map's order: the largest GUIDs last).
  CHECK(loop.RunUntil([&] { return svc->jobs_waiting() > 0; }, std::chrono::seconds(10)));
  uint64_t gone = consumers.back(), back = consumers[consumers.size() - 2];
  svc->RemoveConsumer(gone);
  svc->RemoveConsumer(back);
  svc->AddConsumer(back);
  WaitPublished(consumers.size() - 1);
  CHECK(loop.RunUntil([&] { return svc->jobs_in_flight() == 0; }, std::chrono::seconds(10)));
  // Nothing more comes: a stale queue entry would publish `back` twice.
  loop.RunUntil([] { return false; }, std::chrono::milliseconds(100));
  CHECK_EQUAL(consumers.size() - 1, published.size());
  CHECK_EQUAL(0u, svc->jobs_waiting());
  CHECK_EQUAL(svc->max_jobs(), svc->jobs_in_flight_peak());
  CHECK_EQUAL(PrdbService::kJobsPerThread * pool->thread_count(), svc->max_jobs());
  std::map<uint64_t, int> per_guid;
  for (const PrdbVersion& v : published) ++per_guid[v.port_guid];
  CHECK_EQUAL(0, per_guid.count(gone));
  for (uint64_t g : consumers)
    if (g != gone) CHECK_EQUAL(1, per_guid[g]);
  CHECK(svc->Current(back) != nullptr);
}
