// access_update.cc: see access_update.h.
#include "test/bench/access_update.h"

#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/base/event_loop.h"
#include "common/base/log.h"
#include "common/base/worker_pool.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_delta_read.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/consumer.h"
#include "common/tree/db_version.h"
#include "distrib/prdb_service.h"
#include "test/bench/smdb_pair_cache.h"

#include "test/bench/tree_bench_util.h"

namespace ssa {
namespace bench {

// A member's next SMDB delta applied, with the epochs and the digest its
// header names (the pair's epochs may be more than one apart: OpenSM may
// sweep again before the second SMDB is taken); the apply checks them.
Status ApplySmdbDelta(tree::DbReplica<smdb::Smdb>* replica,
                      const std::shared_ptr<const std::string>& d) {
  smdb::DeltaHeader h;
  Status st = smdb::ReadDeltaHeader(smdb::Smdb::Schema(),
                                    reinterpret_cast<const uint8_t*>(d->data()), d->size(), &h);
  if (!st.ok()) return st;
  return replica->ApplyDelta(d, h.base_epoch, h.new_epoch, h.new_digest);
}

// The deltas of the link coming back (the first SMDB's records at the next
// epoch) and going down again (the second's at the epoch after).
Status MoreSmdbDeltas(const SmdbPair& pair, std::vector<std::shared_ptr<const std::string>>* out) {
  smdb::Smdb up = pair.before, down = pair.after;
  smdb::BumpEpochs(pair.after, &up);
  smdb::BumpEpochs(up, &down);
  auto d1 = std::make_shared<std::string>(), d2 = std::make_shared<std::string>();
  Status st = smdb::MakeDelta(pair.after, up, d1.get());
  if (st.ok()) st = smdb::MakeDelta(up, down, d2.get());
  if (!st.ok()) return st;
  *out = {d1, d2};
  return Status::Ok();
}

// See the file comment (access_update_100_ms). Three updates in a row: the
// link down, back up, down again; the first and the third are reported
// (a member builds each SMDB version and index in the memory of one it
// released before, so from the third on no new memory is touched: the
// steady state of a running access node).
Status MeasureAccessUpdate(const SmdbPair& pair, size_t consumers, AccessUpdate* out) {
  cpu_set_t saved, one;
  sched_getaffinity(0, sizeof(saved), &saved);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  // Threads made from here on (the pool) inherit the one CPU.
  sched_setaffinity(0, sizeof(one), &one);
  Status st = [&]() -> Status {
    auto ser1 = std::make_shared<std::string>(), delta = std::make_shared<std::string>();
    Status s = pair.before.Serialize(ser1.get());
    if (s.ok()) s = smdb::MakeDelta(pair.before, pair.after, delta.get());
    std::vector<std::shared_ptr<const std::string>> deltas;
    if (s.ok()) s = MoreSmdbDeltas(pair, &deltas);
    if (!s.ok()) return s;
    deltas.insert(deltas.begin(), delta);
    ssa::EventLoop loop;
    s = loop.Init();
    if (!s.ok()) return s;
    ssa::Logger log;
    log.set_level(ssa::LogLevel::kError);
    ssa::WorkerPool pool(&loop, 1);
    size_t published = 0;
    Status failed;
    distrib::PrdbService svc(
        &loop, &pool, &log, [&published](const distrib::PrdbVersion&) { ++published; },
        [&failed](uint64_t, const Status& why) { failed = why; });
    tree::DbReplica<smdb::Smdb> replica;
    replica.RecycleVersions();  // as a member does
    s = replica.ApplyFull(ser1, pair.before.global_epoch, tree::DigestOf(*ser1));
    if (!s.ok()) return s;
    std::unique_ptr<smdb::SmdbIndex> x;
    s = smdb::SmdbIndex::Build(pair.before, &x);
    if (!s.ok()) return s;
    std::vector<uint64_t> guids =
        SpreadConsumers(*x, pair.before.subnet.records[0].sm_port_guid, consumers);
    x.reset();
    for (uint64_t g : guids) svc.AddConsumer(g);
    svc.OnSmdb(replica.db());
    if (!loop.RunUntil([&] { return published >= guids.size() || !failed.ok(); },
                       std::chrono::seconds(600)) ||
        !failed.ok())
      return failed.ok() ? Status::Error(ETIMEDOUT, "first PRDBs") : failed;
    for (size_t k = 0; k < deltas.size(); ++k) {
      uint64_t c0 = svc.paths_computed(), f0 = svc.paths_if_full();
      const double c0_ms = ProcessCpuMs();
      auto t0 = Clock::now();
      const uint64_t from = replica.epoch();
      s = ApplySmdbDelta(&replica, deltas[k]);
      if (!s.ok()) return s.WithContext("SMDB delta");
      auto t1 = Clock::now();
      svc.OnSmdb(replica.db(), deltas[k], from);  // with the delta, as a member passes it
      if (!loop.RunUntil([&] { return published >= (k + 2) * guids.size() || !failed.ok(); },
                         std::chrono::seconds(600)) ||
          !failed.ok())
        return failed.ok() ? Status::Error(ETIMEDOUT, "updated PRDBs") : failed;
      auto t2 = Clock::now();
      AccessStep step;
      step.cpu_ms = ProcessCpuMs() - c0_ms;
      step.apply_ms = Between(t0, t1) * 1e3;
      step.prdbs_ms = Between(t1, t2) * 1e3;
      step.total_ms = Between(t0, t2) * 1e3;
      step.computed = svc.paths_computed() - c0;
      step.if_full = svc.paths_if_full() - f0;
      if (k == 0) out->first = step;
      out->steady = step;
    }
    out->consumers = guids.size();
    out->index_lft_catch_ups = svc.index_lft_catch_ups();
    out->index_lft_full_builds = svc.index_lft_full_builds();
    out->smdb_catch_ups = replica.caught_up();
    out->smdb_bytes_catch_ups = replica.bytes_caught_up();
    return Status::Ok();
  }();
  sched_setaffinity(0, sizeof(saved), &saved);
  return st;
}

}  // namespace bench
}  // namespace ssa
