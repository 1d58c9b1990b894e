// smdb_delta_catch_up.cc: SpliceDeltaCatchUp (smdb_delta.h): a recycled
// serialization two versions old brought to the new version in place,
// writing only what the two deltas since then name.
//
// Why: a member splices each SMDB version's 171 MB serialization (at the
// full subnet) into the buffer of the version it released two before
// (tree::DbReplica); copying it whole was a third of the member's update.
// Between versions two apart whose every table has the same record count
// (the common flap: a link down, back up, down again) the sections sit at
// the same offsets, so only the named tables' headers and records move.
#include <cstring>
#include <string>
#include <vector>

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_delta.h"
#include "common/smdb/smdb_delta_read.h"

namespace ssa {
namespace smdb {

Status SpliceDeltaCatchUp(const DbSchema& schema, const std::string& old_bytes,
                          const std::string& made_old, const uint8_t* d, size_t len,
                          std::string* out) {
  auto bad = [] { return Status::Error(kErrInvalidInput, "not a serialization to catch up"); };
  const uint8_t* m = reinterpret_cast<const uint8_t*>(made_old.data());
  std::vector<size_t> at_old, at_out;
  std::vector<const uint8_t*> before, last;  // made_old's sections, the delta's
  if (!FindTableSections(schema, old_bytes, &at_old) || !FindTableSections(schema, *out, &at_out) ||
      made_old.size() < kDeltaHeaderSize || len < kDeltaHeaderSize ||
      !FindDeltaSections(schema, m, made_old.size(), &before) ||
      !FindDeltaSections(schema, d, len, &last))
    return bad();
  const uint8_t* p = reinterpret_cast<const uint8_t*>(old_bytes.data());
  uint8_t* o = reinterpret_cast<uint8_t*>(&(*out)[0]);
  // The result's layout must be *out's: each table's count (the delta's
  // new count, else old's) the one *out holds, so every section stays put.
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    const uint32_t count = last[i] ? DeltaSectionView(last[i])[delta_section::kNewCount]
                                   : SectionHeaderView(p + at_old[i])[section_header::kRecordCount];
    if (count != SectionHeaderView(o + at_out[i])[section_header::kRecordCount]) return bad();
  }
  // Checked: from here on nothing fails but a put whose key is not where
  // an accepted delta says it is (the caller then splices whole).
  EncodeDbHeader(schema, DeltaHeaderView(d)[delta_header::kNewGlobalEpoch], o);
  for (size_t i = 0; i < schema.tables.size(); ++i) {
    if (!before[i] && !last[i]) continue;  // the same in all three versions
    const TableSchema& t = schema.tables[i];
    uint8_t* header = o + at_out[i];
    uint8_t* payload = header + kSectionHeaderSize;
    const uint32_t count = SectionHeaderView(header)[section_header::kRecordCount];
    const size_t size = size_t{count} * t.record_size;
    const DeltaOps ops_before = before[i] ? OpsOf(t, before[i]) : DeltaOps{};
    const DeltaOps ops_last = last[i] ? OpsOf(t, last[i]) : DeltaOps{};
    const bool replaces_before = !before[i] || OnlyReplaces(t, before[i], ops_before);
    const bool replaces_last = !last[i] || OnlyReplaces(t, last[i], ops_last);
    if (last[i]) {
      const DeltaSectionView s(last[i]);
      EncodeTableHeader(t, count, s[delta_section::kNewCrc], s[delta_section::kNewEpoch], header);
    } else {  // the delta left it as made_old made it: old's header
      std::memcpy(header, p + at_old[i], kSectionHeaderSize);
    }
    if (replaces_before && replaces_last) {
      // The same keys at the same places in all three: each put over its record.
      if ((before[i] && !ReplaceInPlace(t, payload, count, ops_before)) ||
          (last[i] && !ReplaceInPlace(t, payload, count, ops_last)))
        return bad();
      continue;
    }
    // Records inserted or removed on the way: old's table, with the delta's
    // changes if it has some (its count *out's, checked above).
    const uint8_t* from = p + at_old[i] + kSectionHeaderSize;
    if (!last[i]) {
      std::memcpy(payload, from, size);
      continue;
    }
    std::string table;
    table.reserve(size);
    const uint32_t old_count = SectionHeaderView(p + at_old[i])[section_header::kRecordCount];
    Status st = SpliceSection(t, last[i], from, old_count, &table);
    if (!st.ok()) return st;
    if (table.size() != size) return bad();
    std::memcpy(payload, table.data(), size);
  }
  return Status::Ok();
}

}  // namespace smdb
}  // namespace ssa
