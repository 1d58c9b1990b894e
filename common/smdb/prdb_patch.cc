// prdb_patch.cc: see prdb_patch.h.
#include "common/smdb/prdb_patch.h"

#include <algorithm>
#include <cstring>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {
namespace {

using Override = PrdbImage::Override;
using Overrides = PrdbImage::Overrides;
constexpr size_t kSourceSize = PrdbImage::kSourceSize;
constexpr size_t kPathSize = PrdbImage::kPathSize;
constexpr size_t kKeySize = KeySize<PrdbPath>();
constexpr size_t kSourceHeader = PrdbImage::kSourceHeader;
constexpr size_t kSourceRecord = PrdbImage::kSourceRecord;
constexpr size_t kPathsHeader = PrdbImage::kPathsHeader;
constexpr size_t kPaths = PrdbImage::kHeadSize;

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

// An image checked to have the layout above. Keys are read from the base
// (an override keeps its position's key), records from the image.
struct LaidOut {
  const PrdbImage* image = nullptr;
  const uint8_t* head = nullptr;        // this version's head
  const uint8_t* base_paths = nullptr;  // the base's first path
  uint32_t n_paths = 0;

  SectionHeaderView source_header() const { return SectionHeaderView(head + kSourceHeader); }
  SectionHeaderView paths_header() const { return SectionHeaderView(head + kPathsHeader); }
  const uint8_t* source() const { return head + kSourceRecord; }
  const uint8_t* key(uint32_t i) const { return base_paths + size_t{i} * kPathSize; }
  const uint8_t* path(uint32_t i) const { return image->PathAt(i, base_paths); }
};

Status CheckLayout(const PrdbImage& image, LaidOut* out) {
  if (!image.base() || image.size() < kPaths) return Invalid("not a PRDB of this format version");
  const uint8_t* p = image.head();
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
  if (image.size() != kPaths + size_t{n} * kPathSize) return Invalid("size mismatch");
  out->image = &image;
  out->head = p;
  out->base_paths = reinterpret_cast<const uint8_t*>(image.base()->data()) + kPaths;
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
      if (std::memcmp(old.key(mid), c.record, kKeySize) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    c.pos = lo;
    c.found = lo < old.n_paths && std::memcmp(old.key(lo), c.record, kKeySize) == 0;
    if (c.found && c.present && std::memcmp(old.path(lo), c.record, kPathSize) == 0)
      continue;                            // recomputed, unchanged
    if (!c.found && !c.present) continue;  // no path before or after
    *shape_changes |= c.found != c.present;
    effective->push_back(c);
  }
  return Status::Ok();
}

// The paths CRC with the changed paths overwritten (no path appears or
// disappears), by CRC arithmetic from the old one.
uint32_t PatchedPathsCrc(const LaidOut& old, const std::vector<Change>& effective) {
  const uint64_t total = uint64_t{old.n_paths} * kPathSize;
  uint32_t crc = old.paths_header()[section_header::kPayloadCrc];
  for (const Change& c : effective)
    crc = Crc32Patch(crc, total, uint64_t{c.pos} * kPathSize, old.path(c.pos), c.record, kPathSize);
  return crc;
}

// Old's overrides with the changes put over them (both ascending).
Overrides MergeOverrides(const LaidOut& old, const std::vector<Change>& effective) {
  Overrides out;
  const Overrides* was = old.image->overrides();
  out.reserve((was ? was->size() : 0) + effective.size());
  size_t i = 0;
  for (const Change& c : effective) {
    for (; was && i < was->size() && (*was)[i].pos < c.pos; ++i) out.push_back((*was)[i]);
    if (was && i < was->size() && (*was)[i].pos == c.pos) ++i;  // replaced
    Override o;
    o.pos = c.pos;
    std::memcpy(o.record, c.record, kPathSize);
    out.push_back(o);
  }
  for (; was && i < was->size(); ++i) out.push_back((*was)[i]);
  return out;
}

// Paths appear or disappear: `bytes` is the old version up to the paths,
// then the old paths merged with the changes; returns the paths CRC,
// computed, and sets *n_new.
uint32_t MergePaths(const LaidOut& old, const std::vector<Change>& effective, std::string* bytes,
                    uint32_t* n_new) {
  // The old version whole first: overrides are few next to a merge's copy.
  old.image->Materialize(bytes);
  std::string merged;
  merged.reserve((size_t{old.n_paths} + effective.size()) * kPathSize);
  const char* old_paths = bytes->data() + kPaths;
  uint32_t at = 0, n = 0;
  for (const Change& c : effective) {
    merged.append(old_paths + size_t{at} * kPathSize, size_t{c.pos - at} * kPathSize);
    n += c.pos - at;
    at = c.pos;
    if (c.found) ++at;  // replaced or removed
    if (c.present) {
      merged.append(reinterpret_cast<const char*>(c.record), kPathSize);
      ++n;
    }
  }
  merged.append(old_paths + size_t{at} * kPathSize, size_t{old.n_paths - at} * kPathSize);
  n += old.n_paths - at;
  bytes->resize(kPaths);
  bytes->append(merged);
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
  SealDeltaHeader(schema, sections, FileHeaderView(old.head)[file_header::kGlobalEpoch],
                  FileHeaderView(b)[file_header::kGlobalEpoch], old_digest, new_digest, &delta);
  return delta;
}

}  // namespace

Status PatchPrdb(const PrdbImage& old_image, uint32_t old_digest, uint64_t epoch,
                 std::vector<PathUpdate> updates, size_t max_overrides, BufferRecycler* buffers,
                 PatchedPrdb* out) {
  LaidOut old;
  Status s = CheckLayout(old_image, &old);
  if (!s.ok()) return s;
  std::vector<Change> effective;
  bool shape_changes = false;
  s = PlaceChanges(old, updates, &effective, &shape_changes);
  if (!s.ok()) return s;
  uint32_t n_new = old.n_paths;
  std::string head(reinterpret_cast<const char*>(old.head), kPaths);
  uint8_t* b = reinterpret_cast<uint8_t*>(&head[0]);
  uint32_t paths_crc = 0;
  Overrides overrides;
  if (shape_changes) {
    out->made_whole = true;
  } else {
    paths_crc = PatchedPathsCrc(old, effective);
    overrides = MergeOverrides(old, effective);
    out->made_whole = overrides.size() > max_overrides;
  }
  std::string whole;
  if (out->made_whole) {
    whole = buffers ? buffers->Take(old_image.size()) : std::string();
    if (shape_changes) {
      paths_crc = MergePaths(old, effective, &whole, &n_new);
    } else {
      old_image.Materialize(&whole);
      for (const Change& c : effective)
        std::memcpy(&whole[kPaths + size_t{c.pos} * kPathSize], c.record, kPathSize);
    }
  }
  RewriteHeaders(old, epoch, n_new, paths_crc, b);
  out->digest = Crc32Combine(Crc32(b, kPaths), paths_crc, uint64_t{n_new} * kPathSize);
  out->changed = effective.size();
  out->paths = n_new;
  out->delta = PatchDelta(old, b, old_digest, out->digest, effective);
  if (out->made_whole) {
    std::memcpy(&whole[0], head.data(), kPaths);
    std::shared_ptr<const std::string> shared =
        buffers ? buffers->Share(std::move(whole))
                : std::make_shared<const std::string>(std::move(whole));
    out->image = std::make_shared<const PrdbImage>(std::move(shared));
  } else {
    out->image = std::make_shared<const PrdbImage>(
        old_image.base(), std::move(head), std::make_shared<const Overrides>(std::move(overrides)));
  }
  return Status::Ok();
}

Status PrdbSourceOf(const PrdbImage& image, PrdbSource* source) {
  LaidOut laid_out;
  Status s = CheckLayout(image, &laid_out);
  if (!s.ok()) return s;
  *source = DecodeSource(laid_out.source());
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
