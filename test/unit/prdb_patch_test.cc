// prdb_patch_test.cc: smdb::PatchPrdb over chains of versions kept as
// images (prdb_image.h): every version, made whole, is byte for byte what
// Prdb::Serialize gives for the expected records; its digest, record count
// and delta are what a whole version would have; overrides stay within
// their bound; paths appearing or disappearing make the version whole.
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/base/buffer_recycler.h"
#include "common/smdb/prdb_image.h"
#include "common/smdb/prdb_patch.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_prdb.h"
#include "common/tree/db_version.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

using namespace ssa::smdb;

namespace {

constexpr uint16_t kSlid = 7;
constexpr uint64_t kGuid = 0x0002c90300000007ull;

// The key of destination `d` (a destination LID and GID per d).
PrdbPath Key(uint16_t d) {
  PrdbPath p;
  p.dgid[0] = 0xfe;
  p.dgid[1] = 0x80;
  p.dgid[14] = static_cast<uint8_t>(d >> 8);
  p.dgid[15] = static_cast<uint8_t>(d);
  p.sgid = p.dgid;
  p.sgid[14] = 0;
  p.sgid[15] = kSlid;
  p.dlid = static_cast<uint16_t>(d + 1);
  p.slid = kSlid;
  return p;
}

PrdbPath Draw(uint16_t d, std::mt19937* rng) {
  PrdbPath p = Key(d);
  p.pkey = 0xffff;
  p.sl = static_cast<uint8_t>((*rng)() % 16);
  p.mtu = static_cast<uint8_t>(1 + (*rng)() % 5);
  p.rate = static_cast<uint8_t>(2 + (*rng)() % 10);
  p.hop_limit = static_cast<uint8_t>((*rng)() % 4);
  p.flags = kPathReversible;
  return p;
}

// The PRDB of `records` (by destination) at `epoch`, serialized.
Prdb Expected(const std::map<uint16_t, PrdbPath>& records, uint64_t epoch) {
  Prdb db;
  db.global_epoch = epoch;
  PrdbSource& s = db.source.records[0];
  s.port_guid = kGuid;
  s.subnet_prefix = 0xfe80000000000000ull;
  s.base_lid = kSlid;
  s.smdb_epoch = epoch;
  for (const auto& r : records) db.paths.records.push_back(r.second);
  db.SortRecords();
  return db;
}

std::string Bytes(const Prdb& db) {
  std::string out;
  CHECK_OK(db.Serialize(&out));
  return out;
}

uint32_t Digest(const std::string& b) {
  return Crc32(reinterpret_cast<const uint8_t*>(b.data()), b.size());
}

// One chain of `steps` versions from a PRDB of `n` destinations (some
// absent), patched with at most `max_overrides`; `shape_every` > 0: every
// that many steps a path appears or disappears.
void RunChain(uint32_t seed, size_t max_overrides, int shape_every, ssa::BufferRecycler* buffers) {
  std::mt19937 rng(seed);
  const uint16_t n = 300;
  std::map<uint16_t, PrdbPath> records;
  for (uint16_t d = 0; d < n; ++d)
    if (rng() % 5) records[d] = Draw(d, &rng);
  uint64_t epoch = 10;
  Prdb previous = Expected(records, epoch);
  std::string whole = Bytes(previous);
  auto image = std::make_shared<const PrdbImage>(std::make_shared<const std::string>(whole));
  uint32_t digest = Digest(whole);
  size_t made_whole = 0, with_overrides = 0;
  for (int step = 1; step <= 60; ++step) {
    const std::string at = "seed " + std::to_string(seed) + " step " + std::to_string(step);
    ++epoch;
    std::vector<PathUpdate> updates;
    std::map<uint16_t, bool> touched;
    const bool shape = shape_every > 0 && step % shape_every == 0;
    const size_t k = 1 + rng() % 6;
    for (size_t i = 0; i < k; ++i) {
      // Mostly destinations that have a path (no shape change).
      auto it = records.begin();
      std::advance(it, rng() % records.size());
      uint16_t d = it->first;
      if (touched.count(d)) continue;
      touched[d] = true;
      PathUpdate u;
      u.present = true;
      u.path = rng() % 4 ? Draw(d, &rng) : records[d];  // some recomputed unchanged
      records[d] = u.path;
      updates.push_back(u);
    }
    if (shape) {
      uint16_t d = static_cast<uint16_t>(rng() % n);
      if (!touched.count(d)) {
        PathUpdate u;
        u.path = Key(d);
        u.present = !records.count(d);  // appears, or disappears
        if (u.present) {
          u.path = Draw(d, &rng);
          records[d] = u.path;
        } else {
          records.erase(d);
        }
        updates.push_back(u);
      }
    }
    PatchedPrdb out;
    CHECK_OK(PatchPrdb(*image, digest, epoch, updates, max_overrides, buffers, &out));
    Prdb want = Expected(records, epoch);
    const std::string want_bytes = Bytes(want);
    std::string got;
    out.image->Materialize(&got);
    CHECK_TEXT(got == want_bytes, at.c_str());
    CHECK_TEXT(*out.image->Bytes() == want_bytes, at.c_str());
    CHECK_EQUAL_TEXT(Digest(want_bytes), out.digest, at.c_str());
    CHECK_EQUAL_TEXT(records.size(), out.paths, at.c_str());
    std::string want_delta;
    CHECK_OK(MakeDelta(previous, want, &want_delta));
    CHECK_TEXT(want_delta == out.delta, at.c_str());
    CHECK_TEXT(out.image->override_count() <= max_overrides, at.c_str());
    CHECK_EQUAL_TEXT(out.made_whole, out.image->whole(), at.c_str());
    made_whole += out.made_whole;
    with_overrides += !out.made_whole;
    // The next patch starts from this image (not from the bytes made above:
    // Materialize keeps nothing, and Bytes() does not change the image).
    image = out.image;
    digest = out.digest;
    previous = want;
  }
  // Both forms were exercised.
  if (max_overrides >= 6) CHECK(with_overrides > 0);
  if (shape_every > 0 || max_overrides < 60) CHECK(made_whole > 0);
}

}  // namespace

TEST_GROUP(PrdbPatch){};

TEST(PrdbPatch, ChainsOfOverridesEqualWholeVersions) {
  for (uint32_t seed = 1; seed <= 8; ++seed) RunChain(seed, 1000, 0, nullptr);
}

TEST(PrdbPatch, OverridesPastTheirBoundMakeTheVersionWhole) {
  ssa::BufferRecycler buffers(2);
  for (uint32_t seed = 11; seed <= 18; ++seed) RunChain(seed, 12, 0, &buffers);
  for (uint32_t seed = 21; seed <= 24; ++seed) RunChain(seed, 0, 0, &buffers);
}

TEST(PrdbPatch, PathsAppearingOrDisappearingMakeTheVersionWhole) {
  ssa::BufferRecycler buffers(2);
  for (uint32_t seed = 31; seed <= 38; ++seed) RunChain(seed, 1000, 3, &buffers);
  for (uint32_t seed = 41; seed <= 44; ++seed) RunChain(seed, 20, 2, nullptr);
}

// A version in parts whose head does not describe its base is refused,
// not patched (the caller builds whole then).
TEST(PrdbPatch, AnImageNotLaidOutAsAPrdbIsRefused) {
  std::map<uint16_t, PrdbPath> records;
  std::mt19937 rng(5);
  for (uint16_t d = 0; d < 10; ++d) records[d] = Draw(d, &rng);
  std::string whole = Bytes(Expected(records, 3));
  PatchedPrdb out;
  std::string cut = whole.substr(0, whole.size() - 1);
  PrdbImage short_one(std::make_shared<const std::string>(cut));
  CHECK(!PatchPrdb(short_one, Digest(cut), 4, {}, 10, nullptr, &out).ok());
  PrdbImage empty_one(std::make_shared<const std::string>());
  CHECK(!PatchPrdb(empty_one, 0, 4, {}, 10, nullptr, &out).ok());
  PrdbSource source;
  CHECK(!PrdbSourceOf(short_one, &source).ok());
  CHECK_OK(PrdbSourceOf(PrdbImage(std::make_shared<const std::string>(whole)), &source));
  CHECK_EQUAL(kGuid, source.port_guid);
}

// The data server's publication of a version in parts makes it whole for a
// full transfer, once, and the image keeps it (the next patch's base).
TEST(PrdbPatch, APublicationMakesAVersionInPartsWholeForAFullTransfer) {
  std::map<uint16_t, PrdbPath> records;
  std::mt19937 rng(9);
  for (uint16_t d = 0; d < 40; ++d) records[d] = Draw(d, &rng);
  const std::string whole = Bytes(Expected(records, 3));
  PrdbImage first(std::make_shared<const std::string>(whole));
  PathUpdate u;
  u.present = true;
  u.path = Draw(5, &rng);
  u.path.sl = static_cast<uint8_t>((records[5].sl + 1) % 16);  // surely other
  records[5] = u.path;
  PatchedPrdb out;
  CHECK_OK(PatchPrdb(first, Digest(whole), 4, {u}, 10, nullptr, &out));
  CHECK(!out.image->whole());
  CHECK(out.image->MadeBytes() == nullptr);
  ssa::tree::Publication pub;
  ssa::tree::DbVersion v{4, out.digest, nullptr, nullptr};
  std::shared_ptr<const PrdbImage> image = out.image;
  v.make_bytes = [image] { return image->Bytes(); };
  pub.Publish(v, nullptr, 0);
  CHECK(!pub.empty());
  std::shared_ptr<const std::string> sent = pub.CurrentBytes();
  CHECK(*sent == Bytes(Expected(records, 4)));
  CHECK_EQUAL(out.digest, Digest(*sent));
  CHECK(image->MadeBytes() == sent);  // made once, kept
  CHECK(pub.CurrentBytes() == sent);
}
