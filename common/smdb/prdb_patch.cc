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

struct Change {
  uint8_t record[kPathSize];
  bool present;
  uint32_t pos;  // lower bound of the key in the old paths
  bool found;    // the old paths have the key at `pos`
};

Status Invalid(const std::string& why) {
  return Status::Error(kErrInvalidInput, "PRDB patch: " + why);
}

PrdbSource DecodeSource(const uint8_t* record) {
  PrdbSource source;
  FieldDecoder dec(record);
  PrdbSource::Fields(source, dec);
  return source;
}

// A serialization checked to have the layout above.
struct LaidOut {
  const uint8_t* p = nullptr;
  uint32_t n_paths = 0;

  SectionHeaderView source_header() const { return SectionHeaderView(p + kSourceHeader); }
  SectionHeaderView paths_header() const { return SectionHeaderView(p + kPathsHeader); }
  const uint8_t* source() const { return p + kSourceRecord; }
  const uint8_t* path(uint32_t i) const { return p + kPaths + size_t{i} * kPathSize; }
};

Status CheckLayout(const std::string& bytes, LaidOut* out) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() < kPaths) return Invalid("not a PRDB of this format version");
  const FileHeaderView fh(p);
  if (fh[file_header::kMagic] != kDbMagic || fh[file_header::kMajor] != kFormatMajor ||
      fh[file_header::kMinor] != kFormatMinor ||
      fh[file_header::kDbType] != static_cast<uint16_t>(DbType::kPrdb) ||
      fh[file_header::kHeaderSize] != kFileHeaderSize || fh[file_header::kTableCount] != 2)
    return Invalid("not a PRDB of this format version");
  const SectionHeaderView sh(p + kSourceHeader), ph(p + kPathsHeader);
  if (sh[section_header::kTableId] != PrdbSource::kTableId ||
      sh[section_header::kHeaderSize] != kSectionHeaderSize ||
      sh[section_header::kRecordSize] != kSourceSize || sh[section_header::kRecordCount] != 1 ||
      ph[section_header::kTableId] != PrdbPath::kTableId ||
      ph[section_header::kHeaderSize] != kSectionHeaderSize ||
      ph[section_header::kRecordSize] != kPathSize)
    return Invalid("unexpected table layout");
  const uint32_t n = ph[section_header::kRecordCount];
  if (bytes.size() != kPaths + size_t{n} * kPathSize) return Invalid("size mismatch");
  out->p = p;
  out->n_paths = n;
  return Status::Ok();
}

// The updates that change something, in key order, each placed in the old
// paths; *shape_changes when a path appears or disappears. EINVAL when a
// pair is updated twice.
Status PlaceChanges(const LaidOut& old, const std::vector<PathUpdate>& updates,
                    std::vector<Change>* effective, bool* shape_changes) {
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
  *shape_changes = false;
  for (Change& c : changes) {
    uint32_t lo = 0, hi = old.n_paths;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (std::memcmp(old.path(mid), c.record, kKeySize) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    c.pos = lo;
    c.found = lo < old.n_paths && std::memcmp(old.path(lo), c.record, kKeySize) == 0;
    if (c.found && c.present && std::memcmp(old.path(lo), c.record, kPathSize) == 0)
      continue;                            // recomputed, unchanged
    if (!c.found && !c.present) continue;  // no path before or after
    *shape_changes |= c.found != c.present;
    effective->push_back(c);
  }
  return Status::Ok();
}

// No path appears or disappears: `bytes` is the old serialization with the
// changed paths overwritten; returns the paths CRC, patched.
uint32_t OverwritePaths(const LaidOut& old, const std::string& old_bytes,
                        const std::vector<Change>& effective, std::string* bytes) {
  *bytes = old_bytes;
  uint8_t* np = reinterpret_cast<uint8_t*>(&(*bytes)[kPaths]);
  const uint64_t total = uint64_t{old.n_paths} * kPathSize;
  uint32_t crc = old.paths_header()[section_header::kPayloadCrc];
  for (const Change& c : effective) {
    uint8_t* at = np + size_t{c.pos} * kPathSize;
    crc = Crc32Patch(crc, total, uint64_t{c.pos} * kPathSize, at, c.record, kPathSize);
    std::memcpy(at, c.record, kPathSize);
  }
  return crc;
}

// Paths appear or disappear: `bytes` is the old serialization up to the
// paths, then the old paths merged with the changes; returns the paths
// CRC, computed, and sets *n_new.
uint32_t MergePaths(const LaidOut& old, const std::string& old_bytes,
                    const std::vector<Change>& effective, std::string* bytes, uint32_t* n_new) {
  const char* old_paths = reinterpret_cast<const char*>(old.path(0));
  bytes->assign(old_bytes, 0, kPaths);
  bytes->reserve(kPaths + (size_t{old.n_paths} + effective.size()) * kPathSize);
  uint32_t at = 0, n = 0;
  for (const Change& c : effective) {
    bytes->append(old_paths + size_t{at} * kPathSize, size_t{c.pos - at} * kPathSize);
    n += c.pos - at;
    at = c.pos;
    if (c.found) ++at;  // replaced or removed
    if (c.present) {
      bytes->append(reinterpret_cast<const char*>(c.record), kPathSize);
      ++n;
    }
  }
  bytes->append(old_paths + size_t{at} * kPathSize, size_t{old.n_paths - at} * kPathSize);
  n += old.n_paths - at;
  *n_new = n;
  return Crc32(reinterpret_cast<const uint8_t*>(bytes->data()) + kPaths, size_t{n} * kPathSize);
}

// The small parts before the paths, rewritten: the source record stamped
// with `epoch`, both section headers and the file header.
void RewriteHeaders(const LaidOut& old, uint64_t epoch, uint32_t n_new, uint32_t paths_crc,
                    uint8_t* b) {
  const DbSchema& schema = Prdb::Schema();
  PrdbSource source = DecodeSource(b + kSourceRecord);
  source.smdb_epoch = epoch;
  EncodeRecord(source, b + kSourceRecord);
  EncodeTableHeader(schema.tables[0], 1, Crc32(b + kSourceRecord, kSourceSize),
                    old.source_header()[section_header::kTableEpoch], b + kSourceHeader);
  EncodeTableHeader(schema.tables[1], n_new, paths_crc,
                    old.paths_header()[section_header::kTableEpoch], b + kPathsHeader);
  EncodeDbHeader(schema, epoch, b);
}

// The delta from `old` to the new bytes `b`, as MakeDelta writes it: the
// tables whose bytes changed.
std::string PatchDelta(const LaidOut& old, const uint8_t* b, uint32_t old_digest,
                       uint32_t new_digest, const std::vector<Change>& effective) {
  const DbSchema& schema = Prdb::Schema();
  const SectionHeaderView new_source(b + kSourceHeader), new_paths(b + kPathsHeader);
  std::string delta(kDeltaHeaderSize, '\0');
  uint32_t sections = 0;
  if (std::memcmp(old.source(), b + kSourceRecord, kSourceSize) != 0) {
    DeltaSectionOut d;
    d.table = &schema.tables[0];
    d.base_count = d.new_count = 1;
    d.base_crc = old.source_header()[section_header::kPayloadCrc];
    d.new_crc = new_source[section_header::kPayloadCrc];
    d.base_epoch = d.new_epoch = new_source[section_header::kTableEpoch];
    d.puts.assign(reinterpret_cast<const char*>(b + kSourceRecord), kSourceSize);
    d.n_puts = 1;
    AppendDeltaSection(d, &delta);
    ++sections;
  }
  if (!effective.empty()) {
    DeltaSectionOut d;
    d.table = &schema.tables[1];
    d.base_count = old.n_paths;
    d.new_count = new_paths[section_header::kRecordCount];
    d.base_crc = old.paths_header()[section_header::kPayloadCrc];
    d.new_crc = new_paths[section_header::kPayloadCrc];
    d.base_epoch = d.new_epoch = new_paths[section_header::kTableEpoch];
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
  SealDeltaHeader(schema, sections, FileHeaderView(old.p)[file_header::kGlobalEpoch],
                  FileHeaderView(b)[file_header::kGlobalEpoch], old_digest, new_digest, &delta);
  return delta;
}

}  // namespace

Status PatchPrdb(const std::string& old_bytes, uint32_t old_digest, uint64_t epoch,
                 std::vector<PathUpdate> updates, PatchedPrdb* out) {
  LaidOut old;
  Status s = CheckLayout(old_bytes, &old);
  if (!s.ok()) return s;
  std::vector<Change> effective;
  bool shape_changes = false;
  s = PlaceChanges(old, updates, &effective, &shape_changes);
  if (!s.ok()) return s;
  uint32_t n_new = old.n_paths;
  uint32_t paths_crc = shape_changes ? MergePaths(old, old_bytes, effective, &out->bytes, &n_new)
                                     : OverwritePaths(old, old_bytes, effective, &out->bytes);
  uint8_t* b = reinterpret_cast<uint8_t*>(&out->bytes[0]);
  RewriteHeaders(old, epoch, n_new, paths_crc, b);
  out->digest = Crc32Combine(Crc32(b, kPaths), paths_crc, uint64_t{n_new} * kPathSize);
  out->changed = effective.size();
  out->paths = n_new;
  out->delta = PatchDelta(old, b, old_digest, out->digest, effective);
  return Status::Ok();
}

Status PrdbSourceOf(const std::string& bytes, PrdbSource* source) {
  LaidOut laid_out;
  Status s = CheckLayout(bytes, &laid_out);
  if (!s.ok()) return s;
  *source = DecodeSource(laid_out.source());
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
