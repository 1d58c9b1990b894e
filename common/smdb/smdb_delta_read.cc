// smdb_delta_read.cc: see smdb_delta_read.h.
#include "common/smdb/smdb_delta_read.h"

#include <cstring>

namespace ssa {
namespace smdb {

std::string DeltaWhat(const DbSchema& schema) { return std::string(schema.name()) + " delta"; }

Status ReadDeltaHeader(const DbSchema& schema, const uint8_t* p, size_t len, DeltaHeader* h) {
  namespace f = delta_header;
  const std::string what = DeltaWhat(schema);
  if (len < kDeltaHeaderSize) {
    return Status::Error(kErrCorrupt, what + ": truncated in the header (" + std::to_string(len) +
                                          " of " + std::to_string(kDeltaHeaderSize) + " bytes)");
  }
  Status s = CheckHeaderStart(p, kDeltaMagic, kDeltaHeaderSize, what, &h->size);
  if (!s.ok()) return s;
  const DeltaHeaderView v(p);
  uint16_t minor = v[f::kMinor];
  if (minor != kFormatMinor) {
    return Status::Error(kErrVersion,
                         what + ": format minor " + std::to_string(minor) +
                             " differs from this reader's " + std::to_string(kFormatMinor) +
                             "; deltas apply only within one minor: fetch the full database");
  }
  if (!HeaderCrcMatches(p, h->size, f::kCrc.offset))
    return Status::Error(kErrCorrupt, what + ": header CRC mismatch");
  if (v[f::kReserved] != 0)
    return Status::Error(kErrCorrupt, what + ": header reserved field is not zero");
  uint16_t db_type = v[f::kDbType];
  if (db_type != static_cast<uint16_t>(schema.type)) {
    return Status::Error(kErrCorrupt, what + ": the delta is for db_type " +
                                          std::to_string(db_type) + " (" + DbTypeName(db_type) +
                                          ")");
  }
  h->sections = v[f::kSectionCount];
  h->base_epoch = v[f::kBaseGlobalEpoch];
  h->new_epoch = v[f::kNewGlobalEpoch];
  h->base_digest = v[f::kBaseDigest];
  h->new_digest = v[f::kNewDigest];
  return Status::Ok();
}

Status WrongBase(const DbSchema& schema, const DeltaHeader& h, uint64_t epoch, uint32_t digest) {
  return Status::Error(kErrWrongBase,
                       DeltaWhat(schema) + ": wrong base: the delta applies to global epoch " +
                           std::to_string(h.base_epoch) + " (digest " + Hex32(h.base_digest) +
                           "), this database is epoch " + std::to_string(epoch) + " (digest " +
                           Hex32(digest) + ")");
}

Status CheckNoTail(const DbSchema& schema, size_t off, size_t len) {
  if (off == len) return Status::Ok();
  return Status::Error(kErrCorrupt, DeltaWhat(schema) + ": " + std::to_string(len - off) +
                                        " unexpected bytes after the last section");
}

Status CheckResultDigest(const DbSchema& schema, const DeltaHeader& h, uint32_t digest) {
  if (digest == h.new_digest) return Status::Ok();
  return Status::Error(kErrCorrupt, DeltaWhat(schema) + ": result digest mismatch (expected " +
                                        Hex32(h.new_digest) + ")");
}

Status DeltaSection::Corrupt(const std::string& why) const {
  return Status::Error(kErrCorrupt, where + ": " + why);
}

Status ReadSectionHeader(const DbSchema& schema, const uint8_t* p, size_t avail, int* last_id,
                         DeltaSection* sec) {
  namespace f = delta_section;
  if (avail < kDeltaSectionHeaderSize) {
    return Status::Error(kErrCorrupt, DeltaWhat(schema) + ": truncated in a section header (" +
                                          std::to_string(avail) + " of " +
                                          std::to_string(kDeltaSectionHeaderSize) + " bytes)");
  }
  const DeltaSectionView h(p);
  const uint16_t id = h[f::kTableId];
  sec->at = p;
  sec->where = DeltaWhat(schema) + ": " + DescribeTable(schema, id);
  Status s = CheckSectionHeaderSize(p, kFormatMinor, kDeltaSectionHeaderSize, sec->where,
                                    &sec->header_size);
  if (!s.ok()) return s;
  if (avail < sec->header_size) return sec->Corrupt("truncated in the section header");
  if (!HeaderCrcMatches(p, sec->header_size, f::kCrc.offset))
    return sec->Corrupt("section header CRC mismatch");
  if (h[f::kReserved] != 0) return sec->Corrupt("section header reserved field is not zero");
  if (static_cast<int>(id) <= *last_id) return sec->Corrupt("section out of order");
  *last_id = id;
  int index = schema.IndexOf(id);
  if (index < 0) return sec->Corrupt("unknown table id");
  sec->index = static_cast<size_t>(index);
  sec->table = &schema.tables[sec->index];
  const TableSchema& t = *sec->table;
  if (h[f::kRecordSize] != t.record_size || h[f::kKeySize] != t.key_size) {
    return sec->Corrupt("record/key size " + std::to_string(h[f::kRecordSize]) + "/" +
                        std::to_string(h[f::kKeySize]) + ", expected " +
                        std::to_string(t.record_size) + "/" + std::to_string(t.key_size));
  }
  return Status::Ok();
}

Status CheckBaseTable(const DeltaSection& sec, uint64_t count, uint64_t epoch, uint32_t crc) {
  namespace f = delta_section;
  const DeltaSectionView h = sec.header();
  if (count == h[f::kBaseCount] && epoch == h[f::kBaseEpoch] && crc == h[f::kBaseCrc])
    return Status::Ok();
  return Status::Error(kErrWrongBase, sec.where + ": wrong base table (delta expects " +
                                          std::to_string(h[f::kBaseCount]) + " records at epoch " +
                                          std::to_string(h[f::kBaseEpoch]) + ", CRC " +
                                          Hex32(h[f::kBaseCrc]) + "; have " +
                                          std::to_string(count) + " at epoch " +
                                          std::to_string(epoch) + ", CRC " + Hex32(crc) + ")");
}

Status LocateChanges(size_t avail, DeltaSection* sec) {
  namespace f = delta_section;
  const DeltaSectionView h = sec->header();
  const uint64_t ops_bytes = ChangesSize(h);
  if (uint64_t{h[f::kNewCount]} * sec->table->record_size > kMaxTableBytes ||
      ops_bytes > 2 * kMaxTableBytes)
    return sec->Corrupt("record counts exceed the table size limit");
  if (ops_bytes > avail - sec->header_size) {
    return sec->Corrupt("truncated: " + std::to_string(avail - sec->header_size) + " of " +
                        std::to_string(ops_bytes) + " bytes of changes");
  }
  DeltaOps& ops = sec->ops;
  ops.n_removed = h[f::kRemovedCount];
  ops.n_puts = h[f::kPutCount];
  ops.removed = sec->at + sec->header_size;
  ops.puts = ops.removed + size_t{ops.n_removed} * sec->table->key_size;
  if (Crc32(ops.removed, static_cast<size_t>(ops_bytes)) != h[f::kOpsCrc])
    return sec->Corrupt("changes CRC mismatch");
  sec->size = sec->header_size + static_cast<size_t>(ops_bytes);
  return Status::Ok();
}

Status CheckStrictOrder(const uint8_t* p, uint32_t n, size_t stride, size_t ks,
                        const std::string& where, const char* what) {
  for (uint32_t i = 1; i < n; ++i) {
    if (std::memcmp(p + (i - 1) * stride, p + i * stride, ks) >= 0) {
      return Status::Error(
          kErrCorrupt, where + ": " + what + " not in strict key order at " + std::to_string(i));
    }
  }
  return Status::Ok();
}

Status MergeTable(const RawTable& old, const DeltaOps& ops, const TableSchema& t,
                  const std::string& where, std::string* out) {
  const size_t rs = t.record_size, ks = t.key_size;
  Status s = CheckStrictOrder(ops.removed, ops.n_removed, ks, ks, where, "removed keys");
  if (s.ok()) s = CheckStrictOrder(ops.puts, ops.n_puts, rs, ks, where, "put records");
  if (!s.ok()) return s;
  auto bad = [&](const char* why) { return Status::Error(kErrCorrupt, where + ": " + why); };
  const uint8_t* po = reinterpret_cast<const uint8_t*>(old.bytes.data());
  out->clear();
  out->reserve(old.bytes.size() + size_t{ops.n_puts} * rs);
  uint32_t r = 0, p = 0;
  auto put_at = [&](uint32_t k) { return ops.puts + size_t{k} * rs; };
  for (uint32_t i = 0; i < old.count; ++i) {
    const uint8_t* rec = po + size_t{i} * rs;
    while (p < ops.n_puts && std::memcmp(put_at(p), rec, ks) < 0) {
      out->append(reinterpret_cast<const char*>(put_at(p++)), rs);
    }
    bool removed = false;
    if (r < ops.n_removed) {
      int c = std::memcmp(ops.removed + size_t{r} * ks, rec, ks);
      if (c < 0) return bad("removes a key that is not in the base table");
      if (c == 0) {
        removed = true;
        ++r;
      }
    }
    bool replaced = p < ops.n_puts && std::memcmp(put_at(p), rec, ks) == 0;
    if (removed && replaced) return bad("both removes and puts the same key");
    if (replaced) {
      out->append(reinterpret_cast<const char*>(put_at(p++)), rs);
    } else if (!removed) {
      out->append(reinterpret_cast<const char*>(rec), rs);
    }
  }
  if (r < ops.n_removed) return bad("removes a key that is not in the base table");
  while (p < ops.n_puts) out->append(reinterpret_cast<const char*>(put_at(p++)), rs);
  return Status::Ok();
}

Status MergeChecked(const DbSchema& schema, const TableSchema& t, const RawTable& base,
                    const DeltaOps& ops, const std::string& where, uint32_t new_count,
                    uint32_t new_crc, std::string* merged) {
  Status s = MergeTable(base, ops, t, where, merged);
  if (!s.ok()) return s;
  uint32_t count = static_cast<uint32_t>(merged->size() / t.record_size);
  if (count != new_count)
    return Status::Error(kErrCorrupt, where + ": result has " + std::to_string(count) +
                                          " records, the delta says " + std::to_string(new_count));
  const uint8_t* pm = reinterpret_cast<const uint8_t*>(merged->data());
  s = CheckRecords(schema, t, pm, count, static_cast<uint32_t>(t.record_size), kErrCorrupt);
  if (!s.ok()) return s.WithContext(DeltaWhat(schema));
  if (Crc32(pm, merged->size()) != new_crc)
    return Status::Error(kErrCorrupt, where + ": result table CRC mismatch");
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
