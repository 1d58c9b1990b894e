// smdb_delta.cc: MakeDelta, ApplyDelta and BumpEpochs (smdb_delta.h). Both
// directions work on the byte form of the databases (RawDb): a record is
// its encoding, a key its first key_size bytes, so one merge serves every
// table of every db type.
#include "common/smdb/smdb_delta.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {
namespace {

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

std::string DeltaWhat(const DbSchema& schema) { return std::string(schema.name()) + " delta"; }

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

struct DeltaOps {
  const uint8_t* removed;  // n_removed keys
  uint32_t n_removed;
  const uint8_t* puts;  // n_puts records
  uint32_t n_puts;
};

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

// old + ops -> *out, all of the same record layout.
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

// Merges `ops` into `base` and checks the result against what the delta
// promised: its record count, valid records and the table CRC.
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

// Reads and applies one section at p[0, avail) to `db`; *used = its size.
Status ApplySection(const DbSchema& schema, const uint8_t* p, size_t avail, int* last_id, RawDb* db,
                    size_t* used) {
  const std::string what = DeltaWhat(schema);
  if (avail < kDeltaSectionHeaderSize) {
    return Status::Error(kErrCorrupt, what + ": truncated in a section header (" +
                                          std::to_string(avail) + " of " +
                                          std::to_string(kDeltaSectionHeaderSize) + " bytes)");
  }
  uint16_t id = GetBe16(p);
  const std::string where = what + ": " + DescribeTable(schema, id);
  uint16_t hsize = 0;
  Status s = CheckSectionHeaderSize(p, kFormatMinor, kDeltaSectionHeaderSize, where, &hsize);
  if (!s.ok()) return s;
  auto corrupt = [&](const std::string& why) {
    return Status::Error(kErrCorrupt, where + ": " + why);
  };
  if (avail < hsize) return corrupt("truncated in the section header");
  if (!HeaderCrcMatches(p, hsize, 60)) return corrupt("section header CRC mismatch");
  if (GetBe32(p + 56) != 0) return corrupt("section header reserved field is not zero");
  if (static_cast<int>(id) <= *last_id) return corrupt("section out of order");
  *last_id = id;
  int index = schema.IndexOf(id);
  if (index < 0) return corrupt("unknown table id");
  const TableSchema& t = schema.tables[static_cast<size_t>(index)];
  uint32_t record_size = GetBe32(p + 4), key_size = GetBe32(p + 8);
  if (record_size != t.record_size || key_size != t.key_size) {
    return corrupt("record/key size " + std::to_string(record_size) + "/" +
                   std::to_string(key_size) + ", expected " + std::to_string(t.record_size) + "/" +
                   std::to_string(t.key_size));
  }
  uint32_t base_count = GetBe32(p + 12), new_count = GetBe32(p + 16);
  DeltaOps ops{nullptr, GetBe32(p + 20), nullptr, GetBe32(p + 24)};
  uint32_t base_crc = GetBe32(p + 28), new_crc = GetBe32(p + 48), ops_crc = GetBe32(p + 52);
  uint64_t base_epoch = GetBe64(p + 32), new_epoch = GetBe64(p + 40);

  RawTable& table = db->tables[static_cast<size_t>(index)];
  uint32_t have_crc =
      Crc32(reinterpret_cast<const uint8_t*>(table.bytes.data()), table.bytes.size());
  if (table.count != base_count || table.epoch != base_epoch || have_crc != base_crc) {
    return Status::Error(
        kErrWrongBase, where + ": wrong base table (delta expects " + std::to_string(base_count) +
                           " records at epoch " + std::to_string(base_epoch) + ", CRC " +
                           Hex32(base_crc) + "; have " + std::to_string(table.count) +
                           " at epoch " + std::to_string(table.epoch) + ", CRC " + Hex32(have_crc) +
                           ")");
  }
  uint64_t ops_bytes = uint64_t{ops.n_removed} * key_size + uint64_t{ops.n_puts} * record_size;
  if (uint64_t{new_count} * record_size > kMaxTableBytes || ops_bytes > 2 * kMaxTableBytes) {
    return corrupt("record counts exceed the table size limit");
  }
  if (ops_bytes > avail - hsize) {
    return corrupt("truncated: " + std::to_string(avail - hsize) + " of " +
                   std::to_string(ops_bytes) + " bytes of changes");
  }
  ops.removed = p + hsize;
  ops.puts = ops.removed + size_t{ops.n_removed} * key_size;
  if (Crc32(ops.removed, static_cast<size_t>(ops_bytes)) != ops_crc) {
    return corrupt("changes CRC mismatch");
  }
  std::string merged;
  s = MergeChecked(schema, t, table, ops, where, new_count, new_crc, &merged);
  if (!s.ok()) return s;
  table.bytes = std::move(merged);
  table.count = new_count;
  table.epoch = new_epoch;
  *used = hsize + static_cast<size_t>(ops_bytes);
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

struct DeltaHeader {
  uint16_t size = 0;
  uint32_t sections = 0;
  uint64_t base_epoch = 0, new_epoch = 0;
  uint32_t base_digest = 0, new_digest = 0;
};

Status ReadDeltaHeader(const DbSchema& schema, const uint8_t* p, size_t len, DeltaHeader* h) {
  const std::string what = DeltaWhat(schema);
  if (len < kDeltaHeaderSize) {
    return Status::Error(kErrCorrupt, what + ": truncated in the header (" + std::to_string(len) +
                                          " of " + std::to_string(kDeltaHeaderSize) + " bytes)");
  }
  Status s = CheckHeaderStart(p, kDeltaMagic, kDeltaHeaderSize, what, &h->size);
  if (!s.ok()) return s;
  uint16_t minor = GetBe16(p + 6);
  if (minor != kFormatMinor) {
    return Status::Error(kErrVersion,
                         what + ": format minor " + std::to_string(minor) +
                             " differs from this reader's " + std::to_string(kFormatMinor) +
                             "; deltas apply only within one minor: fetch the full database");
  }
  if (!HeaderCrcMatches(p, h->size, 44))
    return Status::Error(kErrCorrupt, what + ": header CRC mismatch");
  if (GetBe32(p + 40) != 0)
    return Status::Error(kErrCorrupt, what + ": header reserved field is not zero");
  uint16_t db_type = GetBe16(p + 8);
  if (db_type != static_cast<uint16_t>(schema.type)) {
    return Status::Error(kErrCorrupt, what + ": the delta is for db_type " +
                                          std::to_string(db_type) + " (" + DbTypeName(db_type) +
                                          ")");
  }
  h->sections = GetBe32(p + 12);
  h->base_epoch = GetBe64(p + 16);
  h->new_epoch = GetBe64(p + 24);
  h->base_digest = GetBe32(p + 32);
  h->new_digest = GetBe32(p + 36);
  return Status::Ok();
}

Status WrongBase(const DbSchema& schema, const DeltaHeader& h, uint64_t epoch, uint32_t digest) {
  return Status::Error(kErrWrongBase,
                       DeltaWhat(schema) + ": wrong base: the delta applies to global epoch " +
                           std::to_string(h.base_epoch) + " (digest " + Hex32(h.base_digest) +
                           "), this database is epoch " + std::to_string(epoch) + " (digest " +
                           Hex32(digest) + ")");
}

template <class Db>
Status ApplyDeltaT(const Db& old, const uint8_t* p, size_t len, Db* out) {
  const DbSchema& schema = Db::Schema();
  const std::string what = DeltaWhat(schema);
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
  if (off != len) {
    return Status::Error(kErrCorrupt, what + ": " + std::to_string(len - off) +
                                          " unexpected bytes after the last section");
  }
  db.global_epoch = h.new_epoch;
  if (DigestRaw(schema, db) != h.new_digest) {
    return Status::Error(kErrCorrupt,
                         what + ": result digest mismatch (expected " + Hex32(h.new_digest) + ")");
  }
  FromRaw(db, out);
  return Status::Ok();
}

// The digest of a database from its header fields and table CRCs.
template <class Db>
uint32_t DigestFromCrcs(const Db& db, const std::vector<uint32_t>& crcs) {
  const DbSchema& schema = Db::Schema();
  uint8_t header[kFileHeaderSize];
  FileHeader fh;
  fh.db_type = static_cast<uint16_t>(schema.type);
  fh.table_count = static_cast<uint32_t>(schema.tables.size());
  fh.global_epoch = db.global_epoch;
  EncodeFileHeader(fh, header);
  uint32_t crc = Crc32(header, sizeof(header));
  size_t i = 0;
  Db::ForEachTable(db, [&](const auto& table) {
    const TableSchema& t = schema.tables[i];
    SectionHeader sh;
    sh.table_id = t.id;
    sh.record_size = t.record_size;
    sh.record_count = static_cast<uint32_t>(table.records.size());
    sh.payload_crc = crcs[i];
    sh.table_epoch = table.epoch;
    uint8_t section[kSectionHeaderSize];
    EncodeSectionHeader(sh, section);
    crc = Crc32(section, sizeof(section), crc);
    crc = Crc32Combine(crc, crcs[i], uint64_t{sh.record_count} * t.record_size);
    ++i;
  });
  return crc;
}

// One delta section applied to a typed table whose payload CRC is *crc.
template <class R>
Status ApplyTypedSection(const DbSchema& schema, const TableSchema& t, const uint8_t* p,
                         uint16_t hsize, size_t avail, DbTable<R>* table, uint32_t* crc,
                         size_t* used) {
  const std::string where = DeltaWhat(schema) + ": " + DescribeTable(schema, t.id);
  auto corrupt = [&](const std::string& why) {
    return Status::Error(kErrCorrupt, where + ": " + why);
  };
  const size_t rs = t.record_size, ks = t.key_size;
  uint32_t base_count = GetBe32(p + 12), new_count = GetBe32(p + 16);
  DeltaOps ops{nullptr, GetBe32(p + 20), nullptr, GetBe32(p + 24)};
  uint32_t base_crc = GetBe32(p + 28), new_crc = GetBe32(p + 48), ops_crc = GetBe32(p + 52);
  uint64_t base_epoch = GetBe64(p + 32), new_epoch = GetBe64(p + 40);
  if (table->records.size() != base_count || table->epoch != base_epoch || *crc != base_crc) {
    return Status::Error(
        kErrWrongBase, where + ": wrong base table (delta expects " + std::to_string(base_count) +
                           " records at epoch " + std::to_string(base_epoch) + ", CRC " +
                           Hex32(base_crc) + "; have " + std::to_string(table->records.size()) +
                           " at epoch " + std::to_string(table->epoch) + ", CRC " + Hex32(*crc) +
                           ")");
  }
  uint64_t ops_bytes = uint64_t{ops.n_removed} * ks + uint64_t{ops.n_puts} * rs;
  if (uint64_t{new_count} * rs > kMaxTableBytes || ops_bytes > 2 * kMaxTableBytes)
    return corrupt("record counts exceed the table size limit");
  if (ops_bytes > avail - hsize) {
    return corrupt("truncated: " + std::to_string(avail - hsize) + " of " +
                   std::to_string(ops_bytes) + " bytes of changes");
  }
  ops.removed = p + hsize;
  ops.puts = ops.removed + size_t{ops.n_removed} * ks;
  if (Crc32(ops.removed, static_cast<size_t>(ops_bytes)) != ops_crc)
    return corrupt("changes CRC mismatch");
  Status s = CheckStrictOrder(ops.removed, ops.n_removed, ks, ks, where, "removed keys");
  if (s.ok()) s = CheckStrictOrder(ops.puts, ops.n_puts, rs, ks, where, "put records");
  if (!s.ok()) return s;
  *used = hsize + static_cast<size_t>(ops_bytes);

  // Replacements only: find each put's record, patch the CRC, decode.
  std::vector<R>& records = table->records;
  uint8_t buf[WireSize<R>()];
  std::vector<size_t> at;
  bool in_place = ops.n_removed == 0 && new_count == base_count && ks > 0;
  for (uint32_t k = 0; in_place && k < ops.n_puts; ++k) {
    const uint8_t* put = ops.puts + size_t{k} * rs;
    size_t lo = at.empty() ? 0 : at.back() + 1, hi = records.size();
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      EncodeRecord(records[mid], buf);
      if (std::memcmp(buf, put, ks) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < records.size()) EncodeRecord(records[lo], buf);
    in_place = lo < records.size() && std::memcmp(buf, put, ks) == 0;
    at.push_back(lo);
  }
  if (in_place) {
    const uint64_t total = uint64_t{base_count} * rs;
    uint32_t c = *crc;
    for (uint32_t k = 0; k < ops.n_puts; ++k) {
      const uint8_t* put = ops.puts + size_t{k} * rs;
      EncodeRecord(records[at[k]], buf);
      c = Crc32Patch(c, total, uint64_t{at[k]} * rs, buf, put, rs);
    }
    if (c != new_crc) return corrupt("result table CRC mismatch");
    for (uint32_t k = 0; k < ops.n_puts; ++k) {
      FieldDecoder dec(ops.puts + size_t{k} * rs);
      R::Fields(records[at[k]], dec);
    }
  } else {
    RawTable raw;
    raw.count = base_count;
    raw.bytes = EncodeRecords(records);
    std::string merged;
    s = MergeChecked(schema, t, raw, ops, where, new_count, new_crc, &merged);
    if (!s.ok()) return s;
    DecodeRecords(reinterpret_cast<const uint8_t*>(merged.data()), new_count,
                  static_cast<uint32_t>(rs), &records);
  }
  *crc = new_crc;
  table->epoch = new_epoch;
  return Status::Ok();
}

template <class Db>
Status ApplyDeltaKnownT(const Db& old, const DbCrcs& oc, const uint8_t* p, size_t len, Db* out,
                        DbCrcs* out_crcs) {
  const DbSchema& schema = Db::Schema();
  const std::string what = DeltaWhat(schema);
  if (oc.tables.size() != schema.tables.size())
    return Status::Error(kErrInvalidInput, what + ": the holder's table CRCs do not fit");
  DeltaHeader h;
  Status s = ReadDeltaHeader(schema, p, len, &h);
  if (!s.ok()) return s;
  if (old.global_epoch != h.base_epoch || oc.digest != h.base_digest)
    return WrongBase(schema, h, old.global_epoch, oc.digest);
  Db db = old;
  DbCrcs crcs = oc;
  size_t off = h.size;
  int last_id = -1;
  for (uint32_t i = 0; i < h.sections; ++i) {
    const uint8_t* sp = p + off;
    size_t avail = len - off;
    if (avail < kDeltaSectionHeaderSize) {
      return Status::Error(kErrCorrupt, what + ": truncated in a section header (" +
                                            std::to_string(avail) + " of " +
                                            std::to_string(kDeltaSectionHeaderSize) + " bytes)");
    }
    uint16_t id = GetBe16(sp);
    const std::string where = what + ": " + DescribeTable(schema, id);
    uint16_t hsize = 0;
    s = CheckSectionHeaderSize(sp, kFormatMinor, kDeltaSectionHeaderSize, where, &hsize);
    if (!s.ok()) return s;
    auto corrupt = [&](const std::string& why) {
      return Status::Error(kErrCorrupt, where + ": " + why);
    };
    if (avail < hsize) return corrupt("truncated in the section header");
    if (!HeaderCrcMatches(sp, hsize, 60)) return corrupt("section header CRC mismatch");
    if (GetBe32(sp + 56) != 0) return corrupt("section header reserved field is not zero");
    if (static_cast<int>(id) <= last_id) return corrupt("section out of order");
    last_id = id;
    int index = schema.IndexOf(id);
    if (index < 0) return corrupt("unknown table id");
    const TableSchema& t = schema.tables[static_cast<size_t>(index)];
    if (GetBe32(sp + 4) != t.record_size || GetBe32(sp + 8) != t.key_size) {
      return corrupt("record/key size " + std::to_string(GetBe32(sp + 4)) + "/" +
                     std::to_string(GetBe32(sp + 8)) + ", expected " +
                     std::to_string(t.record_size) + "/" + std::to_string(t.key_size));
    }
    size_t used = 0, k = 0;
    Db::ForEachTable(db, [&](auto& table) {
      if (k++ != static_cast<size_t>(index)) return;
      s = ApplyTypedSection(schema, t, sp, hsize, avail, &table,
                            &crcs.tables[static_cast<size_t>(index)], &used);
    });
    if (!s.ok()) return s;
    off += used;
  }
  if (off != len) {
    return Status::Error(kErrCorrupt, what + ": " + std::to_string(len - off) +
                                          " unexpected bytes after the last section");
  }
  db.global_epoch = h.new_epoch;
  crcs.digest = DigestFromCrcs(db, crcs.tables);
  if (crcs.digest != h.new_digest) {
    return Status::Error(kErrCorrupt,
                         what + ": result digest mismatch (expected " + Hex32(h.new_digest) + ")");
  }
  *out = std::move(db);
  *out_crcs = std::move(crcs);
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
  const TableSchema& t = *s.table;
  uint8_t h[kDeltaSectionHeaderSize] = {};
  PutBe16(h, t.id);
  PutBe16(h + 2, static_cast<uint16_t>(kDeltaSectionHeaderSize));
  PutBe32(h + 4, t.record_size);
  PutBe32(h + 8, t.key_size);
  PutBe32(h + 12, s.base_count);
  PutBe32(h + 16, s.new_count);
  PutBe32(h + 20, s.n_removed);
  PutBe32(h + 24, s.n_puts);
  PutBe32(h + 28, s.base_crc);
  PutBe64(h + 32, s.base_epoch);
  PutBe64(h + 40, s.new_epoch);
  PutBe32(h + 48, s.new_crc);
  uint32_t ops_crc = Crc32(reinterpret_cast<const uint8_t*>(s.removed.data()), s.removed.size());
  PutBe32(h + 52, Crc32(reinterpret_cast<const uint8_t*>(s.puts.data()), s.puts.size(), ops_crc));
  SealHeader(h, sizeof(h), 60);
  out->append(reinterpret_cast<const char*>(h), sizeof(h));
  *out += s.removed;
  *out += s.puts;
}

void SealDeltaHeader(const DbSchema& schema, uint32_t sections, uint64_t base_epoch,
                     uint64_t new_epoch, uint32_t base_digest, uint32_t new_digest,
                     std::string* out) {
  uint8_t* h = reinterpret_cast<uint8_t*>(&(*out)[0]);
  PutBe32(h, kDeltaMagic);
  PutBe16(h + 4, kFormatMajor);
  PutBe16(h + 6, kFormatMinor);
  PutBe16(h + 8, static_cast<uint16_t>(schema.type));
  PutBe16(h + 10, static_cast<uint16_t>(kDeltaHeaderSize));
  PutBe32(h + 12, sections);
  PutBe64(h + 16, base_epoch);
  PutBe64(h + 24, new_epoch);
  PutBe32(h + 32, base_digest);
  PutBe32(h + 36, new_digest);
  PutBe32(h + 40, 0);
  SealHeader(h, kDeltaHeaderSize, 44);
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

Status ApplyDeltaKnown(const Smdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Smdb* out, DbCrcs* out_crcs) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs);
}
Status ApplyDeltaKnown(const Prdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Prdb* out, DbCrcs* out_crcs) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs);
}
Status ApplyDeltaKnown(const AddrDb& old, const DbCrcs& old_crcs, const uint8_t* delta,
                       size_t len, AddrDb* out, DbCrcs* out_crcs) {
  return ApplyDeltaKnownT(old, old_crcs, delta, len, out, out_crcs);
}

Status SpliceDelta(const DbSchema& schema, const std::string& old_bytes, const uint8_t* d,
                   size_t len, std::string* out) {
  auto bad = [] { return Status::Error(kErrInvalidInput, "not a serialization to splice into"); };
  const uint8_t* p = reinterpret_cast<const uint8_t*>(old_bytes.data());
  const size_t n = old_bytes.size();
  if (n < kFileHeaderSize || GetBe32(p) != kDbMagic || GetBe16(p + 10) != kFileHeaderSize ||
      GetBe32(p + 12) != schema.tables.size() || len < kDeltaHeaderSize)
    return bad();
  // The old sections: offset of each header, in schema order.
  std::vector<size_t> at(schema.tables.size());
  size_t off = kFileHeaderSize;
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    if (off + kSectionHeaderSize > n) return bad();
    const uint8_t* h = p + off;
    if (GetBe16(h) != schema.tables[i].id || GetBe16(h + 2) != kSectionHeaderSize ||
        GetBe32(h + 4) != schema.tables[i].record_size)
      return bad();
    at[i] = off;
    off += kSectionHeaderSize + uint64_t{GetBe32(h + 4)} * GetBe32(h + 8);
    if (off > n) return bad();
  }
  if (off != n) return bad();
  // The delta's sections by table (ApplyDeltaKnown checked them).
  std::vector<const uint8_t*> sec(schema.tables.size(), nullptr);
  const uint32_t sections = GetBe32(d + 12);
  size_t doff = GetBe16(d + 10);
  for (uint32_t k = 0; k < sections; ++k) {
    if (doff + kDeltaSectionHeaderSize > len) return bad();
    const uint8_t* s = d + doff;
    int index = schema.IndexOf(GetBe16(s));
    if (index < 0) return bad();
    const TableSchema& t = schema.tables[static_cast<size_t>(index)];
    sec[static_cast<size_t>(index)] = s;
    doff += GetBe16(s + 2) + uint64_t{GetBe32(s + 20)} * t.key_size +
            uint64_t{GetBe32(s + 24)} * t.record_size;
  }
  std::string o;
  o.reserve(n + (len > n ? len : 0));
  o.append(old_bytes, 0, kFileHeaderSize);
  FileHeader fh;
  fh.db_type = static_cast<uint16_t>(schema.type);
  fh.table_count = static_cast<uint32_t>(schema.tables.size());
  fh.global_epoch = GetBe64(d + 24);
  EncodeFileHeader(fh, reinterpret_cast<uint8_t*>(&o[0]));
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    const uint8_t* h = p + at[i];
    const uint8_t* s = sec[i];
    const TableSchema& t = schema.tables[i];
    const size_t rs = t.record_size, ks = t.key_size;
    const uint32_t count = GetBe32(h + 8);
    const uint8_t* payload = h + kSectionHeaderSize;
    if (!s) {
      o.append(reinterpret_cast<const char*>(h), kSectionHeaderSize + size_t{count} * rs);
      continue;
    }
    SectionHeader sh;
    sh.table_id = t.id;
    sh.record_size = t.record_size;
    sh.record_count = GetBe32(s + 16);
    sh.payload_crc = GetBe32(s + 48);
    sh.table_epoch = GetBe64(s + 40);
    uint8_t hb[kSectionHeaderSize];
    EncodeSectionHeader(sh, hb);
    o.append(reinterpret_cast<const char*>(hb), sizeof(hb));
    DeltaOps ops{nullptr, GetBe32(s + 20), nullptr, GetBe32(s + 24)};
    ops.removed = s + GetBe16(s + 2);
    ops.puts = ops.removed + size_t{ops.n_removed} * ks;
    if (ops.n_removed == 0 && sh.record_count == count && ks > 0) {
      // Replacements only: overwrite each put at its key (puts ascend).
      size_t base = o.size();
      o.append(reinterpret_cast<const char*>(payload), size_t{count} * rs);
      uint8_t* q = reinterpret_cast<uint8_t*>(&o[base]);
      uint32_t lo = 0;
      for (uint32_t k = 0; k < ops.n_puts; ++k) {
        const uint8_t* put = ops.puts + size_t{k} * rs;
        uint32_t hi = count;
        while (lo < hi) {
          uint32_t mid = lo + (hi - lo) / 2;
          if (std::memcmp(q + size_t{mid} * rs, put, ks) < 0)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo >= count || std::memcmp(q + size_t{lo} * rs, put, ks) != 0) return bad();
        std::memcpy(q + size_t{lo} * rs, put, rs);
        ++lo;
      }
      continue;
    }
    RawTable raw;
    raw.count = count;
    raw.bytes.assign(reinterpret_cast<const char*>(payload), size_t{count} * rs);
    std::string merged;
    Status st = MergeTable(raw, ops, t, "splice", &merged);
    if (!st.ok()) return st;
    o += merged;
  }
  *out = std::move(o);
  return Status::Ok();
}

Status DbCrcsOf(const uint8_t* p, size_t len, DbCrcs* out) {
  auto bad = [] { return Status::Error(kErrInvalidInput, "not a database serialization"); };
  if (len < kFileHeaderSize || GetBe32(p) != kDbMagic) return bad();
  DbCrcs c;
  size_t off = GetBe16(p + 10);
  uint32_t tables = GetBe32(p + 12);
  for (uint32_t i = 0; i < tables; ++i) {
    if (off + kSectionHeaderSize > len) return bad();
    const uint8_t* h = p + off;
    uint64_t payload = uint64_t{GetBe32(h + 4)} * GetBe32(h + 8);
    c.tables.push_back(GetBe32(h + 12));
    off += GetBe16(h + 2) + payload;
    if (off > len) return bad();
  }
  if (off != len) return bad();
  *out = std::move(c);
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
