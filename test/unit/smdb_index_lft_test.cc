// smdb_index_lft_test.cc: an SmdbIndex that catches a recycled LFT buffer
// up (LftLineage, SmdbIndex::Build) holds exactly what a whole build of
// the same SMDB holds, over chains of versions with random LFT block
// changes and layout changes, built as PrdbService builds them (the buffer
// of the version two before); and it writes whole whenever the chain
// breaks: a version without a delta, another core's version under the
// same epoch, a buffer of another lineage.
#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/smdb/lft_lineage.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_index.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;

namespace {

constexpr uint64_t kSwitchGuid = 0x0002c90300000100ULL;

// `switches` switches of `blocks` LFT blocks each (and two CAs, which have
// no LFT), every entry random, sorted as Parse leaves a database.
Smdb RandomFabric(std::mt19937* rng, int switches, int blocks) {
  Smdb db;
  db.global_epoch = 1;
  for (int s = 0; s < switches; ++s) {
    SmdbNode n;
    n.node_guid = kSwitchGuid + 2 * static_cast<uint64_t>(s);
    n.node_type = kNodeSwitch;
    n.num_ports = 36;
    db.nodes.records.push_back(n);
    SmdbSwitch sw;
    sw.node_guid = n.node_guid;
    // Below the last block now and then, so that a top moved up shows.
    sw.lin_fdb_top = static_cast<uint16_t>(blocks * kLftBlockSize - 1 - (*rng)() % 100);
    db.switches.records.push_back(sw);
    for (int b = 0; b < blocks; ++b) {
      SmdbLftBlock r;
      r.node_guid = n.node_guid;
      r.block = static_cast<uint16_t>(b);
      for (auto& p : r.ports) p = static_cast<uint8_t>((*rng)() % 40);
      db.lft_blocks.records.push_back(r);
    }
  }
  for (int c = 0; c < 2; ++c) {
    SmdbNode n;
    n.node_guid = kSwitchGuid + 1 + 2 * static_cast<uint64_t>(c);
    n.node_type = kNodeCa;
    n.num_ports = 1;
    db.nodes.records.push_back(n);
  }
  db.SortRecords();
  return db;
}

SmdbLftBlock* FindBlock(Smdb* db, uint64_t guid, uint16_t block) {
  for (auto& r : db->lft_blocks.records)
    if (r.node_guid == guid && r.block == block) return &r;
  return nullptr;
}

// A few LFT entries changed (a reroute), and now and then a block removed
// or added (the layout changes only if it was or becomes the last below
// the top), a switch's top moved, a switch added or removed. The epochs
// are bumped as a producer bumps them.
void RandomChanges(std::mt19937* rng, const Smdb& previous, Smdb* next) {
  *next = previous;
  auto& blocks = next->lft_blocks.records;
  const int entries = 1 + static_cast<int>((*rng)() % 6);
  for (int i = 0; i < entries && !blocks.empty(); ++i)
    blocks[(*rng)() % blocks.size()].ports[(*rng)() % kLftBlockSize] =
        static_cast<uint8_t>((*rng)() % 40);
  switch ((*rng)() % 24) {
    case 0:  // a block removed
      if (blocks.size() > 1) blocks.erase(blocks.begin() + (*rng)() % blocks.size());
      break;
    case 1: {  // a block added (one past a switch's last, or in a hole)
      if (next->switches.records.empty()) break;
      const SmdbSwitch& sw = next->switches.records[(*rng)() % next->switches.records.size()];
      for (uint16_t b = 0; b < 64; ++b)
        if (!FindBlock(next, sw.node_guid, b)) {
          SmdbLftBlock r;
          r.node_guid = sw.node_guid;
          r.block = b;
          for (auto& p : r.ports) p = static_cast<uint8_t>((*rng)() % 40);
          blocks.push_back(r);
          break;
        }
      break;
    }
    case 2:  // a switch's LinearFDBTop moved
      if (!next->switches.records.empty()) {
        auto& sw = next->switches.records[(*rng)() % next->switches.records.size()];
        sw.lin_fdb_top = static_cast<uint16_t>(sw.lin_fdb_top + 1 + (*rng)() % 100);
      }
      break;
    case 3: {  // a switch removed, with its blocks
      if (next->switches.records.size() < 2) break;
      uint64_t g = next->switches.records[(*rng)() % next->switches.records.size()].node_guid;
      auto gone = [g](const auto& r) { return r.node_guid == g; };
      blocks.erase(std::remove_if(blocks.begin(), blocks.end(), gone), blocks.end());
      auto& sws = next->switches.records;
      sws.erase(std::remove_if(sws.begin(), sws.end(), gone), sws.end());
      auto& nodes = next->nodes.records;
      nodes.erase(std::remove_if(nodes.begin(), nodes.end(), gone), nodes.end());
      break;
    }
    case 4: {  // a switch added
      uint64_t g = kSwitchGuid + 2 * (100 + (*rng)() % 50);
      bool known = false;
      for (const auto& n : next->nodes.records) known = known || n.node_guid == g;
      if (known) break;
      SmdbNode n;
      n.node_guid = g;
      n.node_type = kNodeSwitch;
      n.num_ports = 36;
      next->nodes.records.push_back(n);
      SmdbSwitch sw;
      sw.node_guid = g;
      sw.lin_fdb_top = 3 * kLftBlockSize - 1;
      next->switches.records.push_back(sw);
      for (uint16_t b = 0; b < 3; ++b) {
        SmdbLftBlock r;
        r.node_guid = g;
        r.block = b;
        for (auto& p : r.ports) p = static_cast<uint8_t>((*rng)() % 40);
        blocks.push_back(r);
      }
      break;
    }
    case 5: {  // one switch's top down, another's up as much: same size
      auto& sws = next->switches.records;
      if (sws.size() < 2) break;
      size_t a = (*rng)() % sws.size(), b = (a + 1) % sws.size();
      uint16_t d = static_cast<uint16_t>(1 + (*rng)() % 8);
      if (sws[a].lin_fdb_top < 64 || sws[b].lin_fdb_top > 100) break;
      sws[a].lin_fdb_top = static_cast<uint16_t>(sws[a].lin_fdb_top - d);
      sws[b].lin_fdb_top = static_cast<uint16_t>(sws[b].lin_fdb_top + d);
      break;
    }
    default: break;  // LFT entries only: the usual case
  }
  next->SortRecords();
  BumpEpochs(previous, next);
}

std::vector<SmdbIndex::LftSpan> Layout(const SmdbIndex& x) {
  std::vector<SmdbIndex::LftSpan> l;
  for (const auto& n : x.nodes())
    if (n.lft_size) l.push_back({n.guid, n.lft, n.lft_size});
  return l;
}

// `got` answers every LFT question as a whole build of `db` does: every
// LftPort of every node and LID (past every top), and the same layout and
// the rest of the index.
void CheckSameAsWhole(const Smdb& db, const SmdbIndex& got, const std::string& what) {
  std::unique_ptr<SmdbIndex> want;
  CHECK_OK(SmdbIndex::Build(db, &want));
  CHECK_EQUAL_TEXT(want->nodes().size(), got.nodes().size(), what.c_str());
  CHECK_TEXT(Layout(*want) == Layout(got), what.c_str());
  for (uint32_t n = 0; n < want->nodes().size(); ++n) {
    CHECK_EQUAL_TEXT(want->nodes()[n].guid, got.nodes()[n].guid, what.c_str());
    const uint32_t top = std::max(want->nodes()[n].lft_size, got.nodes()[n].lft_size) + 70;
    for (uint32_t lid = 0; lid < top && lid <= 0xFFFF; ++lid)
      if (want->LftPort(n, static_cast<uint16_t>(lid)) !=
          got.LftPort(n, static_cast<uint16_t>(lid)))
        FAIL((what + ": node " + std::to_string(n) + " LID " + std::to_string(lid)).c_str());
  }
  CHECK_EQUAL_TEXT(want->ports().size(), got.ports().size(), what.c_str());
  CHECK_TEXT(want->assigned_lids() == got.assigned_lids(), what.c_str());
}

// Builds the versions as PrdbService does: each added to the lineage in
// order, the index of N built while N - 1's is held, so the recycled
// buffer is N - 2's.
struct Builder {
  LftLineage lineage;
  SmdbIndex::LftBuffers buffers{1};
  std::unique_ptr<SmdbIndex> held;
  size_t catch_ups = 0, whole = 0;

  // Returns whether the new index caught up.
  bool Next(const Smdb& db, const std::string* delta, const std::string& what) {
    uint64_t serial = lineage.Add(db, delta);
    std::unique_ptr<SmdbIndex> x;
    CHECK_OK(SmdbIndex::Build(db, &x, &buffers, &lineage, serial));
    CheckSameAsWhole(db, *x, what);
    const bool caught_up = x->lft_caught_up();
    (caught_up ? catch_ups : whole)++;
    held = std::move(x);  // N - 1's index goes: its buffer is N + 1's
    return caught_up;
  }
};

std::string DeltaOf(const Smdb& a, const Smdb& b) {
  std::string d;
  CHECK_OK(MakeDelta(a, b, &d));
  return d;
}

// `next`, changed from `prev`, made its next version; the delta to it.
std::string BumpedDelta(const Smdb& prev, Smdb* next) {
  BumpEpochs(prev, next);
  return DeltaOf(prev, *next);
}

}  // namespace

TEST_GROUP(SmdbIndexLftCatchUp){};

TEST(SmdbIndexLftCatchUp, ChainsOfRandomChangesEqualWholeBuilds) {
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    Builder b;
    Smdb db = RandomFabric(&rng, 3 + static_cast<int>(seed % 4), 2 + static_cast<int>(seed % 3));
    b.Next(db, nullptr, "first");
    for (int v = 1; v <= 60; ++v) {
      Smdb next;
      RandomChanges(&rng, db, &next);
      if (next.global_epoch == db.global_epoch) continue;
      const std::string what = "seed " + std::to_string(seed) + " version " + std::to_string(v);
      // Now and then a version comes whole (a full transfer): no delta.
      const bool with_delta = rng() % 20 != 0;
      const std::string delta = with_delta ? DeltaOf(db, next) : std::string();
      b.Next(next, with_delta ? &delta : nullptr, what);
      db = std::move(next);
    }
    // Most versions only move LFT entries: most must have caught up.
    CHECK_TEXT(b.catch_ups > b.whole,
               ("seed " + std::to_string(seed) + ": " + std::to_string(b.catch_ups) +
                " caught up, " + std::to_string(b.whole) + " whole")
                   .c_str());
  }
}

TEST(SmdbIndexLftCatchUp, CatchesUpExactlyWhenTheChainAndLayoutHold) {
  std::mt19937 rng(11);
  Builder b;
  Smdb v0 = RandomFabric(&rng, 4, 3);
  for (size_t i = 0; i < v0.switches.records.size(); ++i)
    v0.switches.records[i].lin_fdb_top = static_cast<uint16_t>(150 + i);
  CHECK_FALSE(b.Next(v0, nullptr, "v0"));
  Smdb v1 = v0;
  v1.lft_blocks.records[1].ports[5] ^= 1;
  std::string d01 = BumpedDelta(v0, &v1);
  // The buffer is none (first) or v0's, which came without a delta: its
  // digest is unknown, so nothing chains to it.
  CHECK_FALSE(b.Next(v1, &d01, "v1"));
  Smdb v2 = v1;
  v2.lft_blocks.records[7].ports[0] ^= 2;
  std::string d12 = BumpedDelta(v1, &v2);
  CHECK_FALSE(b.Next(v2, &d12, "v2"));  // buffer v0: v0 -> v1 is not known
  Smdb v3 = v2;
  v3.lft_blocks.records[3].ports[63] ^= 4;
  std::string d23 = BumpedDelta(v2, &v3);
  CHECK_TRUE(b.Next(v3, &d23, "v3"));  // buffer v1: v1 -> v2 -> v3
  CHECK_EQUAL(2u, b.held->lft_blocks_rewritten());
  // A removed block, not the last: same layout, its LIDs now no path.
  Smdb v4 = v3;
  v4.lft_blocks.records.erase(v4.lft_blocks.records.begin() + 4);
  std::string d34 = BumpedDelta(v3, &v4);
  CHECK_TRUE(b.Next(v4, &d34, "v4"));
  // One switch's top down, the next one's up: another layout of the same
  // size, whole.
  Smdb v5 = v4;
  v5.switches.records[0].lin_fdb_top =
      static_cast<uint16_t>(v5.switches.records[0].lin_fdb_top - 1);
  v5.switches.records[1].lin_fdb_top =
      static_cast<uint16_t>(v5.switches.records[1].lin_fdb_top + 1);
  std::string d45 = BumpedDelta(v4, &v5);
  CHECK_FALSE(b.Next(v5, &d45, "v5"));
  Smdb v6 = v5;
  v6.lft_blocks.records[0].ports[1] ^= 8;
  std::string d56 = BumpedDelta(v5, &v6);
  CHECK_FALSE(b.Next(v6, &d56, "v6"));  // buffer v4: laid out as before v5
  Smdb v7 = v6;
  v7.lft_blocks.records[2].ports[9] ^= 16;
  std::string d67 = BumpedDelta(v6, &v7);
  CHECK_TRUE(b.Next(v7, &d67, "v7"));  // buffer v5: the same layout again
  // A version that comes whole breaks the chain for the next two.
  Smdb v8 = v7;
  v8.lft_blocks.records[5].ports[2] ^= 32;
  BumpEpochs(v7, &v8);
  CHECK_FALSE(b.Next(v8, nullptr, "v8"));
  Smdb v9 = v8;
  v9.lft_blocks.records[6].ports[2] ^= 64;
  std::string d89 = BumpedDelta(v8, &v9);
  CHECK_FALSE(b.Next(v9, &d89, "v9"));  // buffer v7: v7 -> v8 unknown
}

// After an SM failover, a new core's version can carry the epoch of the
// one held here with other content (doc/ssa-tree.md, "Epochs that never
// go back"); its delta's base epoch then matches, its base digest not.
TEST(SmdbIndexLftCatchUp, AnotherCoresVersionUnderTheSameEpochIsBuiltWhole) {
  std::mt19937 rng(5);
  Builder b;
  Smdb a0 = RandomFabric(&rng, 4, 3), a1, a2, a3;
  b.Next(a0, nullptr, "a0");
  RandomChanges(&rng, a0, &a1);
  std::string d = DeltaOf(a0, a1);
  b.Next(a1, &d, "a1");
  a2 = a1;
  a2.lft_blocks.records[0].ports[0] ^= 1;
  d = BumpedDelta(a1, &a2);
  b.Next(a2, &d, "a2");
  a3 = a2;
  a3.lft_blocks.records[1].ports[0] ^= 1;
  d = BumpedDelta(a2, &a3);
  CHECK_TRUE(b.Next(a3, &d, "a3"));
  // The other core's: a3's epochs and layout, other LFT entries in blocks
  // its own delta does not name.
  Smdb w = a3;
  for (auto& r : w.lft_blocks.records) r.ports[17] = static_cast<uint8_t>(r.ports[17] ^ 0x3);
  Smdb w1 = w;
  w1.lft_blocks.records[2].ports[3] ^= 1;
  d = BumpedDelta(w, &w1);
  CHECK_FALSE(b.Next(w1, &d, "the other core's next version"));
  // And the same epoch exactly, whole: never confused with a3's.
  Smdb w2 = w1;
  for (auto& r : w2.lft_blocks.records) r.ports[40] = static_cast<uint8_t>(r.ports[40] ^ 0x5);
  CHECK_FALSE(b.Next(w2, nullptr, "the other core's version under a held epoch"));
}

TEST(SmdbIndexLftCatchUp, ABufferOfAnotherLineageIsWrittenWhole) {
  std::mt19937 rng(3);
  Smdb v0 = RandomFabric(&rng, 3, 2);
  Smdb v1 = v0;
  v1.lft_blocks.records[0].ports[0] ^= 1;
  const std::string d01 = BumpedDelta(v0, &v1);
  // Lineage A leaves a buffer of its v1 in the recycler...
  SmdbIndex::LftBuffers buffers(1);
  LftLineage a, other;
  {
    std::unique_ptr<SmdbIndex> x;
    CHECK_OK(SmdbIndex::Build(v0, &x, &buffers, &a, a.Add(v0, nullptr)));
    uint64_t s1 = a.Add(v1, &d01);
    x.reset();
    CHECK_OK(SmdbIndex::Build(v1, &x, &buffers, &a, s1));
  }
  // ... which another lineage, whose versions have the same epochs and
  // layout but other entries, chained by its own deltas, may not trust.
  Smdb o0 = v0;
  for (auto& r : o0.lft_blocks.records) r.ports[9] ^= 2;
  Smdb o1 = o0;
  o1.lft_blocks.records[0].ports[0] ^= 1;
  BumpEpochs(o0, &o1);
  Smdb o2 = o1;
  o2.lft_blocks.records[1].ports[1] ^= 1;
  BumpEpochs(o1, &o2);
  const std::string o01 = DeltaOf(o0, o1), o12 = DeltaOf(o1, o2);
  other.Add(o0, nullptr);
  other.Add(o1, &o01);
  std::unique_ptr<SmdbIndex> y;
  CHECK_OK(SmdbIndex::Build(o2, &y, &buffers, &other, other.Add(o2, &o12)));
  CHECK_FALSE(y->lft_caught_up());
  CheckSameAsWhole(o2, *y, "another lineage");
  // Nor a build without a lineage: it leaves no identity behind.
  y.reset();
  std::unique_ptr<SmdbIndex> z;
  CHECK_OK(SmdbIndex::Build(v1, &z, &buffers));
  z.reset();
  CHECK_OK(SmdbIndex::Build(v1, &z, &buffers, &a, a.Add(v1, nullptr)));
  CHECK_FALSE(z->lft_caught_up());
  CheckSameAsWhole(v1, *z, "after a build without a lineage");
}

// A hand-built database whose lft_blocks are out of key order (Parse
// never leaves one so) cannot be searched by key: written whole.
TEST(SmdbIndexLftCatchUp, AnUnsortedTableIsWrittenWhole) {
  std::mt19937 rng(21);
  Builder b;
  Smdb v[4];
  v[0] = RandomFabric(&rng, 4, 3);
  b.Next(v[0], nullptr, "v0");
  std::string d;
  for (int i = 1; i < 4; ++i) {
    v[i] = v[i - 1];
    v[i].lft_blocks.records[static_cast<size_t>(i)].ports[3] ^= 1;
    BumpEpochs(v[i - 1], &v[i]);
    d = DeltaOf(v[i - 1], v[i]);
    if (i < 3) b.Next(v[i], &d, "v" + std::to_string(i));
  }
  // v3's records, last first: the same content, the same layout.
  Smdb shuffled = v[3];
  std::reverse(shuffled.lft_blocks.records.begin(), shuffled.lft_blocks.records.end());
  CHECK_FALSE(b.Next(shuffled, &d, "v3 unsorted"));
}

TEST_GROUP(LftLineage){};

TEST(LftLineage, ChainsOnlyThroughDeltasFromTheVersionBefore) {
  std::mt19937 rng(9);
  Smdb v0 = RandomFabric(&rng, 2, 2), v1 = v0, v2;
  v1.lft_blocks.records[0].ports[0] ^= 1;
  BumpEpochs(v0, &v1);
  v2 = v1;
  v2.lft_blocks.records[3].ports[0] ^= 1;
  BumpEpochs(v1, &v2);
  LftLineage l(3);
  std::vector<LftLineage::Block> blocks;
  const std::string d01 = DeltaOf(v0, v1), d12 = DeltaOf(v1, v2), d02 = DeltaOf(v0, v2);
  uint64_t s0 = l.Add(v0, nullptr), s1 = l.Add(v1, &d01), s2 = l.Add(v2, &d12);
  CHECK(s0 != 0 && s0 != s1 && s1 != s2);
  CHECK_FALSE(l.ChangedBlocks(s0, s1, &blocks));  // v0's digest unknown
  CHECK_TRUE(l.ChangedBlocks(s1, s2, &blocks));
  CHECK_EQUAL(1u, blocks.size());
  CHECK(blocks[0] ==
        LftLineage::Block(v2.lft_blocks.records[3].node_guid, v2.lft_blocks.records[3].block));
  CHECK_TRUE(l.ChangedBlocks(s2, s2, &blocks));
  CHECK(blocks.empty());
  CHECK_FALSE(l.ChangedBlocks(s2, s1, &blocks));  // backwards
  // A delta from another base (v0, not v2) does not chain.
  uint64_t s3 = l.Add(v2, &d02);
  CHECK_FALSE(l.ChangedBlocks(s2, s3, &blocks));
  // Forgotten past the depth.
  l.Add(v2, nullptr);
  CHECK_FALSE(l.ChangedBlocks(s1, s2, &blocks));
  // A corrupt delta is as none.
  std::string bad = d12;
  bad[bad.size() / 2] ^= 0x40;
  uint64_t s5 = l.Add(v1, &d01), s6 = l.Add(v2, &bad);
  CHECK_FALSE(l.ChangedBlocks(s5, s6, &blocks));
}
