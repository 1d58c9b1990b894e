// smdb_delta_known.cc: ApplyDeltaKnown, SpliceDelta and DbCrcsOf
// (smdb_delta.h): a delta applied by a holder that knows its database's
// CRCs, to the typed tables and to the serialization, touching only what
// the delta changes.
#include "common/smdb/smdb_delta.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_delta_read.h"

namespace ssa {
namespace smdb {
namespace {

// The digest of a database from its header fields and table CRCs.
template <class Db>
uint32_t DigestFromCrcs(const Db& db, const std::vector<uint32_t>& crcs) {
  const DbSchema& schema = Db::Schema();
  uint8_t header[kFileHeaderSize];
  EncodeDbHeader(schema, db.global_epoch, header);
  uint32_t crc = Crc32(header, sizeof(header));
  size_t i = 0;
  Db::ForEachTable(db, [&](const auto& table) {
    const TableSchema& t = schema.tables[i];
    const uint32_t count = static_cast<uint32_t>(table.records.size());
    uint8_t section[kSectionHeaderSize];
    EncodeTableHeader(t, count, crcs[i], table.epoch, section);
    crc = Crc32(section, sizeof(section), crc);
    crc = Crc32Combine(crc, crcs[i], uint64_t{count} * t.record_size);
    ++i;
  });
  return crc;
}

// The index in `records` (sorted by key) of the record each put replaces,
// in put order, into *at; false when some put's key is not there (the puts
// ascend, so each search starts after the previous one's record).
template <class R>
bool FindReplacedRecords(const std::vector<R>& records, const DeltaOps& ops, size_t rs, size_t ks,
                         std::vector<size_t>* at) {
  uint8_t buf[WireSize<R>()];
  for (uint32_t k = 0; k < ops.n_puts; ++k) {
    const uint8_t* put = ops.puts + size_t{k} * rs;
    const size_t from = at->empty() ? 0 : at->back() + 1;
    const size_t lo = LowerBoundFrom(from, records.size(), [&](size_t i) {
      EncodeRecord(records[i], buf);
      return std::memcmp(buf, put, ks) < 0;
    });
    if (lo < records.size()) EncodeRecord(records[lo], buf);
    bool found = lo < records.size() && std::memcmp(buf, put, ks) == 0;
    at->push_back(lo);
    if (!found) return false;
  }
  return true;
}

// The section's puts replace the records at `at`: the table CRC follows by
// CRC arithmetic over the replaced records, and must come to new_crc
// before any record is touched.
template <class R>
Status ReplaceRecords(const DeltaSection& sec, const std::vector<size_t>& at, uint32_t crc,
                      std::vector<R>* records) {
  namespace f = delta_section;
  const size_t rs = sec.table->record_size;
  const DeltaOps& ops = sec.ops;
  const uint64_t total = uint64_t{sec.header()[f::kBaseCount]} * rs;
  uint8_t buf[WireSize<R>()];
  for (uint32_t k = 0; k < ops.n_puts; ++k) {
    const uint8_t* put = ops.puts + size_t{k} * rs;
    EncodeRecord((*records)[at[k]], buf);
    crc = Crc32Patch(crc, total, uint64_t{at[k]} * rs, buf, put, rs);
  }
  if (crc != sec.header()[f::kNewCrc]) return sec.Corrupt("result table CRC mismatch");
  for (uint32_t k = 0; k < ops.n_puts; ++k) {
    FieldDecoder dec(ops.puts + size_t{k} * rs);
    R::Fields((*records)[at[k]], dec);
  }
  return Status::Ok();
}

// The section's changes merged into the encoded table, checked, and decoded
// again.
template <class R>
Status MergeRecords(const DbSchema& schema, const DeltaSection& sec, std::vector<R>* records) {
  namespace f = delta_section;
  const DeltaSectionView h = sec.header();
  RawTable raw;
  raw.count = h[f::kBaseCount];
  raw.bytes = EncodeRecords(*records);
  std::string merged;
  Status s = MergeChecked(schema, *sec.table, raw, sec.ops, sec.where, h[f::kNewCount],
                          h[f::kNewCrc], &merged);
  if (!s.ok()) return s;
  DecodeRecords(reinterpret_cast<const uint8_t*>(merged.data()), h[f::kNewCount],
                sec.table->record_size, records);
  return Status::Ok();
}

// One delta section, its header read, applied to a typed table whose
// payload CRC is *crc. A section that only replaces records (same keys)
// is applied in place; any other is merged.
template <class R>
Status ApplyTypedSection(const DbSchema& schema, size_t avail, DeltaSection* sec, DbTable<R>* table,
                         uint32_t* crc) {
  namespace f = delta_section;
  Status s = CheckBaseTable(*sec, table->records.size(), table->epoch, *crc);
  if (s.ok()) s = LocateChanges(avail, sec);
  if (!s.ok()) return s;
  const size_t rs = sec->table->record_size, ks = sec->table->key_size;
  const DeltaOps& ops = sec->ops;
  s = CheckStrictOrder(ops.removed, ops.n_removed, ks, ks, sec->where, "removed keys");
  if (s.ok()) s = CheckStrictOrder(ops.puts, ops.n_puts, rs, ks, sec->where, "put records");
  if (!s.ok()) return s;
  const DeltaSectionView h = sec->header();
  std::vector<size_t> at;
  bool in_place = ops.n_removed == 0 && h[f::kNewCount] == h[f::kBaseCount] && ks > 0 &&
                  FindReplacedRecords(table->records, ops, rs, ks, &at);
  s = in_place ? ReplaceRecords(*sec, at, *crc, &table->records)
               : MergeRecords(schema, *sec, &table->records);
  if (!s.ok()) return s;
  *crc = h[f::kNewCrc];
  table->epoch = h[f::kNewEpoch];
  return Status::Ok();
}

// *out made `old` again when it holds the version `made_old` turned into
// `old` (ApplyDeltaKnown's caller proves it): a table made_old does not
// name is the same in both; one whose records it only replaced differs
// only in those records (found by key in `old`, at the same index in
// *out); any other is copied whole. False when made_old's sections cannot
// be found (then nothing was written).
template <class Db>
bool CatchUpTables(const Db& old, const std::string& made_old, Db* out) {
  const DbSchema& schema = Db::Schema();
  const uint8_t* m = reinterpret_cast<const uint8_t*>(made_old.data());
  std::vector<const uint8_t*> sec;
  if (made_old.size() < kDeltaHeaderSize || !FindDeltaSections(schema, m, made_old.size(), &sec))
    return false;
  size_t i = 0;
  Db::ForEachTable(*out, [&](auto& to) {
    const size_t index = i++;
    if (!sec[index]) return;
    size_t k = 0;
    Db::ForEachTable(old, [&](const auto& from) {
      if (k++ != index) return;
      if constexpr (std::is_same<decltype(to.records), decltype(from.records)>::value) {
        const TableSchema& t = schema.tables[index];
        const DeltaOps ops = OpsOf(t, sec[index]);
        std::vector<size_t> at;
        if (OnlyReplaces(t, sec[index], ops) && to.records.size() == from.records.size() &&
            FindReplacedRecords(from.records, ops, t.record_size, t.key_size, &at)) {
          for (size_t a : at) to.records[a] = from.records[a];
        } else {
          to.records = from.records;
        }
        to.epoch = from.epoch;
      }
    });
  });
  out->global_epoch = old.global_epoch;
  return true;
}

template <class Db>
Status ApplyDeltaKnownT(const Db& old, const DbCrcs& oc, const uint8_t* p, size_t len, Db* out,
                        DbCrcs* out_crcs, const std::string* made_old) {
  const DbSchema& schema = Db::Schema();
  const std::string what = DeltaWhat(schema);
  if (oc.tables.size() != schema.tables.size())
    return Status::Error(kErrInvalidInput, what + ": the holder's table CRCs do not fit");
  DeltaHeader h;
  Status s = ReadDeltaHeader(schema, p, len, &h);
  if (!s.ok()) return s;
  if (old.global_epoch != h.base_epoch || oc.digest != h.base_digest)
    return WrongBase(schema, h, old.global_epoch, oc.digest);
  // Built in *out, whose vectors keep their storage when it suffices (a
  // holder that recycles its released version writes into memory already
  // touched; see tree::DbReplica), from only what changed since when its
  // holder knows what *out holds.
  Db& db = *out;
  if (!made_old || !CatchUpTables(old, *made_old, &db)) db = old;
  DbCrcs crcs = oc;
  size_t off = h.size;
  int last_id = -1;
  for (uint32_t i = 0; i < h.sections; ++i) {
    DeltaSection sec;
    s = ReadSectionHeader(schema, p + off, len - off, &last_id, &sec);
    if (!s.ok()) return s;
    size_t k = 0;
    Db::ForEachTable(db, [&](auto& table) {
      if (k++ != sec.index) return;
      s = ApplyTypedSection(schema, len - off, &sec, &table, &crcs.tables[sec.index]);
    });
    if (!s.ok()) return s;
    off += sec.size;
  }
  s = CheckNoTail(schema, off, len);
  if (!s.ok()) return s;
  db.global_epoch = h.new_epoch;
  crcs.digest = DigestFromCrcs(db, crcs.tables);
  s = CheckResultDigest(schema, h, crcs.digest);
  if (!s.ok()) return s;
  *out_crcs = std::move(crcs);
  return Status::Ok();
}

}  // namespace

Status ApplyDeltaKnown(const Smdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Smdb* out, DbCrcs* out_crcs, const std::string* made_old) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs, made_old);
}
Status ApplyDeltaKnown(const Prdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Prdb* out, DbCrcs* out_crcs, const std::string* made_old) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs, made_old);
}
Status ApplyDeltaKnown(const AddrDb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       AddrDb* out, DbCrcs* out_crcs, const std::string* made_old) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs, made_old);
}

// SpliceDelta's phases (smdb_delta_read.h), shared with its catch-up
// (smdb_delta_catch_up.cc).

bool FindTableSections(const DbSchema& schema, const std::string& old, std::vector<size_t>* at) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(old.data());
  const size_t n = old.size();
  if (n < kFileHeaderSize) return false;
  const FileHeaderView fh(p);
  if (fh[file_header::kMagic] != kDbMagic || fh[file_header::kHeaderSize] != kFileHeaderSize ||
      fh[file_header::kTableCount] != schema.tables.size())
    return false;
  at->resize(schema.tables.size());
  size_t off = kFileHeaderSize;
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    if (off + kSectionHeaderSize > n) return false;
    const SectionHeaderView h(p + off);
    if (h[section_header::kTableId] != schema.tables[i].id ||
        h[section_header::kHeaderSize] != kSectionHeaderSize ||
        h[section_header::kRecordSize] != schema.tables[i].record_size)
      return false;
    (*at)[i] = off;
    off += kSectionHeaderSize + PayloadSize(h);
    if (off > n) return false;
  }
  return off == n;
}

bool FindDeltaSections(const DbSchema& schema, const uint8_t* d, size_t len,
                       std::vector<const uint8_t*>* sec) {
  sec->assign(schema.tables.size(), nullptr);
  const DeltaHeaderView dh(d);
  size_t doff = dh[delta_header::kHeaderSize];
  for (uint32_t k = 0; k < dh[delta_header::kSectionCount]; ++k) {
    if (doff + kDeltaSectionHeaderSize > len) return false;
    const DeltaSectionView s(d + doff);
    int index = schema.IndexOf(s[delta_section::kTableId]);
    if (index < 0) return false;
    (*sec)[static_cast<size_t>(index)] = d + doff;
    doff += s[delta_section::kHeaderSize] + ChangesSize(s);
  }
  return true;
}

DeltaOps OpsOf(const TableSchema& t, const uint8_t* sec) {
  const DeltaSectionView s(sec);
  DeltaOps ops{nullptr, s[delta_section::kRemovedCount], nullptr, s[delta_section::kPutCount]};
  ops.removed = sec + s[delta_section::kHeaderSize];
  ops.puts = ops.removed + size_t{ops.n_removed} * t.key_size;
  return ops;
}

bool OnlyReplaces(const TableSchema& t, const uint8_t* sec, const DeltaOps& ops) {
  const DeltaSectionView s(sec);
  return ops.n_removed == 0 && s[delta_section::kNewCount] == s[delta_section::kBaseCount] &&
         t.key_size > 0;
}

bool ReplaceInPlace(const TableSchema& t, uint8_t* q, uint32_t count, const DeltaOps& ops) {
  const size_t rs = t.record_size, ks = t.key_size;
  size_t lo = 0;
  for (uint32_t k = 0; k < ops.n_puts; ++k) {
    const uint8_t* put = ops.puts + size_t{k} * rs;
    lo = LowerBoundFrom(lo, count, [&](size_t i) { return std::memcmp(q + i * rs, put, ks) < 0; });
    if (lo >= count || std::memcmp(q + size_t{lo} * rs, put, ks) != 0) return false;
    std::memcpy(q + size_t{lo} * rs, put, rs);
    ++lo;  // puts ascend
  }
  return true;
}

Status SpliceSection(const TableSchema& t, const uint8_t* sec, const uint8_t* payload,
                     uint32_t count, std::string* out) {
  const DeltaOps ops = OpsOf(t, sec);
  if (OnlyReplaces(t, sec, ops) && DeltaSectionView(sec)[delta_section::kBaseCount] == count) {
    const size_t base = out->size();
    out->append(reinterpret_cast<const char*>(payload), size_t{count} * t.record_size);
    if (!ReplaceInPlace(t, reinterpret_cast<uint8_t*>(&(*out)[base]), count, ops))
      return Status::Error(kErrInvalidInput, "splice: a put's key is not in the table");
    return Status::Ok();
  }
  RawTable raw;
  raw.count = count;
  raw.bytes.assign(reinterpret_cast<const char*>(payload), size_t{count} * t.record_size);
  std::string merged;
  Status st = MergeTable(raw, ops, t, "splice", &merged);
  if (st.ok()) *out += merged;
  return st;
}

Status SpliceDelta(const DbSchema& schema, const std::string& old_bytes, const uint8_t* d,
                   size_t len, std::string* out) {
  auto bad = [] { return Status::Error(kErrInvalidInput, "not a serialization to splice into"); };
  std::vector<size_t> at;
  std::vector<const uint8_t*> sec;
  if (!FindTableSections(schema, old_bytes, &at) || len < kDeltaHeaderSize ||
      !FindDeltaSections(schema, d, len, &sec))
    return bad();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(old_bytes.data());
  // Into *out's storage (a recycled buffer keeps its capacity), with room
  // for the result and 1/64 more (BufferRecycler's headroom): a version a
  // few records bigger must not move the whole buffer to new memory, and a
  // recycled buffer then holds the next few such versions.
  size_t size = kFileHeaderSize;
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    const uint32_t count = sec[i] ? DeltaSectionView(sec[i])[delta_section::kNewCount]
                                  : SectionHeaderView(p + at[i])[section_header::kRecordCount];
    size += kSectionHeaderSize + size_t{count} * schema.tables[i].record_size;
  }
  std::string& o = *out;
  o.clear();
  if (o.capacity() < size) o.reserve(size + size / 64);
  o.append(old_bytes, 0, kFileHeaderSize);
  EncodeDbHeader(schema, DeltaHeaderView(d)[delta_header::kNewGlobalEpoch],
                 reinterpret_cast<uint8_t*>(&o[0]));
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    const SectionHeaderView h(p + at[i]);
    const TableSchema& t = schema.tables[i];
    const uint32_t count = h[section_header::kRecordCount];
    const uint8_t* payload = p + at[i] + kSectionHeaderSize;
    if (!sec[i]) {  // untouched: header and records as they were
      o.append(reinterpret_cast<const char*>(p + at[i]),
               kSectionHeaderSize + size_t{count} * t.record_size);
      continue;
    }
    const DeltaSectionView s(sec[i]);
    uint8_t hb[kSectionHeaderSize];
    EncodeTableHeader(t, s[delta_section::kNewCount], s[delta_section::kNewCrc],
                      s[delta_section::kNewEpoch], hb);
    o.append(reinterpret_cast<const char*>(hb), sizeof(hb));
    Status st = SpliceSection(t, sec[i], payload, count, &o);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status DbCrcsOf(const uint8_t* p, size_t len, DbCrcs* out) {
  auto bad = [] { return Status::Error(kErrInvalidInput, "not a database serialization"); };
  if (len < kFileHeaderSize) return bad();
  const FileHeaderView fh(p);
  if (fh[file_header::kMagic] != kDbMagic) return bad();
  DbCrcs c;
  size_t off = fh[file_header::kHeaderSize];
  uint32_t tables = fh[file_header::kTableCount];
  for (uint32_t i = 0; i < tables; ++i) {
    if (off + kSectionHeaderSize > len) return bad();
    const SectionHeaderView h(p + off);
    c.tables.push_back(h[section_header::kPayloadCrc]);
    off += h[section_header::kHeaderSize] + PayloadSize(h);
    if (off > len) return bad();
  }
  if (off != len) return bad();
  *out = std::move(c);
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
