// route_diff_test.cc: DiffRoutes (common/smdb/route_diff.h) never misses a
// path that changed. Random changes to the path engine's test fabric (LFT
// entries, port MTUs and rates, port states, links), and for each one
// every (source, destination) pair outside the dirty set must compute the
// same record (or the same failure) before and after.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/smdb/path_engine.h"
#include "common/smdb/route_diff.h"
#include "common/smdb/smdb_delta.h"
#include "test/support/check_ok.h"
#include "test/unit/path_engine_fabric.h"

#include "CppUTest/TestHarness.h"

using namespace path_engine_test;

namespace {

struct Built {
  Smdb db;
  std::unique_ptr<SmdbIndex> index;
};

void Index(Built* b) {
  b->db.SortRecords();
  ssa::Status st = SmdbIndex::Build(b->db, &b->index);
  CHECK_OK(st);
}

bool SameAnswer(const PathEngine& a, const PathEngine& b, uint16_t s, uint16_t d) {
  ibv_path_record ra, rb;
  PathStatus sa = a.Compute(s, d, &ra), sb = b.Compute(s, d, &rb);
  return sa == sb && memcmp(&ra, &rb, sizeof(ra)) == 0;
}

// The engine's test fabric in *a and, in *b, the next version after one to
// three random changes (*what says which); false when the changes make a
// fabric that cannot be indexed (e.g. an inconsistent link).
bool RandomChange(std::mt19937* rng, Built* a, Built* b, std::string* what) {
  a->db = TwoSwitchFabric();
  Index(a);
  b->db = a->db;
  what->clear();
  int changes = 1 + static_cast<int>((*rng)() % 3);
  for (int i = 0; i < changes; ++i) *what += MutateFabric(rng, &b->db) + "; ";
  BumpEpochs(a->db, &b->db);
  b->db.SortRecords();
  return SmdbIndex::Build(b->db, &b->index).ok();
}

// Calls check(trial, what, a, b, d) for each of `trials` random changes
// (RandomChange from `seed`) that index and whose diff d is not "all".
template <class Check>
void ForEachLocalChange(uint32_t seed, int trials, Check check) {
  std::mt19937 rng(seed);
  for (int trial = 0; trial < trials; ++trial) {
    Built a, b;
    std::string what;
    if (!RandomChange(&rng, &a, &b, &what)) continue;
    RouteDiff d = DiffRoutes(a.db, *a.index, b.db, *b.index);
    if (d.all) continue;
    check(trial, what, a, b, d);
  }
}

}  // namespace

TEST_GROUP(RouteDiff){};

TEST(RouteDiff, NoChangeMeansNothingDirty) {
  Built a, b;
  a.db = TwoSwitchFabric();
  b.db = a.db;
  Index(&a);
  Index(&b);
  RouteDiff d = DiffRoutes(a.db, *a.index, b.db, *b.index);
  CHECK_FALSE(d.all);
  CHECK_EQUAL(0u, d.dirty_count);
}

TEST(RouteDiff, PathsOutsideTheDirtySetNeverChange) {
  int localized = 0;
  ForEachLocalChange(
      12345, 300,
      [&](int trial, const std::string& what, const Built& a, const Built& b, const RouteDiff& d) {
        localized += d.dirty_count < a.index->assigned_lids().size();
        PathEngine ea(a.index.get()), eb(b.index.get());
        for (uint16_t s : a.index->assigned_lids()) {
          if (d.IsDirty(s)) continue;  // that consumer recomputes everything
          for (uint16_t dl : a.index->assigned_lids()) {
            if (d.IsDirty(dl)) continue;
            std::string msg = "trial " + std::to_string(trial) + " (" + what + ") path " +
                              std::to_string(s) + "->" + std::to_string(dl);
            CHECK_TEXT(SameAnswer(ea, eb, s, dl), msg.c_str());
          }
        }
      });
  // The diff must also be useful: most single changes stay local.
  CHECK(localized > 100);
}

// The per-pair rule the access node uses: every pair it does not flag
// computes the same answer before and after, and it flags fewer pairs than
// the per-destination rule.
TEST(RouteDiff, PairsThePairRuleSkipsNeverChange) {
  uint64_t flagged_pairs = 0, coarse_pairs = 0;
  int trials = 0;
  ForEachLocalChange(
      4242, 400,
      [&](int trial, const std::string& what, const Built& a, const Built& b, const RouteDiff& d) {
        ++trials;
        PathEngine ea(a.index.get()), eb(b.index.get());
        for (uint16_t s : b.index->assigned_lids()) {
          // PairsFrom lists exactly the destinations the pair rule flags.
          if (!d.IsOwnerDirty(s)) {
            std::vector<uint16_t> listed, scanned;
            d.PairsFrom(s, &listed);
            for (uint16_t dl : b.index->assigned_lids())
              if (d.PairMayDiffer(s, dl)) scanned.push_back(dl);
            std::string msg = "trial " + std::to_string(trial) + " (" + what + ") PairsFrom(" +
                              std::to_string(s) + ")";
            CHECK_TEXT(listed == scanned, msg.c_str());
          }
          for (uint16_t dl : b.index->assigned_lids()) {
            coarse_pairs += d.IsDirty(s) || d.IsDirty(dl);
            if (d.PairMayDiffer(s, dl)) {
              ++flagged_pairs;
              continue;
            }
            // Owner-dirty covers ports that came or went: both indexes know s, dl.
            std::string msg = "trial " + std::to_string(trial) + " (" + what + ") path " +
                              std::to_string(s) + "->" + std::to_string(dl);
            CHECK_TEXT(SameAnswer(ea, eb, s, dl), msg.c_str());
          }
        }
      });
  CHECK(trials > 100);
  CHECK(flagged_pairs < coarse_pairs);
}

namespace {

// Every field the access node reads of a RouteDiff.
bool SameDiff(const RouteDiff& x, const RouteDiff& y) {
  return x.all == y.all && x.dirty == y.dirty && x.dirty_count == y.dirty_count &&
         x.lids_left == y.lids_left && x.owner_dirty == y.owner_dirty &&
         x.route_slot == y.route_slot && x.first_switch == y.first_switch &&
         x.reaches_change == y.reaches_change && x.owner_lids == y.owner_lids &&
         x.route_lids == y.route_lids && x.no_switch_lids == y.no_switch_lids &&
         x.reach_nodes == y.reach_nodes && x.switch_start == y.switch_start &&
         x.lids_by_switch == y.lids_by_switch;
}

}  // namespace

// With the delta that made the new version, only the LFT blocks it names
// are compared: the diff is the one the merge walk over both versions
// finds, on every random change. A delta of other epochs is ignored.
TEST(RouteDiff, TheDeltasLftBlocksGiveTheSameDiffAsWalkingBothVersions) {
  std::mt19937 rng(777);
  int compared = 0, lft_changes = 0;
  for (int trial = 0; trial < 300; ++trial) {
    Built a, b;
    std::string what;
    if (!RandomChange(&rng, &a, &b, &what)) continue;
    std::string delta;
    CHECK_OK(MakeDelta(a.db, b.db, &delta));
    RouteDiff walked = DiffRoutes(a.db, *a.index, b.db, *b.index);
    RouteDiff guided = DiffRoutes(a.db, *a.index, b.db, *b.index, &delta);
    CHECK_TEXT(SameDiff(walked, guided), ("trial " + std::to_string(trial) + ": " + what).c_str());
    ++compared;
    lft_changes += a.db.lft_blocks.epoch != b.db.lft_blocks.epoch;
  }
  CHECK(compared > 200);
  CHECK(lft_changes > 50);  // the delta's LFT blocks were what mattered

  // A delta of other epochs must not be taken for the one that made the
  // new version: b moves one LFT entry of the first block, c (one epoch
  // later) one of the last block; the diff of a -> b given the delta a -> c
  // or b -> c would name c's block, so it must be the walked one.
  Built a, b, c;
  a.db = TwoSwitchFabric();
  Index(&a);
  b.db = a.db;
  c.db = a.db;
  auto move_entry = [](Smdb* db, size_t block) {
    uint8_t& port = db->lft_blocks.records[block].ports[5];
    port = port == 1 ? 2 : 1;
  };
  move_entry(&b.db, 0);
  move_entry(&c.db, c.db.lft_blocks.records.size() - 1);
  BumpEpochs(a.db, &b.db);
  BumpEpochs(b.db, &c.db);
  CHECK_OK(SmdbIndex::Build(b.db, &b.index));
  std::string a_to_c, b_to_c;
  CHECK_OK(MakeDelta(a.db, c.db, &a_to_c));
  CHECK_OK(MakeDelta(b.db, c.db, &b_to_c));
  RouteDiff walked = DiffRoutes(a.db, *a.index, b.db, *b.index);
  CHECK(walked.dirty_count > 0);
  CHECK(SameDiff(walked, DiffRoutes(a.db, *a.index, b.db, *b.index, &a_to_c)));
  CHECK(SameDiff(walked, DiffRoutes(a.db, *a.index, b.db, *b.index, &b_to_c)));
}
