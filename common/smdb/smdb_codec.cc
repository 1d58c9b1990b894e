// smdb_codec.cc: the non-template parts of smdb_codec.h: record-order
// checks, raw serialization and digest, whole-file I/O.
#include "common/smdb/smdb_codec.h"

#include <cerrno>
#include <cstdio>

namespace ssa {
namespace smdb {

std::string TableWhere(const DbSchema& schema, uint16_t id) {
  return std::string(schema.name()) + ": " + DescribeTable(schema, id);
}

Status CheckTableSize(const DbSchema& schema, const TableSchema& t, uint64_t count) {
  if (count * t.record_size <= kMaxTableBytes) return Status::Ok();
  return Status::Error(kErrInvalidInput, TableWhere(schema, t.id) + ": " + std::to_string(count) +
                                             " records exceed the table size limit");
}

Status CheckRecords(const DbSchema& schema, const TableSchema& t, const uint8_t* payload,
                    uint32_t count, uint32_t record_size, int err) {
  if (t.single_record && count != 1) {
    return Status::Error(err, TableWhere(schema, t.id) + ": " + std::to_string(count) +
                                  " records, expected exactly 1");
  }
  for (uint32_t i = 1; i < count; ++i) {
    const uint8_t* prev = payload + size_t{i - 1} * record_size;
    const uint8_t* cur = prev + record_size;
    if (std::memcmp(prev, cur, t.key_size) >= 0) {
      return Status::Error(err, TableWhere(schema, t.id) + ": record " + std::to_string(i) +
                                    " is not after record " + std::to_string(i - 1) +
                                    " in key order (keys must be sorted and unique)");
    }
  }
  return Status::Ok();
}

void EncodeDbHeader(const DbSchema& schema, uint64_t global_epoch, uint8_t* out) {
  FileHeader fh;
  fh.db_type = static_cast<uint16_t>(schema.type);
  fh.table_count = static_cast<uint32_t>(schema.tables.size());
  fh.global_epoch = global_epoch;
  EncodeFileHeader(fh, out);
}

void EncodeTableHeader(const TableSchema& t, uint32_t record_count, uint32_t payload_crc,
                       uint64_t table_epoch, uint8_t* out) {
  SectionHeader sh;
  sh.table_id = t.id;
  sh.record_size = t.record_size;
  sh.record_count = record_count;
  sh.payload_crc = payload_crc;
  sh.table_epoch = table_epoch;
  EncodeSectionHeader(sh, out);
}

uint32_t DigestRaw(const DbSchema& schema, const RawDb& raw) {
  uint32_t crc = 0;
  EmitRaw(schema, raw, [&crc](const uint8_t* p, size_t n) { crc = Crc32(p, n, crc); });
  return crc;
}

}  // namespace smdb
}  // namespace ssa
