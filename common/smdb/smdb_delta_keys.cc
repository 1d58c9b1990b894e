// smdb_delta_keys.cc: ReadDeltaTableKeys, ReadDeltaLftBlocks (smdb_delta.h).
#include <string>

#include "common/base/big_endian.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_delta_read.h"

namespace ssa {
namespace smdb {

Status ReadDeltaTableKeys(const DbSchema& schema, const uint8_t* p, size_t len, uint16_t table_id,
                          DeltaTableKeys* out) {
  *out = DeltaTableKeys();
  DeltaHeader h;
  Status s = ReadDeltaHeader(schema, p, len, &h);
  if (!s.ok()) return s;
  out->base_epoch = h.base_epoch;
  out->new_epoch = h.new_epoch;
  out->base_digest = h.base_digest;
  out->new_digest = h.new_digest;
  const int want = schema.IndexOf(table_id);
  if (want < 0)
    return Status::Error(kErrInvalidInput,
                         DeltaWhat(schema) + ": no table " + std::to_string(table_id));
  out->key_size = schema.tables[static_cast<size_t>(want)].key_size;
  size_t off = h.size;
  int last_id = -1;
  for (uint32_t i = 0; i < h.sections; ++i) {
    DeltaSection sec;
    s = ReadSectionHeader(schema, p + off, len - off, &last_id, &sec);
    if (s.ok()) s = LocateChanges(len - off, &sec);
    if (!s.ok()) return s;
    if (sec.index == static_cast<size_t>(want)) {
      // Removed keys, then the keys of the records put (their first
      // key_size bytes).
      const uint32_t ks = out->key_size, rs = sec.table->record_size;
      out->keys.reserve((size_t{sec.ops.n_removed} + sec.ops.n_puts) * ks);
      out->keys.append(reinterpret_cast<const char*>(sec.ops.removed),
                       size_t{sec.ops.n_removed} * ks);
      for (uint32_t k = 0; k < sec.ops.n_puts; ++k)
        out->keys.append(reinterpret_cast<const char*>(sec.ops.puts) + size_t{k} * rs, ks);
      out->count = size_t{sec.ops.n_removed} + sec.ops.n_puts;
      out->present = true;
    }
    off += sec.size;
  }
  return CheckNoTail(schema, off, len);
}

Status ReadDeltaLftBlocks(const std::string& delta, DeltaTableKeys* keys,
                          std::vector<std::pair<uint64_t, uint16_t>>* blocks) {
  blocks->clear();
  Status st = ReadDeltaTableKeys(Smdb::Schema(), reinterpret_cast<const uint8_t*>(delta.data()),
                                 delta.size(), SmdbLftBlock::kTableId, keys);
  if (!st.ok()) return st;
  constexpr uint32_t kKeyBytes = 10;  // node_guid, block: big-endian
  if (keys->present && keys->key_size != kKeyBytes)
    return Status::Error(kErrInvalidInput, "an lft_blocks key of " +
                                               std::to_string(keys->key_size) + " bytes, not 10");
  const uint8_t* p = reinterpret_cast<const uint8_t*>(keys->keys.data());
  blocks->reserve(keys->count);
  for (size_t i = 0; i < keys->count; ++i, p += kKeyBytes)
    blocks->emplace_back(GetBe64(p), GetBe16(p + 8));
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
