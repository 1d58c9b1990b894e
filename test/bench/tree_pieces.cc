// tree_pieces.cc: see tree_pieces.h.
#include "test/bench/tree_pieces.h"

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

#include "common/smdb/lft_lineage.h"
#include "common/smdb/path_engine.h"
#include "common/smdb/route_diff.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_index.h"
#include "common/smdb/smdb_prdb.h"
#include "common/smdb/whole_prdb.h"
#include "common/tree/consumer.h"
#include "common/tree/db_version.h"
#include "common/tree/frame.h"
#include "distrib/prdb_service.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/shm_export.h"
#include "test/bench/smdb_pair_cache.h"

#include "test/bench/access_update.h"
#include "test/bench/tree_bench_util.h"

namespace ssa {
namespace bench {

namespace ssaprov = ssa::ssa_provider;

// The pieces: each a function of its own (callgrind --toggle-collect).
struct PieceInput {
  const SmdbPair* pair = nullptr;
  std::unique_ptr<smdb::SmdbIndex> x1, x2;
  std::vector<uint64_t> guids;
  smdb::RouteDiff diff;
  std::vector<distrib::PrdbVersion> full, updated;
  std::shared_ptr<const std::string> delta;
};

// The member's SMDB delta (tree::DbReplica keeping the serialization, as
// a distribution or access node holds it), from the first SMDB to the
// second; `replica` holds the first.
__attribute__((noinline)) Status PieceSmdbApply(tree::DbReplica<smdb::Smdb>* replica,
                                                const PieceInput& in, uint32_t digest) {
  return replica->ApplyDelta(in.delta, in.pair->before.global_epoch, in.pair->after.global_epoch,
                             digest);
}

// A member's next delta (after the first).
__attribute__((noinline)) Status PieceSmdbApplyNext(tree::DbReplica<smdb::Smdb>* replica,
                                                    const std::shared_ptr<const std::string>& d) {
  return ApplySmdbDelta(replica, d);
}

// The access node's index of the new SMDB.
__attribute__((noinline)) Status PieceIndex(const smdb::Smdb& db,
                                            std::unique_ptr<smdb::SmdbIndex>* out,
                                            smdb::SmdbIndex::LftBuffers* lft_buffers,
                                            const smdb::LftLineage* lineage = nullptr,
                                            uint64_t serial = 0) {
  return smdb::SmdbIndex::Build(db, out, lft_buffers, lineage, serial);
}

__attribute__((noinline)) uint64_t PieceEngine(const PieceInput& in) {
  smdb::PathEngine engine(in.x2.get());
  ibv_path_record rec;
  uint64_t ok = 0;
  for (size_t i = 0; i < 2 && i < in.guids.size(); ++i) {
    uint16_t slid = in.x2->port(in.x2->PortByGuid(in.guids[i])).base_lid;
    for (uint16_t dlid : in.x2->assigned_lids())
      ok += engine.Compute(slid, dlid, &rec) == smdb::PathStatus::kOk;
  }
  return ok;
}

__attribute__((noinline)) size_t PieceRouteDiff(PieceInput* in) {
  in->diff = smdb::DiffRoutes(in->pair->before, *in->x1, in->pair->after, *in->x2);
  return in->diff.dirty_count;
}

// The same diff as an access node makes it, with the SMDB delta: only the
// LFT blocks the delta names are read.
__attribute__((noinline)) size_t PieceDeltaRouteDiff(PieceInput* in) {
  in->diff = smdb::DiffRoutes(in->pair->before, *in->x1, in->pair->after, *in->x2, in->delta.get());
  return in->diff.dirty_count;
}

__attribute__((noinline)) Status PiecePrdbBuild(const PieceInput& in,
                                                std::vector<distrib::PrdbVersion>* out) {
  std::vector<distrib::PrdbVersion> none(2);
  for (size_t i = 0; i < none.size(); ++i) none[i].port_guid = in.guids[i];
  size_t computed = 0;
  return distrib::PrdbService::UpdateMany(0, in.pair->after, *in.x2, in.diff, none, out, &computed);
}

__attribute__((noinline)) Status PiecePrdbUpdate(PieceInput* in, size_t* computed) {
  return distrib::PrdbService::UpdateMany(in->pair->before.global_epoch, in->pair->after, *in->x2,
                                          in->diff, in->full, &in->updated, computed);
}

// Each consumer's swap as the ssa provider makes it: on ibacm's loop the
// PRDB delta applied (tree::Consumer), a resolve arriving meanwhile waits
// for it (`loop_ms`); then, on the provider's indexing thread
// (ViewBuilder), the view that answers resolves built (`view_ms`), while
// the loop answers from the last view.
__attribute__((noinline)) Status PieceDeltaApply(
    std::vector<std::unique_ptr<tree::DbReplica<smdb::Prdb>>>* replicas,
    const std::vector<distrib::PrdbVersion>& updated, std::vector<double>* loop_ms,
    std::vector<double>* view_ms, std::vector<std::shared_ptr<const ssaprov::PrdbView>>* views) {
  for (size_t i = 0; i < replicas->size(); ++i) {
    const distrib::PrdbVersion& v = updated[i];
    auto t0 = Clock::now();
    Status s = (*replicas)[i]->ApplyDelta(v.delta, v.delta_from, v.epoch, v.digest);
    if (!s.ok()) return s;
    loop_ms->push_back(Since(t0) * 1e3);
    auto t1 = Clock::now();
    auto view = std::make_shared<const ssaprov::PrdbView>((*replicas)[i]->db());
    view_ms->push_back(Since(t1) * 1e3);
    if (view->epoch() != v.epoch) return Status::Error(EILSEQ, "the view holds another epoch");
    views->push_back(std::move(view));
  }
  return Status::Ok();
}

// What the provider does after each swap, on its worker (it was ibacm's
// loop until the export moved there): the path tables for libibssa_path
// published (ShmExport), here one port's, a consumer's view at a time,
// into one object replaced each time as the provider's is.
__attribute__((noinline)) Status PieceShmExport(
    const std::vector<std::shared_ptr<const ssaprov::PrdbView>>& views,
    std::vector<double>* export_ms) {
  char name[64];
  snprintf(name, sizeof(name), "/tmp/bench_tree-%d.sock", static_cast<int>(getpid()));
  ssaprov::ShmExport out(name);
  for (const auto& view : views) {
    ssaprov::ExportPort port;
    port.gid = view->prdb()->paths.records.empty() ? std::array<uint8_t, 16>{}
                                                   : view->prdb()->paths.records[0].sgid;
    port.lid = view->base_lid();
    port.lmc = view->lmc();
    port.view = view;
    port.pkeys.push_back(0xFFFF);
    auto t0 = Clock::now();
    Status st = out.Publish({port}, nullptr, out.generation());
    export_ms->push_back(Since(t0) * 1e3);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

// A consumer's bring-up, piece by piece, as the access node and the
// consumer make it for each of `guids` (the route-suffix engine of the
// access node's bring-up): the PRDB written (computed straight into its
// serialization, WritePrdbImage) and its CRC taken; then, at the consumer, the full transfer
// verified and parsed, and the provider's view built. `ms` gets each step's total.
struct WholeMs {
  double write = 0, crc = 0, apply = 0, view = 0;
};
__attribute__((noinline)) Status PiecePrdbWhole(const smdb::PathEngine& engine,
                                                const std::vector<uint64_t>& guids, uint64_t epoch,
                                                WholeMs* ms) {
  for (uint64_t guid : guids) {
    auto t0 = Clock::now();
    auto bytes = std::make_shared<std::string>();
    size_t paths = 0;
    uint32_t digest = 0;
    Status st = smdb::WritePrdbImage(engine, guid, epoch, bytes.get(), &paths, &digest);
    if (!st.ok()) return st;
    auto t2 = Clock::now();
    // The consumer's check of what it received (the data channel frame's
    // CRC, which is the digest: DataClient).
    if (smdb::Crc32(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()) != digest)
      return Status::Error(EILSEQ, "whole PRDB: digest differs from its bytes' CRC");
    auto t3 = Clock::now();
    tree::DbReplica<smdb::Prdb> replica(nullptr, false);
    st = replica.ApplyFull(bytes, epoch, digest, true);
    if (!st.ok()) return st;
    auto t4 = Clock::now();
    auto view = std::make_shared<const ssaprov::PrdbView>(replica.db());
    auto t5 = Clock::now();
    ms->write += std::chrono::duration<double, std::milli>(t2 - t0).count();
    ms->crc += std::chrono::duration<double, std::milli>(t3 - t2).count();
    ms->apply += std::chrono::duration<double, std::milli>(t4 - t3).count();
    ms->view += std::chrono::duration<double, std::milli>(t5 - t4).count();
  }
  return Status::Ok();
}

__attribute__((noinline)) size_t PieceFrameCodec(const std::vector<distrib::PrdbVersion>& updated) {
  tree::FrameReader reader;
  size_t frames = 0;
  for (const distrib::PrdbVersion& v : updated) {
    std::string f = tree::EncodeFrame(tree::FrameType::kXferData, *v.delta);
    if (!reader.Feed(reinterpret_cast<const uint8_t*>(f.data()), f.size()).ok()) return 0;
    tree::Frame out;
    while (reader.Next(&out)) ++frames;
  }
  return frames;
}

int RunPieces(const SmdbPair& pair, int route_table_mb) {
  auto t = Clock::now();
  auto lap = [&t](const char* name, const std::string& what) {
    printf("%-18s %10.3f ms  %s\n", name, Since(t) * 1e3, what.c_str());
    t = Clock::now();
  };
  PieceInput in;
  in.pair = &pair;
  Status st = smdb::SmdbIndex::Build(pair.before, &in.x1);
  if (st.ok()) st = smdb::SmdbIndex::Build(pair.after, &in.x2);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  in.guids = SpreadConsumers(*in.x1, pair.before.subnet.records[0].sm_port_guid, 100);
  // The consumers' versions at the first SMDB: the update's input.
  std::vector<distrib::PrdbVersion> none(in.guids.size());
  for (size_t i = 0; i < none.size(); ++i) none[i].port_guid = in.guids[i];
  size_t computed = 0;
  st = distrib::PrdbService::UpdateMany(0, pair.before, *in.x1, in.diff, none, &in.full, &computed);
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<tree::DbReplica<smdb::Prdb>>> replicas;
  for (const distrib::PrdbVersion& v : in.full) {
    replicas.push_back(std::make_unique<tree::DbReplica<smdb::Prdb>>(nullptr, false));
    replicas.back()->ApplyFull(v.bytes(), v.epoch, v.digest);
  }
  auto ser1 = std::make_shared<std::string>(), ser2 = std::make_shared<std::string>();
  auto delta = std::make_shared<std::string>();
  st = pair.before.Serialize(ser1.get());
  if (st.ok()) st = pair.after.Serialize(ser2.get());
  if (st.ok()) st = smdb::MakeDelta(pair.before, pair.after, delta.get());
  tree::DbReplica<smdb::Smdb> smdb_replica;
  smdb_replica.RecycleVersions();  // as a member does
  if (st.ok()) st = smdb_replica.ApplyFull(ser1, pair.before.global_epoch, tree::DigestOf(*ser1));
  if (!st.ok()) {
    fprintf(stderr, "bench_tree: %s\n", st.ToString().c_str());
    return 1;
  }
  in.delta = delta;
  const uint32_t digest2 = tree::DigestOf(*ser2);
  printf(
      "pieces on the cached %zu-LID SMDB pair, %zu consumers (wall times: see callgrind.sh "
      "for instruction counts)\n",
      in.x2->assigned_lids().size(), in.guids.size());
  t = Clock::now();
  st = PieceSmdbApply(&smdb_replica, in, digest2);
  if (st.ok() && *smdb_replica.version().bytes != *ser2)
    st = Status::Error(EILSEQ, "the member's new SMDB bytes differ from the SMDB's");
  lap("smdb_apply_cold", std::to_string(delta->size()) +
                             "-byte SMDB delta applied by a member, its first: " + st.ToString());
  {
    // The link back up and down again: the member's second and third
    // deltas, the third built in the version the first released (the
    // steady state of a member that has updated before).
    std::vector<std::shared_ptr<const std::string>> more;
    if (st.ok()) st = MoreSmdbDeltas(pair, &more);
    const char* names[] = {"smdb_apply_2nd", "smdb_apply"};
    for (size_t i = 0; st.ok() && i < more.size(); ++i) {
      t = Clock::now();
      st = PieceSmdbApplyNext(&smdb_replica, more[i]);
      lap(names[i], "the member's " + std::string(i ? "third" : "second") + " delta (" +
                        std::to_string(more[i]->size()) + " bytes), " +
                        std::to_string(smdb_replica.recycled()) + " built in a recycled version, " +
                        std::to_string(smdb_replica.caught_up()) + " caught up (" +
                        std::to_string(smdb_replica.bytes_caught_up()) +
                        " serialized): " + st.ToString());
    }
  }
  {
    // As an access node builds them (PrdbService): the first index in new
    // memory, later ones with the LFT buffer of one released before.
    smdb::SmdbIndex::LftBuffers lft_buffers(1);
    std::unique_ptr<smdb::SmdbIndex> x;
    st = PieceIndex(pair.after, &x, &lft_buffers);
    lap("index_cold",
        std::to_string(x ? x->ports().size() : 0) + " ports indexed: " + st.ToString());
    x.reset();
    t = Clock::now();
    st = PieceIndex(pair.after, &x, &lft_buffers);
    lap("index", std::to_string(x ? x->ports().size() : 0) +
                     " ports indexed, the LFTs in a recycled buffer: " + st.ToString());
    // With the deltas, as PrdbService builds them (LftLineage): the index
    // of the link back up catches up the buffer of the version before.
    smdb::LftLineage lineage;
    lineage.Add(pair.before, nullptr);
    const uint64_t s_after = lineage.Add(pair.after, delta.get());
    smdb::Smdb up = pair.before;
    smdb::BumpEpochs(pair.after, &up);
    std::string d_up;
    if (st.ok()) st = smdb::MakeDelta(pair.after, up, &d_up);
    const uint64_t s_up = lineage.Add(up, &d_up);
    auto lft_note = [&x, &st] {
      return std::to_string(x ? x->ports().size() : 0) + " ports indexed, the LFTs " +
             (x && x->lft_caught_up()
                  ? "caught up (" + std::to_string(x->lft_blocks_rewritten()) + " blocks rewritten)"
                  : std::string("written whole")) +
             ": " + st.ToString();
    };
    x.reset();
    // The lineage's base (a call of the piece, so a lap of its own).
    t = Clock::now();
    if (st.ok()) st = PieceIndex(pair.after, &x, &lft_buffers, &lineage, s_after);
    lap("index_lineage", lft_note());
    x.reset();
    t = Clock::now();
    if (st.ok()) st = PieceIndex(up, &x, &lft_buffers, &lineage, s_up);
    lap("index_catch_up", lft_note());
  }
  lap("engine", std::to_string(PieceEngine(in)) + " paths from 2 sources");
  lap("route_diff_cold", std::to_string(PieceRouteDiff(&in)) + " dirty LIDs");
  lap("route_diff", std::to_string(PieceRouteDiff(&in)) + " dirty LIDs, again");
  lap("delta_route_diff",
      std::to_string(PieceDeltaRouteDiff(&in)) + " dirty LIDs, the delta's LFT blocks only");
  std::vector<distrib::PrdbVersion> built;
  st = PiecePrdbBuild(in, &built);
  lap("prdb_build", "2 PRDBs built whole: " + st.ToString());
  st = PiecePrdbUpdate(&in, &computed);
  lap("prdb_update_cold",
      std::to_string(in.updated.size()) + " consumers (first touch of the new buffers)");
  in.updated.clear();
  st = PiecePrdbUpdate(&in, &computed);
  lap("prdb_update", std::to_string(in.updated.size()) + " consumers, " + std::to_string(computed) +
                         " paths recomputed: " + st.ToString());
  if (in.updated.size() != replicas.size()) return 1;
  std::vector<double> swap_ms, view_ms;
  std::vector<std::shared_ptr<const ssaprov::PrdbView>> views;
  st = PieceDeltaApply(&replicas, in.updated, &swap_ms, &view_ms, &views);
  lap("delta_apply", std::to_string(replicas.size()) +
                         " consumer deltas, each with the provider's view built: " + st.ToString());
  if (!swap_ms.empty()) {
    auto line = [](const char* name, std::vector<double>* ms, const char* what) {
      std::sort(ms->begin(), ms->end());
      printf("%-18s %10.3f ms  p50 %.3f ms over %zu consumers (%s)\n", name, ms->back(),
             (*ms)[ms->size() / 2], ms->size(), what);
    };
    line("consumer_swap_max", &swap_ms,
         "ibacm's loop busy per swap, the delta applied: the longest a resolve waits");
    line("consumer_view_max", &view_ms, "the new view built off the loop");
    std::vector<double> export_ms;
    t = Clock::now();
    st = PieceShmExport(views, &export_ms);
    lap("shm_export",
        std::to_string(export_ms.size()) + " path tables published: " + st.ToString());
    if (st.ok())
      line("shm_export_max", &export_ms, "the path tables published per swap, off the loop");
    else
      printf("shm_export: %s\n", st.ToString().c_str());
  }
  {
    // The bring-up's whole PRDBs (the same consumers), twice: the first
    // pass touches new memory, the second shows the work alone.
    smdb::PathEngineOptions o = smdb::PathEngineOptions::ForPrdb();
    o.route_suffix_max_entries = static_cast<size_t>(route_table_mb) << 19;  // 2 B each
    t = Clock::now();
    smdb::PathEngine engine(in.x2.get(), o);
    lap("route_suffixes", std::string("the route-suffix table ") +
                              (engine.has_route_suffixes() ? "built" : "declined"));
    for (const char* name : {"prdb_whole_cold", "prdb_whole"}) {
      WholeMs ms;
      t = Clock::now();
      Status s = PiecePrdbWhole(engine, in.guids, pair.after.global_epoch, &ms);
      const double n = static_cast<double>(in.guids.size());
      char what[256];
      snprintf(what, sizeof(what),
               "%zu consumers' bring-up, per consumer: written %.3f, CRC %.3f, "
               "applied %.3f, view %.3f ms: %s",
               in.guids.size(), ms.write / n, ms.crc / n, ms.apply / n, ms.view / n,
               s.ToString().c_str());
      lap(name, what);
    }
  }
  lap("frame_codec", std::to_string(PieceFrameCodec(in.updated)) + " delta frames");
  return st.ok() ? 0 : 1;
}

// ---------------------------------------------------------------------------

}  // namespace bench
}  // namespace ssa
