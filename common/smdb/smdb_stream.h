// smdb_stream.h: incremental readers for SMDB/PRDB byte streams (format in
// smdb_format.h). Feed the bytes as they arrive from a socket, in chunks of
// any size; each table is checked (header CRC, record size, payload CRC,
// key order) and decoded as soon as its last byte arrives, and the first
// error stops the reader for good. Smdb::Parse and Prdb::Parse are this
// reader fed the whole buffer, so both paths accept exactly the same input.
//
// DbStreamReader is the schema-driven container layer; SmdbStreamReader /
// PrdbStreamReader decode into the in-memory database.
//
// Not thread-safe: one reader per stream, used by one thread at a time.
// Readers hold a callback bound to themselves, so they cannot be copied or
// moved.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_STREAM_H
#define IBACM_SSA_COMMON_SMDB_SMDB_STREAM_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_format.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

class DbStreamReader {
 public:
  // Receives each table the schema knows once its payload is complete and
  // verified; `payload` (record_count * record_size bytes) is valid only
  // during the call. Tables of a newer minor that the schema does not know
  // are CRC-checked and skipped. A non-OK return stops the reader.
  using TableSink = std::function<Status(size_t table_index, const SectionHeader& section,
                                         const uint8_t* payload)>;

  // `schema` must outlive the reader.
  DbStreamReader(const DbSchema* schema, TableSink sink);
  DbStreamReader(const DbStreamReader&) = delete;
  DbStreamReader& operator=(const DbStreamReader&) = delete;

  // Consumes all of `data`, or fails: bytes past the end of the database
  // are an error too.
  Status Feed(const uint8_t* data, size_t len);
  // OK once the whole database has been read; otherwise the error that
  // stopped the reader, or what is missing ("truncated ...").
  Status Finish() const;
  bool done() const { return state_ == State::kDone; }
  // Valid once the file header has been read.
  const FileHeader& header() const { return header_; }

 private:
  enum class State { kFileHeader, kSectionHeader, kPayload, kDone, kFailed };

  Status Fail(Status status);
  Status CompletePiece(const uint8_t* p, size_t n);
  Status OnFileHeaderStart(const uint8_t* p);
  Status OnFileHeader(const uint8_t* p, size_t n);
  Status OnSectionHeaderStart(const uint8_t* p);
  Status OnSectionHeader(const uint8_t* p, size_t n);
  Status OnPayload(const uint8_t* p, size_t n);
  Status StartNextSection();
  std::string Where() const;  // the current table, for messages

  const DbSchema* schema_;
  TableSink sink_;
  State state_ = State::kFileHeader;
  std::string buf_;         // bytes of the current piece received so far
  size_t need_ = 0;         // size of the current piece
  bool have_size_ = false;  // headers: need_ is the full header size yet
  FileHeader header_;
  SectionHeader section_;
  int table_index_ = -1;  // schema index of the current section, -1: skipped
  uint32_t sections_read_ = 0;
  uint64_t consumed_ = 0;  // bytes of the stream taken so far
  int last_id_ = -1;
  std::vector<bool> seen_;
  Status error_;
};

// Typed reader: Feed as above, then Finish(&db). `on_table`, if set, is
// called as each known table completes (for progress logs).
template <class Db>
class DbReader {
 public:
  using TableCallback = std::function<void(const TableSchema& table, size_t records)>;

  explicit DbReader(TableCallback on_table = nullptr);
  DbReader(const DbReader&) = delete;
  DbReader& operator=(const DbReader&) = delete;

  Status Feed(const uint8_t* data, size_t len) { return raw_.Feed(data, len); }
  bool done() const { return raw_.done(); }
  // Moves the database out on success; the reader is spent either way.
  Status Finish(Db* out);

 private:
  Status OnTable(size_t index, const SectionHeader& section, const uint8_t* payload);

  Db db_;
  TableCallback on_table_;
  DbStreamReader raw_;
};

using SmdbStreamReader = DbReader<Smdb>;
using PrdbStreamReader = DbReader<Prdb>;
extern template class DbReader<Smdb>;
extern template class DbReader<Prdb>;
extern template class DbReader<AddrDb>;

// Db::Parse for every db type: the whole buffer through the reader.
template <class Db>
Status ParseDb(const uint8_t* data, size_t len, Db* out) {
  DbReader<Db> reader;
  Status s = reader.Feed(data, len);
  if (!s.ok()) return s;
  return reader.Finish(out);
}

}  // namespace smdb
}  // namespace ssa

#endif
