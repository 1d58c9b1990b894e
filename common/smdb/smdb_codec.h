// smdb_codec.h: internal to the smdb*.cc files. Generic record codecs built
// on the Fields() lists (smdb_fields.h), the byte-level form of a database
// (RawDb) that serialization, digests and deltas work on, and the template
// bodies shared by Smdb and Prdb. Not for other modules: use smdb.h,
// smdb_prdb.h, smdb_stream.h, smdb_delta.h.
//
// Pure functions on caller-owned data; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_CODEC_H
#define IBACM_SSA_COMMON_SMDB_SMDB_CODEC_H

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/base/big_endian.h"
#include "common/base/file_io.h"
#include "common/base/status.h"
#include "common/smdb/smdb_fields.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace smdb {

// ---- Field visitors ----

class FieldEncoder {
 public:
  explicit FieldEncoder(uint8_t* out) : p_(out) {}
  template <class T>
  void Num(const char*, const T& x) {
    Put(x);
  }
  template <class T>
  void Hex(const char*, const T& x) {
    Put(x);
  }
  template <size_t N>
  void Bytes(const char*, const std::array<uint8_t, N>& a) {
    std::memcpy(p_, a.data(), N);
    p_ += N;
  }
  template <size_t N>
  void Text(const char*, const std::array<char, N>& a) {
    std::memcpy(p_, a.data(), N);
    p_ += N;
  }
  template <class T, size_t N>
  void NumArray(const char*, const std::array<T, N>& a) {
    for (const T& x : a) Put(x);
  }
  template <class T, size_t N>
  void HexArray(const char* n, const std::array<T, N>& a) {
    NumArray(n, a);
  }

 private:
  template <class T>
  void Put(T x) {
    static_assert(std::is_unsigned<T>::value, "wire fields are unsigned integers");
    if constexpr (sizeof(T) == 1)
      *p_ = x;
    else if constexpr (sizeof(T) == 2)
      PutBe16(p_, x);
    else if constexpr (sizeof(T) == 4)
      PutBe32(p_, x);
    else if constexpr (sizeof(T) == 8)
      PutBe64(p_, x);
    else
      static_assert(sizeof(T) == 8, "wire fields are 1, 2, 4 or 8 bytes");
    p_ += sizeof(T);
  }
  uint8_t* p_;
};

class FieldDecoder {
 public:
  explicit FieldDecoder(const uint8_t* in) : p_(in) {}
  template <class T>
  void Num(const char*, T& x) {
    Get(&x);
  }
  template <class T>
  void Hex(const char*, T& x) {
    Get(&x);
  }
  template <size_t N>
  void Bytes(const char*, std::array<uint8_t, N>& a) {
    std::memcpy(a.data(), p_, N);
    p_ += N;
  }
  template <size_t N>
  void Text(const char*, std::array<char, N>& a) {
    std::memcpy(a.data(), p_, N);
    p_ += N;
  }
  template <class T, size_t N>
  void NumArray(const char*, std::array<T, N>& a) {
    for (T& x : a) Get(&x);
  }
  template <class T, size_t N>
  void HexArray(const char* n, std::array<T, N>& a) {
    NumArray(n, a);
  }

 private:
  template <class T>
  void Get(T* x) {
    static_assert(std::is_unsigned<T>::value, "wire fields are unsigned integers");
    if constexpr (sizeof(T) == 1)
      *x = *p_;
    else if constexpr (sizeof(T) == 2)
      *x = GetBe16(p_);
    else if constexpr (sizeof(T) == 4)
      *x = GetBe32(p_);
    else if constexpr (sizeof(T) == 8)
      *x = GetBe64(p_);
    else
      static_assert(sizeof(T) == 8, "wire fields are 1, 2, 4 or 8 bytes");
    p_ += sizeof(T);
  }
  const uint8_t* p_;
};

// ---- Record <-> bytes ----

template <class R>
void EncodeRecord(const R& r, uint8_t* out) {
  FieldEncoder enc(out);
  R::Fields(r, enc);
}

template <class R>
std::string EncodeRecords(const std::vector<R>& records) {
  constexpr size_t kSize = WireSize<R>();
  std::string bytes(records.size() * kSize, '\0');
  uint8_t* p = reinterpret_cast<uint8_t*>(&bytes[0]);
  for (const R& r : records) {
    EncodeRecord(r, p);
    p += kSize;
  }
  return bytes;
}

// `record_size` >= WireSize<R>(): the extra bytes of a newer minor's records
// are skipped.
template <class R>
void DecodeRecords(const uint8_t* payload, uint32_t count, uint32_t record_size,
                   std::vector<R>* out) {
  out->resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    FieldDecoder dec(payload + size_t{i} * record_size);
    R::Fields((*out)[i], dec);
  }
}

// R::kSinceMinor, the format minor that added R's table, or 0.
template <class R, class = void>
struct SinceMinorOf {
  static constexpr uint16_t value = 0;
};
template <class R>
struct SinceMinorOf<R, decltype(void(R::kSinceMinor))> {
  static constexpr uint16_t value = R::kSinceMinor;
};

template <class R>
TableSchema SchemaOf() {
  TableSchema t;
  t.since_minor = SinceMinorOf<R>::value;
  t.id = R::kTableId;
  t.name = R::kTableName;
  t.record_size = static_cast<uint32_t>(WireSize<R>());
  t.key_size = static_cast<uint32_t>(KeySize<R>());
  t.single_record = R::kKeyFields == 0;
  return t;
}

template <class Db>
DbSchema BuildSchema() {
  DbSchema schema;
  schema.type = Db::kType;
  Db db;
  Db::ForEachTable(db, [&](auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    schema.tables.push_back(SchemaOf<R>());
  });
  return schema;
}

// ---- Validation shared by writers, readers and the delta applier ----

// "smdb: table 'ports' (id 4)"
std::string TableWhere(const DbSchema& schema, uint16_t id);
// OK, or EINVAL when `count` records of table `t` pass the format's
// kMaxTableBytes: the one check every writer makes before writing.
Status CheckTableSize(const DbSchema& schema, const TableSchema& t, uint64_t count);

// Single-record count, then strictly increasing keys. `err` is the code to
// fail with (kErrCorrupt for input, kErrInvalidInput for our own data).
Status CheckRecords(const DbSchema& schema, const TableSchema& t, const uint8_t* payload,
                    uint32_t count, uint32_t record_size, int err);

// ---- The byte form of a database ----

struct RawTable {
  uint64_t epoch = 0;
  uint32_t count = 0;
  std::string bytes;  // count * record_size
};

struct RawDb {
  uint64_t global_epoch = 0;
  std::vector<RawTable> tables;  // schema order
};

// Encodes every table; with `validate`, fails (EINVAL) on tables breaking
// the format's rules, or too large for it.
template <class Db>
Status ToRaw(const Db& db, bool validate, RawDb* out) {
  const DbSchema& schema = Db::Schema();
  RawDb raw;
  raw.global_epoch = db.global_epoch;
  Status status;
  size_t i = 0;
  Db::ForEachTable(db, [&](const auto& table) {
    const TableSchema& t = schema.tables[i++];
    RawTable rt;
    rt.epoch = table.epoch;
    if (status.ok() && validate) status = CheckTableSize(schema, t, table.records.size());
    if (!status.ok()) return;
    rt.count = static_cast<uint32_t>(table.records.size());
    rt.bytes = EncodeRecords(table.records);
    if (validate) {
      status = CheckRecords(schema, t, reinterpret_cast<const uint8_t*>(rt.bytes.data()), rt.count,
                            t.record_size, kErrInvalidInput);
    }
    raw.tables.push_back(std::move(rt));
  });
  if (status.ok()) *out = std::move(raw);
  return status;
}

// Decodes tables already checked (by a reader or the delta applier).
template <class Db>
void FromRaw(const RawDb& raw, Db* out) {
  const DbSchema& schema = Db::Schema();
  Db db;
  db.global_epoch = raw.global_epoch;
  size_t i = 0;
  Db::ForEachTable(db, [&](auto& table) {
    const RawTable& rt = raw.tables[i];
    table.epoch = rt.epoch;
    DecodeRecords(reinterpret_cast<const uint8_t*>(rt.bytes.data()), rt.count,
                  schema.tables[i].record_size, &table.records);
    ++i;
  });
  *out = std::move(db);
}

// The headers of a whole database as this version writes it: the file
// header of a `schema` database (all its tables), and the section header
// of table `t`. Every writer (serialization, digests, splices, patches)
// makes them here.
void EncodeDbHeader(const DbSchema& schema, uint64_t global_epoch, uint8_t* out);
void EncodeTableHeader(const TableSchema& t, uint32_t record_count, uint32_t payload_crc,
                       uint64_t table_epoch, uint8_t* out);

// Feeds the serialization of `raw` (all of the schema's tables, as ToRaw
// makes it: the bytes SerializeDb writes for the same database) to
// sink(const uint8_t*, size_t), piece by piece: DigestRaw CRCs them
// without copying.
template <class Sink>
void EmitRaw(const DbSchema& schema, const RawDb& raw, Sink&& sink) {
  uint8_t header[kFileHeaderSize];
  EncodeDbHeader(schema, raw.global_epoch, header);
  sink(header, sizeof(header));
  for (size_t i = 0; i < raw.tables.size(); ++i) {
    const RawTable& rt = raw.tables[i];
    const uint8_t* payload = reinterpret_cast<const uint8_t*>(rt.bytes.data());
    uint8_t section[kSectionHeaderSize];
    EncodeTableHeader(schema.tables[i], rt.count, Crc32(payload, rt.bytes.size()), rt.epoch,
                      section);
    sink(section, sizeof(section));
    sink(payload, rt.bytes.size());
  }
}

// CRC32 of the serialization (EmitRaw's pieces).
uint32_t DigestRaw(const DbSchema& schema, const RawDb& raw);

// ---- Delta writing pieces (smdb_delta.cc), shared with prdb_patch.cc ----

// One delta section: `removed` holds n_removed keys, `puts` n_puts
// records, each in strict key order.
struct DeltaSectionOut {
  const TableSchema* table = nullptr;
  uint32_t base_count = 0, new_count = 0;
  uint32_t base_crc = 0, new_crc = 0;
  uint64_t base_epoch = 0, new_epoch = 0;
  std::string removed, puts;
  uint32_t n_removed = 0, n_puts = 0;
};
// Appends the section (header and changes) to `out`.
void AppendDeltaSection(const DeltaSectionOut& s, std::string* out);
// Fills the kDeltaHeaderSize bytes `out` starts with.
void SealDeltaHeader(const DbSchema& schema, uint32_t sections, uint64_t base_epoch,
                     uint64_t new_epoch, uint32_t base_digest, uint32_t new_digest,
                     std::string* out);

// ---- Template bodies of the Smdb/Prdb members ----

// The serialization EmitRaw makes of ToRaw's tables, written in place in
// `out` (sized once; no table is encoded apart and copied): a whole PRDB
// is serialized for every consumer at an access node's bring-up. On an
// error *out is cleared.
template <class Db>
Status SerializeDb(const Db& db, std::string* out) {
  const DbSchema& schema = Db::Schema();
  Status status;
  size_t total = kFileHeaderSize, i = 0;
  Db::ForEachTable(db, [&](const auto& table) {
    const TableSchema& t = schema.tables[i++];
    if (status.ok()) status = CheckTableSize(schema, t, table.records.size());
    total += kSectionHeaderSize + table.records.size() * t.record_size;
  });
  if (!status.ok()) return status;
  out->clear();
  out->resize(total);
  uint8_t* p = reinterpret_cast<uint8_t*>(&(*out)[0]);
  EncodeDbHeader(schema, db.global_epoch, p);
  p += kFileHeaderSize;
  i = 0;
  Db::ForEachTable(db, [&](const auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    const TableSchema& t = schema.tables[i++];
    if (!status.ok()) return;
    uint8_t* section = p;
    uint8_t* payload = p + kSectionHeaderSize;
    const uint32_t count = static_cast<uint32_t>(table.records.size());
    for (size_t r = 0; r < count; ++r) EncodeRecord(table.records[r], payload + r * WireSize<R>());
    const size_t n = size_t{count} * WireSize<R>();
    status = CheckRecords(schema, t, payload, count, t.record_size, kErrInvalidInput);
    EncodeTableHeader(t, count, Crc32(payload, n), table.epoch, section);
    p = payload + n;
  });
  if (!status.ok()) out->clear();
  return status;
}

template <class Db>
bool DbEqual(const Db& a, const Db& b) {
  RawDb ra, rb;
  ToRaw(a, /*validate=*/false, &ra);
  ToRaw(b, /*validate=*/false, &rb);
  if (ra.global_epoch != rb.global_epoch) return false;
  for (size_t i = 0; i < ra.tables.size(); ++i) {
    if (ra.tables[i].epoch != rb.tables[i].epoch || ra.tables[i].bytes != rb.tables[i].bytes) {
      return false;
    }
  }
  return true;
}

// The record's key (its first KeySize<R>() wire bytes) into `out`.
template <class R>
void EncodeKey(const R& r, uint8_t* out) {
  uint8_t buf[WireSize<R>()];
  EncodeRecord(r, buf);
  memcpy(out, buf, KeySize<R>());
}

template <class R>
std::string KeyOf(const R& r) {
  std::string key(KeySize<R>(), '\0');
  EncodeKey(r, reinterpret_cast<uint8_t*>(&key[0]));
  return key;
}

// Keys are encoded once per record rather than per comparison (the LFT
// table of a large fabric has millions of records), side by side in one
// buffer: no allocation per record. memcmp compares them as unsigned
// bytes, the format's key order. A table already in order (builders that
// emit in key order, e.g. BuildPrdb) is left as it is: no sort, no copy.
template <class Db>
void SortDb(Db* db) {
  Db::ForEachTable(*db, [](auto& table) {
    using R = typename std::decay_t<decltype(table)>::Record;
    constexpr size_t kKey = KeySize<R>();
    const size_t n = table.records.size();
    if (n < 2 || kKey == 0) return;  // keyless tables (subnet) keep their order
    {
      // The check first, one key after another (no buffer of all keys).
      uint8_t key[2][kKey ? kKey : 1];
      EncodeKey(table.records[0], key[0]);
      bool sorted = true;
      for (size_t i = 1; i < n && sorted; ++i) {
        EncodeKey(table.records[i], key[i & 1]);
        sorted = memcmp(key[i & 1], key[(i - 1) & 1], kKey) >= 0;
      }
      if (sorted) return;
    }
    std::vector<uint8_t> keys(n * kKey);
    for (size_t i = 0; i < n; ++i) EncodeKey(table.records[i], keys.data() + i * kKey);
    auto before = [&keys](size_t a, size_t b) {
      return memcmp(keys.data() + a * kKey, keys.data() + b * kKey, kKey) < 0;
    };
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), before);
    std::vector<R> out;
    out.reserve(n);
    for (uint32_t i : order) out.push_back(std::move(table.records[i]));
    table.records.swap(out);
  });
}

// Db::WriteFile and Db::ReadFile for every db type.
template <class Db>
Status WriteDbFile(const Db& db, const std::string& path) {
  std::string bytes;
  Status s = db.Serialize(&bytes);
  if (!s.ok()) return s.WithContext(path);
  FileWriteOptions sync;
  sync.sync = true;  // after a crash: the old database or the whole new one
  return WriteFileAtomically(path, bytes, sync);
}
template <class Db>
Status ReadDbFile(const std::string& path, Db* out) {
  std::string bytes;
  Status s = ReadWholeFile(path, &bytes);
  if (!s.ok()) return s;
  return Db::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out)
      .WithContext(path);
}

}  // namespace smdb
}  // namespace ssa

// Defines database type Db's members (Schema, Serialize, Parse, WriteFile,
// ReadFile, SortRecords) and operator== as the templates above, in
// namespace ssa::smdb of Db's .cc; Parse also needs smdb_stream.h there.
#define SSA_SMDB_DB_MEMBERS(Db)                                                                  \
  const DbSchema& Db::Schema() {                                                                 \
    static const DbSchema schema = BuildSchema<Db>();                                            \
    return schema;                                                                               \
  }                                                                                              \
  Status Db::Serialize(std::string* out) const { return SerializeDb(*this, out); }               \
  Status Db::Parse(const uint8_t* data, size_t len, Db* out) { return ParseDb(data, len, out); } \
  Status Db::WriteFile(const std::string& path) const { return WriteDbFile(*this, path); }       \
  Status Db::ReadFile(const std::string& path, Db* out) { return ReadDbFile(path, out); }        \
  void Db::SortRecords() { SortDb(this); }                                                       \
  bool operator==(const Db& a, const Db& b) { return DbEqual(a, b); }

#endif
