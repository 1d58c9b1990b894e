// prdb_view_test.cc: the ssa provider's index of one PRDB (prdb_view.h)
// against a brute-force reading of the same records: by LID, by GID (the
// LMC pair OpenSM lists first, then the others source-major; only
// reversible records), every destination GID once in GID order, for
// PRDBs in their own (DGID-first) order and hand-built ones that are not.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "common/smdb/smdb_prdb.h"
#include "providers/ssa/prdb_view.h"

#include "CppUTest/TestHarness.h"

using ssa::smdb::kPathReversible;
using ssa::smdb::Prdb;
using ssa::smdb::PrdbPath;
using ssa::ssa_provider::PrdbView;

namespace {

std::array<uint8_t, 16> Gid(uint16_t port) {
  std::array<uint8_t, 16> g{};
  g[0] = 0xfe;
  g[1] = 0x80;
  g[14] = static_cast<uint8_t>(port >> 8);
  g[15] = static_cast<uint8_t>(port);
  return g;
}

// Source port 1 with LID base 4, LMC `lmc`; `ports` destinations, port p
// owning LIDs 64 * p .. + 2^dlmc - 1; each pair present with probability
// 3/4, reversible with probability 3/4.
Prdb RandomPrdb(std::mt19937* rng, uint8_t lmc, uint8_t dlmc, int ports) {
  Prdb db;
  db.global_epoch = 3;
  db.source.records[0].base_lid = 4;
  db.source.records[0].lmc = lmc;
  for (int p = 2; p < 2 + ports; ++p)
    for (uint32_t k = 0; k < (1u << lmc); ++k)
      for (uint32_t j = 0; j < (1u << dlmc); ++j) {
        if ((*rng)() % 4 == 0) continue;
        PrdbPath r;
        r.sgid = Gid(1);
        r.dgid = Gid(static_cast<uint16_t>(p));
        r.slid = static_cast<uint16_t>(4 + k);
        r.dlid = static_cast<uint16_t>(64 * p + j);
        r.sl = static_cast<uint8_t>((*rng)() % 16);
        r.flags = (*rng)() % 4 ? kPathReversible : 0;
        db.paths.records.push_back(r);
      }
  db.SortRecords();
  return db;
}

// Of several records for one pair, the last answers.
const PrdbPath* RefFind(const Prdb& db, uint16_t slid, uint16_t dlid) {
  const PrdbPath* found = nullptr;
  for (const PrdbPath& r : db.paths.records)
    if (r.slid == slid && r.dlid == dlid && (r.flags & kPathReversible)) found = &r;
  return found;
}

const PrdbPath* RefByLid(const Prdb& db, uint16_t dlid) {
  return RefFind(db, db.source.records[0].base_lid, dlid);
}

const PrdbPath* RefByGid(const Prdb& db, const std::array<uint8_t, 16>& dgid) {
  std::vector<uint16_t> dl;
  for (const PrdbPath& r : db.paths.records)
    if (r.dgid == dgid && (r.flags & kPathReversible)) dl.push_back(r.dlid);
  std::sort(dl.begin(), dl.end());
  dl.erase(std::unique(dl.begin(), dl.end()), dl.end());
  const uint16_t base = db.source.records[0].base_lid;
  const uint32_t n = 1u << db.source.records[0].lmc;
  for (uint32_t k = 0; k < n && k < dl.size(); ++k)
    if (const PrdbPath* p = RefFind(db, static_cast<uint16_t>(base + k), dl[k])) return p;
  for (uint32_t k = 0; k < n; ++k)
    for (uint16_t d : dl)
      if (const PrdbPath* p = RefFind(db, static_cast<uint16_t>(base + k), d)) return p;
  return nullptr;
}

void CheckView(const Prdb& db, int ports) {
  auto shared = std::make_shared<const Prdb>(db);
  PrdbView view(shared);
  for (uint32_t lid = 0; lid < 64u * (2 + ports) + 8; ++lid)
    CHECK(view.ByLid(static_cast<uint16_t>(lid)) == [&]() -> const PrdbPath* {
      const PrdbPath* r = RefByLid(*shared, static_cast<uint16_t>(lid));
      return r;
    }());
  // Every GID the records name, and ports with no record.
  std::vector<std::array<uint8_t, 16>> gids, want;
  for (int p = 1; p < 3 + ports; ++p) gids.push_back(Gid(static_cast<uint16_t>(p)));
  for (const PrdbPath& x : shared->paths.records) gids.push_back(x.dgid);
  std::sort(gids.begin(), gids.end());
  gids.erase(std::unique(gids.begin(), gids.end()), gids.end());
  for (const std::array<uint8_t, 16>& g : gids) {
    const PrdbPath* r = RefByGid(*shared, g);
    CHECK(view.ByGid(g.data()) == r);
    bool any = false;
    for (const PrdbPath& x : shared->paths.records)
      any |= x.dgid == g && (x.flags & kPathReversible);
    if (any) want.push_back(g);
  }
  std::vector<std::array<uint8_t, 16>> seen;
  view.ForEachDgid([&](const uint8_t* g) {
    std::array<uint8_t, 16> a;
    std::memcpy(a.data(), g, 16);
    seen.push_back(a);
  });
  CHECK(seen == want);
}

}  // namespace

TEST_GROUP(PrdbView){};

TEST(PrdbView, AnswersAsTheRecordsSayForEveryLmc) {
  std::mt19937 rng(11);
  for (uint8_t lmc : {0, 1, 2})
    for (uint8_t dlmc : {0, 1, 3})
      for (int round = 0; round < 3; ++round) CheckView(RandomPrdb(&rng, lmc, dlmc, 12), 12);
}

// Two records for one LID pair (an alias GID in a hand-built PRDB): the
// last in record order answers, by LID and through either GID.
TEST(PrdbView, OfTwoRecordsForOnePairTheLastAnswers) {
  std::mt19937 rng(13);
  Prdb db = RandomPrdb(&rng, 0, 0, 6);
  for (PrdbPath& r : db.paths.records) r.flags = kPathReversible;
  PrdbPath alias = db.paths.records[2];
  alias.dgid[8] = 0x77;  // another GID, same (SLID, DLID)
  alias.sl = 9;
  db.paths.records.push_back(alias);
  db.SortRecords();
  CheckView(db, 6);
}

TEST(PrdbView, AHandBuiltPrdbOutOfOrderAnswersTheSame) {
  std::mt19937 rng(12);
  Prdb db = RandomPrdb(&rng, 1, 1, 10);
  std::shuffle(db.paths.records.begin(), db.paths.records.end(), rng);
  CheckView(db, 10);
}
