// prdb_patch.cc: see prdb_patch.h.
#include "common/smdb/prdb_patch.h"

#include <algorithm>
#include <cstring>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {
namespace {

constexpr size_t kSourceSize = WireSize<PrdbSource>();
constexpr size_t kPathSize = WireSize<PrdbPath>();
constexpr size_t kKeySize = KeySize<PrdbPath>();
// The layout of a PRDB of this format version: file header, source
// section header and its one record, paths section header, paths.
constexpr size_t kSourceHeader = kFileHeaderSize;
constexpr size_t kSourceRecord = kSourceHeader + kSectionHeaderSize;
constexpr size_t kPathsHeader = kSourceRecord + kSourceSize;
constexpr size_t kPaths = kPathsHeader + kSectionHeaderSize;
// PrdbSource::smdb_epoch: after port_guid, subnet_prefix, base_lid, lmc.
constexpr size_t kSourceEpochOffset = 8 + 8 + 2 + 1;

struct Change {
  uint8_t record[kPathSize];
  bool present;
  uint32_t pos;  // lower bound of the key in the old paths
  bool found;    // the old paths have the key at `pos`
};

Status Invalid(const std::string& why) {
  return Status::Error(kErrInvalidInput, "PRDB patch: " + why);
}

}  // namespace

Status PatchPrdb(const std::string& old_bytes, uint32_t old_digest, uint64_t epoch,
                 std::vector<PathUpdate> updates, PatchedPrdb* out) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(old_bytes.data());
  if (old_bytes.size() < kPaths || GetBe32(p) != kDbMagic || GetBe16(p + 4) != kFormatMajor ||
      GetBe16(p + 6) != kFormatMinor || GetBe16(p + 8) != static_cast<uint16_t>(DbType::kPrdb) ||
      GetBe16(p + 10) != kFileHeaderSize || GetBe32(p + 12) != 2)
    return Invalid("not a PRDB of this format version");
  const uint8_t* sh = p + kSourceHeader;
  const uint8_t* ph = p + kPathsHeader;
  if (GetBe16(sh) != PrdbSource::kTableId || GetBe16(sh + 2) != kSectionHeaderSize ||
      GetBe32(sh + 4) != kSourceSize || GetBe32(sh + 8) != 1 || GetBe16(ph) != PrdbPath::kTableId ||
      GetBe16(ph + 2) != kSectionHeaderSize || GetBe32(ph + 4) != kPathSize)
    return Invalid("unexpected table layout");
  const uint32_t n_old = GetBe32(ph + 8);
  if (old_bytes.size() != kPaths + size_t{n_old} * kPathSize) return Invalid("size mismatch");
  const uint8_t* old_paths = p + kPaths;
  const uint32_t old_paths_crc = GetBe32(ph + 12);

  // The changes, in key order, each placed in the old paths.
  std::vector<Change> changes;
  changes.reserve(updates.size());
  for (const PathUpdate& u : updates) {
    Change c;
    EncodeRecord(u.path, c.record);
    c.present = u.present;
    changes.push_back(c);
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return std::memcmp(a.record, b.record, kKeySize) < 0;
  });
  for (size_t i = 1; i < changes.size(); ++i)
    if (std::memcmp(changes[i - 1].record, changes[i].record, kKeySize) == 0)
      return Invalid("a pair is updated twice");
  bool shape_changes = false;  // a path appears or disappears
  std::vector<Change> effective;
  for (Change& c : changes) {
    uint32_t lo = 0, hi = n_old;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (std::memcmp(old_paths + size_t{mid} * kPathSize, c.record, kKeySize) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    c.pos = lo;
    c.found =
        lo < n_old && std::memcmp(old_paths + size_t{lo} * kPathSize, c.record, kKeySize) == 0;
    if (c.found && c.present &&
        std::memcmp(old_paths + size_t{lo} * kPathSize, c.record, kPathSize) == 0)
      continue;                            // recomputed, unchanged
    if (!c.found && !c.present) continue;  // no path before or after
    shape_changes |= c.found != c.present;
    effective.push_back(c);
  }

  // The new paths payload and its CRC.
  std::string& bytes = out->bytes;
  uint32_t n_new = n_old;
  uint32_t paths_crc = old_paths_crc;
  if (!shape_changes) {
    bytes = old_bytes;
    uint8_t* np = reinterpret_cast<uint8_t*>(&bytes[kPaths]);
    const uint64_t total = uint64_t{n_old} * kPathSize;
    for (const Change& c : effective) {
      uint8_t* at = np + size_t{c.pos} * kPathSize;
      paths_crc =
          Crc32Patch(paths_crc, total, uint64_t{c.pos} * kPathSize, at, c.record, kPathSize);
      std::memcpy(at, c.record, kPathSize);
    }
  } else {
    bytes.assign(old_bytes, 0, kPaths);
    bytes.reserve(kPaths + (size_t{n_old} + effective.size()) * kPathSize);
    uint32_t at = 0;
    n_new = 0;
    for (const Change& c : effective) {
      bytes.append(reinterpret_cast<const char*>(old_paths) + size_t{at} * kPathSize,
                   size_t{c.pos - at} * kPathSize);
      n_new += c.pos - at;
      at = c.pos;
      if (c.found) ++at;  // replaced or removed
      if (c.present) {
        bytes.append(reinterpret_cast<const char*>(c.record), kPathSize);
        ++n_new;
      }
    }
    bytes.append(reinterpret_cast<const char*>(old_paths) + size_t{at} * kPathSize,
                 size_t{n_old - at} * kPathSize);
    n_new += n_old - at;
    paths_crc =
        Crc32(reinterpret_cast<const uint8_t*>(bytes.data()) + kPaths, size_t{n_new} * kPathSize);
  }

  // Source record, section headers and file header: small, rewritten.
  uint8_t* b = reinterpret_cast<uint8_t*>(&bytes[0]);
  PutBe64(b + kSourceRecord + kSourceEpochOffset, epoch);
  const uint32_t old_source_crc = GetBe32(sh + 12);
  const uint32_t source_crc = Crc32(b + kSourceRecord, kSourceSize);
  SectionHeader s;
  s.table_id = PrdbSource::kTableId;
  s.record_size = kSourceSize;
  s.record_count = 1;
  s.payload_crc = source_crc;
  s.table_epoch = GetBe64(sh + 16);
  EncodeSectionHeader(s, b + kSourceHeader);
  SectionHeader ps;
  ps.table_id = PrdbPath::kTableId;
  ps.record_size = kPathSize;
  ps.record_count = n_new;
  ps.payload_crc = paths_crc;
  ps.table_epoch = GetBe64(ph + 16);
  EncodeSectionHeader(ps, b + kPathsHeader);
  FileHeader fh;
  fh.db_type = static_cast<uint16_t>(DbType::kPrdb);
  fh.table_count = 2;
  fh.global_epoch = epoch;
  EncodeFileHeader(fh, b);
  out->digest = Crc32Combine(Crc32(b, kPaths), paths_crc, uint64_t{n_new} * kPathSize);
  out->changed = effective.size();

  // The delta, as MakeDelta writes it: the tables whose bytes changed.
  const DbSchema& schema = Prdb::Schema();
  std::string delta(kDeltaHeaderSize, '\0');
  uint32_t sections = 0;
  if (std::memcmp(p + kSourceRecord, b + kSourceRecord, kSourceSize) != 0) {
    DeltaSectionOut d;
    d.table = &schema.tables[0];
    d.base_count = d.new_count = 1;
    d.base_crc = old_source_crc;
    d.new_crc = source_crc;
    d.base_epoch = d.new_epoch = s.table_epoch;
    d.puts.assign(reinterpret_cast<const char*>(b + kSourceRecord), kSourceSize);
    d.n_puts = 1;
    AppendDeltaSection(d, &delta);
    ++sections;
  }
  if (!effective.empty()) {
    DeltaSectionOut d;
    d.table = &schema.tables[1];
    d.base_count = n_old;
    d.new_count = n_new;
    d.base_crc = old_paths_crc;
    d.new_crc = paths_crc;
    d.base_epoch = d.new_epoch = ps.table_epoch;
    for (const Change& c : effective) {
      if (!c.present) {
        d.removed.append(reinterpret_cast<const char*>(c.record), kKeySize);
        ++d.n_removed;
      } else {
        d.puts.append(reinterpret_cast<const char*>(c.record), kPathSize);
        ++d.n_puts;
      }
    }
    AppendDeltaSection(d, &delta);
    ++sections;
  }
  SealDeltaHeader(schema, sections, GetBe64(p + 16), epoch, old_digest, out->digest, &delta);
  out->delta = std::move(delta);
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
