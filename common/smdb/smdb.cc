// smdb.cc: Smdb's members. The bodies are the templates shared with Prdb
// (smdb_codec.h); parsing is the stream reader fed the whole buffer.
#include "common/smdb/smdb.h"

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_stream.h"

namespace ssa {
namespace smdb {

const DbSchema& Smdb::Schema() {
  static const DbSchema schema = BuildSchema<Smdb>();
  return schema;
}

Status Smdb::Serialize(std::string* out) const { return SerializeDb(*this, out); }

Status Smdb::Parse(const uint8_t* data, size_t len, Smdb* out) { return ParseDb(data, len, out); }
Status Smdb::WriteFile(const std::string& path) const { return WriteDbFile(*this, path); }
Status Smdb::ReadFile(const std::string& path, Smdb* out) { return ReadDbFile(path, out); }

void Smdb::SortRecords() { SortDb(this); }

bool operator==(const Smdb& a, const Smdb& b) { return DbEqual(a, b); }

}  // namespace smdb
}  // namespace ssa
