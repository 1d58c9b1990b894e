// smdb_stream.cc: the incremental SMDB/PRDB reader (smdb_stream.h). The
// input is a sequence of pieces (file header, then per table a section
// header and a payload); each is collected, then checked as a whole.
#include "common/smdb/smdb_stream.h"

#include <algorithm>
#include <utility>

#include "common/smdb/smdb_codec.h"

namespace ssa {
namespace smdb {

DbStreamReader::DbStreamReader(const DbSchema* schema, TableSink sink)
    : schema_(schema),
      sink_(std::move(sink)),
      need_(kFileHeaderSize),
      seen_(schema->tables.size(), false) {}

Status DbStreamReader::Fail(Status status) {
  state_ = State::kFailed;
  error_ = status;
  buf_.clear();
  buf_.shrink_to_fit();
  return status;
}

Status DbStreamReader::Feed(const uint8_t* data, size_t len) {
  if (state_ == State::kFailed) return error_;
  while (len > 0) {
    if (state_ == State::kDone) {
      // The offset, not the count of bytes left: the message must not
      // depend on how the stream was chunked.
      return Fail(Status::Error(kErrCorrupt, std::string(schema_->name()) +
                                                 ": unexpected bytes after the last table (which "
                                                 "ends at offset " +
                                                 std::to_string(consumed_) + ")"));
    }
    // A payload that arrives whole is checked in place: the whole-buffer
    // parse of a large database copies nothing.
    if (state_ == State::kPayload && buf_.empty() && len >= need_) {
      size_t n = need_;  // CompletePiece moves need_ on to the next piece
      Status s = CompletePiece(data, n);
      data += n;
      len -= n;
      consumed_ += n;
      if (!s.ok()) return s;
      continue;
    }
    size_t take = std::min(len, need_ - buf_.size());
    buf_.append(reinterpret_cast<const char*>(data), take);
    data += take;
    len -= take;
    consumed_ += take;
    if (buf_.size() < need_) break;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(buf_.data());
    if (state_ != State::kPayload && !have_size_) {
      // The fixed part of a header is in: it says how long the header is.
      Status s = state_ == State::kFileHeader ? OnFileHeaderStart(p) : OnSectionHeaderStart(p);
      if (!s.ok()) return s;
      have_size_ = true;
      if (buf_.size() < need_) continue;
    }
    std::string piece;
    piece.swap(buf_);
    Status s = CompletePiece(reinterpret_cast<const uint8_t*>(piece.data()), piece.size());
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status DbStreamReader::CompletePiece(const uint8_t* p, size_t n) {
  switch (state_) {
    case State::kFileHeader: return OnFileHeader(p, n);
    case State::kSectionHeader: return OnSectionHeader(p, n);
    case State::kPayload: return OnPayload(p, n);
    default: return error_;
  }
}

Status DbStreamReader::OnFileHeaderStart(const uint8_t* p) {
  uint16_t size = 0;
  Status s = CheckHeaderStart(p, kDbMagic, kFileHeaderSize, schema_->name(), &size);
  if (!s.ok()) return Fail(s);
  need_ = size;
  return Status::Ok();
}

Status DbStreamReader::OnFileHeader(const uint8_t* p, size_t n) {
  Status s = DecodeFileHeader(p, n, schema_->name(), &header_);
  if (!s.ok()) return Fail(s);
  uint16_t want = static_cast<uint16_t>(schema_->type);
  if (header_.db_type != want) {
    return Fail(Status::Error(kErrCorrupt, std::string(schema_->name()) + ": header: db_type " +
                                               std::to_string(header_.db_type) + " (" +
                                               DbTypeName(header_.db_type) + "), expected " +
                                               std::to_string(want)));
  }
  return StartNextSection();
}

Status DbStreamReader::StartNextSection() {
  if (sections_read_ < header_.table_count) {
    state_ = State::kSectionHeader;
    need_ = kSectionHeaderSize;
    have_size_ = false;
    return Status::Ok();
  }
  for (size_t i = 0; i < seen_.size(); ++i) {
    if (!seen_[i] && schema_->tables[i].since_minor <= header_.minor) {
      return Fail(Status::Error(kErrCorrupt, TableWhere(*schema_, schema_->tables[i].id) +
                                                 ": missing (the header lists " +
                                                 std::to_string(header_.table_count) + " tables)"));
    }
  }
  state_ = State::kDone;
  need_ = 0;
  return Status::Ok();
}

Status DbStreamReader::OnSectionHeaderStart(const uint8_t* p) {
  uint16_t size = 0;
  Status s = CheckSectionHeaderSize(
      p, header_.minor, kSectionHeaderSize,
      TableWhere(*schema_, SectionStartView(p)[section_start::kTableId]), &size);
  if (!s.ok()) return Fail(s);
  need_ = size;
  return Status::Ok();
}

Status DbStreamReader::OnSectionHeader(const uint8_t* p, size_t n) {
  std::string where = TableWhere(*schema_, SectionStartView(p)[section_start::kTableId]);
  Status s = DecodeSectionHeader(p, n, header_.minor, where, &section_);
  if (!s.ok()) return Fail(s);
  auto corrupt = [&](const std::string& why) {
    return Fail(Status::Error(kErrCorrupt, where + ": " + why));
  };
  if (static_cast<int>(section_.table_id) <= last_id_) {
    return corrupt("out of order (after table id " + std::to_string(last_id_) +
                   "; ids must increase)");
  }
  last_id_ = section_.table_id;
  table_index_ = schema_->IndexOf(section_.table_id);
  bool newer = header_.minor > kFormatMinor;
  if (table_index_ < 0 && !newer) {
    return corrupt("unknown table id in a version " + std::to_string(header_.major) + "." +
                   std::to_string(header_.minor) + " " + schema_->name());
  }
  if (section_.record_size == 0) return corrupt("record size 0");
  if (table_index_ >= 0) {
    const TableSchema& t = schema_->tables[static_cast<size_t>(table_index_)];
    if (section_.record_size < t.record_size || (!newer && section_.record_size != t.record_size)) {
      return corrupt("record size " + std::to_string(section_.record_size) + ", expected " +
                     std::to_string(t.record_size));
    }
    if (t.single_record && section_.record_count != 1) {
      return corrupt(std::to_string(section_.record_count) + " records, expected exactly 1");
    }
  }
  uint64_t bytes = uint64_t{section_.record_count} * section_.record_size;
  if (bytes > kMaxTableBytes) {
    return corrupt("record count " + std::to_string(section_.record_count) + " x record size " +
                   std::to_string(section_.record_size) + " = " + std::to_string(bytes) +
                   " bytes exceeds the table limit of " + std::to_string(kMaxTableBytes));
  }
  state_ = State::kPayload;
  need_ = static_cast<size_t>(bytes);
  if (need_ == 0) return OnPayload(nullptr, 0);
  return Status::Ok();
}

Status DbStreamReader::OnPayload(const uint8_t* p, size_t n) {
  std::string where = TableWhere(*schema_, section_.table_id);
  uint32_t crc = Crc32(p, n);
  if (crc != section_.payload_crc) {
    return Fail(Status::Error(kErrCorrupt, where + ": payload CRC mismatch (stored " +
                                               Hex32(section_.payload_crc) + ", computed " +
                                               Hex32(crc) + ")"));
  }
  if (table_index_ >= 0) {
    size_t index = static_cast<size_t>(table_index_);
    Status s = CheckRecords(*schema_, schema_->tables[index], p, section_.record_count,
                            section_.record_size, kErrCorrupt);
    if (s.ok()) s = sink_(index, section_, p);
    if (!s.ok()) return Fail(s);
    seen_[index] = true;
  }
  ++sections_read_;
  return StartNextSection();
}

std::string DbStreamReader::Where() const {
  if (state_ == State::kPayload) return TableWhere(*schema_, section_.table_id);
  if (buf_.size() >= 2) {
    const SectionStartView section(reinterpret_cast<const uint8_t*>(buf_.data()));
    return TableWhere(*schema_, section[section_start::kTableId]);
  }
  return std::string(schema_->name()) + ": table section " + std::to_string(sections_read_ + 1) +
         " of " + std::to_string(header_.table_count);
}

Status DbStreamReader::Finish() const {
  std::string got = std::to_string(buf_.size()) + " of " + std::to_string(need_);
  switch (state_) {
    case State::kDone: return Status::Ok();
    case State::kFailed: return error_;
    case State::kFileHeader:
      return Status::Error(kErrCorrupt, std::string(schema_->name()) +
                                            ": truncated in the file header (" + got + " bytes)");
    case State::kSectionHeader:
      return Status::Error(kErrCorrupt,
                           Where() + ": truncated in the section header (" + got + " bytes)");
    case State::kPayload:
      return Status::Error(kErrCorrupt, Where() + ": truncated payload (" + got + " bytes)");
  }
  return error_;
}

template <class Db>
DbReader<Db>::DbReader(TableCallback on_table)
    : on_table_(std::move(on_table)),
      raw_(&Db::Schema(),
           [this](size_t index, const SectionHeader& section, const uint8_t* payload) {
             return OnTable(index, section, payload);
           }) {}

template <class Db>
Status DbReader<Db>::OnTable(size_t index, const SectionHeader& section, const uint8_t* payload) {
  size_t i = 0;
  Db::ForEachTable(db_, [&](auto& table) {
    if (i++ != index) return;
    table.epoch = section.table_epoch;
    DecodeRecords(payload, section.record_count, section.record_size, &table.records);
  });
  if (on_table_) on_table_(Db::Schema().tables[index], section.record_count);
  return Status::Ok();
}

template <class Db>
Status DbReader<Db>::Finish(Db* out) {
  Status s = raw_.Finish();
  if (!s.ok()) return s;
  db_.global_epoch = raw_.header().global_epoch;
  *out = std::move(db_);
  db_ = Db();
  return Status::Ok();
}

template class DbReader<Smdb>;
template class DbReader<Prdb>;
template class DbReader<AddrDb>;

}  // namespace smdb
}  // namespace ssa
