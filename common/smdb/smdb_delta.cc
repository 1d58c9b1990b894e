// smdb_delta.cc: MakeDelta, ApplyDelta and BumpEpochs (smdb_delta.h). Both
// directions work on the byte form of the databases (RawDb): a record is
// its encoding, a key its first key_size bytes, so one merge serves every
// table of every db type. ApplyDeltaKnown and SpliceDelta are in
// smdb_delta_known.cc; what the appliers share in smdb_delta_read.h.
#include "common/smdb/smdb_delta.h"

#include <cstring>
#include <utility>

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_delta_read.h"

namespace ssa {
namespace smdb {
namespace {

// Appends to `removed` the keys of `a` absent from `b`, and to `puts` the
// records of `b` that are new or differ. Both inputs are in strict key order.
void DiffTable(const RawTable& a, const RawTable& b, const TableSchema& t, std::string* removed,
               std::string* puts, uint32_t* n_removed, uint32_t* n_puts) {
  const uint8_t* pa = reinterpret_cast<const uint8_t*>(a.bytes.data());
  const uint8_t* pb = reinterpret_cast<const uint8_t*>(b.bytes.data());
  const size_t rs = t.record_size, ks = t.key_size;
  uint32_t i = 0, j = 0;
  while (i < a.count || j < b.count) {
    const uint8_t* ra = pa + size_t{i} * rs;
    const uint8_t* rb = pb + size_t{j} * rs;
    int c = i >= a.count ? 1 : j >= b.count ? -1 : std::memcmp(ra, rb, ks);
    if (c < 0) {
      removed->append(reinterpret_cast<const char*>(ra), ks);
      ++*n_removed;
      ++i;
    } else if (c > 0) {
      puts->append(reinterpret_cast<const char*>(rb), rs);
      ++*n_puts;
      ++j;
    } else {
      if (std::memcmp(ra, rb, rs) != 0) {
        puts->append(reinterpret_cast<const char*>(rb), rs);
        ++*n_puts;
      }
      ++i;
      ++j;
    }
  }
}

Status MakeRawDelta(const DbSchema& schema, const RawDb& a, const RawDb& b, std::string* delta) {
  std::string out(kDeltaHeaderSize, '\0');
  uint32_t sections = 0;
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    const TableSchema& t = schema.tables[i];
    const RawTable& ta = a.tables[i];
    const RawTable& tb = b.tables[i];
    if (ta.epoch == tb.epoch && ta.bytes == tb.bytes) continue;
    DeltaSectionOut s;
    s.table = &t;
    DiffTable(ta, tb, t, &s.removed, &s.puts, &s.n_removed, &s.n_puts);
    s.base_count = ta.count;
    s.new_count = tb.count;
    s.base_crc = Crc32(reinterpret_cast<const uint8_t*>(ta.bytes.data()), ta.bytes.size());
    s.new_crc = Crc32(reinterpret_cast<const uint8_t*>(tb.bytes.data()), tb.bytes.size());
    s.base_epoch = ta.epoch;
    s.new_epoch = tb.epoch;
    AppendDeltaSection(s, &out);
    ++sections;
  }
  SealDeltaHeader(schema, sections, a.global_epoch, b.global_epoch, DigestRaw(schema, a),
                  DigestRaw(schema, b), &out);
  *delta = std::move(out);
  return Status::Ok();
}

// Reads and applies one section at p[0, avail) to `db`; *used = its size.
Status ApplySection(const DbSchema& schema, const uint8_t* p, size_t avail, int* last_id, RawDb* db,
                    size_t* used) {
  namespace f = delta_section;
  DeltaSection sec;
  Status s = ReadSectionHeader(schema, p, avail, last_id, &sec);
  if (!s.ok()) return s;
  RawTable& table = db->tables[sec.index];
  uint32_t have_crc =
      Crc32(reinterpret_cast<const uint8_t*>(table.bytes.data()), table.bytes.size());
  s = CheckBaseTable(sec, table.count, table.epoch, have_crc);
  if (s.ok()) s = LocateChanges(avail, &sec);
  if (!s.ok()) return s;
  const DeltaSectionView h = sec.header();
  std::string merged;
  s = MergeChecked(schema, *sec.table, table, sec.ops, sec.where, h[f::kNewCount], h[f::kNewCrc],
                   &merged);
  if (!s.ok()) return s;
  table.bytes = std::move(merged);
  table.count = h[f::kNewCount];
  table.epoch = h[f::kNewEpoch];
  *used = sec.size;
  return Status::Ok();
}

template <class Db>
Status MakeDeltaT(const Db& old, const Db& neu, std::string* delta) {
  RawDb a, b;
  Status s = ToRaw(old, /*validate=*/true, &a);
  if (!s.ok()) return s.WithContext("delta base");
  s = ToRaw(neu, /*validate=*/true, &b);
  if (!s.ok()) return s.WithContext("delta target");
  return MakeRawDelta(Db::Schema(), a, b, delta);
}

template <class Db>
Status ApplyDeltaT(const Db& old, const uint8_t* p, size_t len, Db* out) {
  const DbSchema& schema = Db::Schema();
  DeltaHeader h;
  Status s = ReadDeltaHeader(schema, p, len, &h);
  if (!s.ok()) return s;
  RawDb db;
  s = ToRaw(old, /*validate=*/true, &db);
  if (!s.ok()) return s.WithContext("delta base");
  uint32_t have_digest = DigestRaw(schema, db);
  if (db.global_epoch != h.base_epoch || have_digest != h.base_digest)
    return WrongBase(schema, h, db.global_epoch, have_digest);
  size_t off = h.size;
  int last_id = -1;
  for (uint32_t i = 0; i < h.sections; ++i) {
    size_t used = 0;
    s = ApplySection(schema, p + off, len - off, &last_id, &db, &used);
    if (!s.ok()) return s;
    off += used;
  }
  s = CheckNoTail(schema, off, len);
  if (!s.ok()) return s;
  db.global_epoch = h.new_epoch;
  s = CheckResultDigest(schema, h, DigestRaw(schema, db));
  if (!s.ok()) return s;
  FromRaw(db, out);
  return Status::Ok();
}

template <class Db>
void BumpEpochsT(const Db& previous, Db* next) {
  RawDb a, b;
  ToRaw(previous, /*validate=*/false, &a);
  ToRaw(*next, /*validate=*/false, &b);
  bool changed = false;
  size_t i = 0;
  Db::ForEachTable(*next, [&](auto& table) {
    if (a.tables[i].count == b.tables[i].count && a.tables[i].bytes == b.tables[i].bytes) {
      table.epoch = a.tables[i].epoch;
    } else {
      table.epoch = previous.global_epoch + 1;
      changed = true;
    }
    ++i;
  });
  next->global_epoch = previous.global_epoch + (changed ? 1 : 0);
}

}  // namespace

void AppendDeltaSection(const DeltaSectionOut& s, std::string* out) {
  namespace f = delta_section;
  const TableSchema& t = *s.table;
  uint8_t h[kDeltaSectionHeaderSize] = {};
  PutSectionStart(h, t.id, kDeltaSectionHeaderSize, t.record_size);
  f::kKeySize.Put(h, t.key_size);
  f::kBaseCount.Put(h, s.base_count);
  f::kNewCount.Put(h, s.new_count);
  f::kRemovedCount.Put(h, s.n_removed);
  f::kPutCount.Put(h, s.n_puts);
  f::kBaseCrc.Put(h, s.base_crc);
  f::kBaseEpoch.Put(h, s.base_epoch);
  f::kNewEpoch.Put(h, s.new_epoch);
  f::kNewCrc.Put(h, s.new_crc);
  uint32_t ops_crc = Crc32(reinterpret_cast<const uint8_t*>(s.removed.data()), s.removed.size());
  f::kOpsCrc.Put(h, Crc32(reinterpret_cast<const uint8_t*>(s.puts.data()), s.puts.size(), ops_crc));
  SealHeader(h, sizeof(h), f::kCrc.offset);
  out->append(reinterpret_cast<const char*>(h), sizeof(h));
  *out += s.removed;
  *out += s.puts;
}

void SealDeltaHeader(const DbSchema& schema, uint32_t sections, uint64_t base_epoch,
                     uint64_t new_epoch, uint32_t base_digest, uint32_t new_digest,
                     std::string* out) {
  namespace f = delta_header;
  uint8_t* h = reinterpret_cast<uint8_t*>(&(*out)[0]);
  PutHeaderStart(h, kDeltaMagic, kFormatMajor, kFormatMinor, static_cast<uint16_t>(schema.type),
                 kDeltaHeaderSize);
  f::kSectionCount.Put(h, sections);
  f::kBaseGlobalEpoch.Put(h, base_epoch);
  f::kNewGlobalEpoch.Put(h, new_epoch);
  f::kBaseDigest.Put(h, base_digest);
  f::kNewDigest.Put(h, new_digest);
  f::kReserved.Put(h, 0);
  SealHeader(h, kDeltaHeaderSize, f::kCrc.offset);
}

Status MakeDelta(const Smdb& old, const Smdb& neu, std::string* delta) {
  return MakeDeltaT(old, neu, delta);
}
Status MakeDelta(const Prdb& old, const Prdb& neu, std::string* delta) {
  return MakeDeltaT(old, neu, delta);
}
Status ApplyDelta(const Smdb& old, const uint8_t* delta, size_t len, Smdb* out) {
  return ApplyDeltaT(old, delta, len, out);
}
Status ApplyDelta(const Prdb& old, const uint8_t* delta, size_t len, Prdb* out) {
  return ApplyDeltaT(old, delta, len, out);
}
void BumpEpochs(const Smdb& previous, Smdb* next) { BumpEpochsT(previous, next); }
void BumpEpochs(const Prdb& previous, Prdb* next) { BumpEpochsT(previous, next); }
Status MakeDelta(const AddrDb& old, const AddrDb& neu, std::string* delta) {
  return MakeDeltaT(old, neu, delta);
}
Status ApplyDelta(const AddrDb& old, const uint8_t* delta, size_t len, AddrDb* out) {
  return ApplyDeltaT(old, delta, len, out);
}
void BumpEpochs(const AddrDb& previous, AddrDb* next) { BumpEpochsT(previous, next); }

}  // namespace smdb
}  // namespace ssa
