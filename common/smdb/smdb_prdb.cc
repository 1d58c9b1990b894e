// smdb_prdb.cc: Prdb's members. The bodies are the templates shared with Smdb
// (smdb_codec.h); parsing is the stream reader fed the whole buffer.
#include "common/smdb/smdb_prdb.h"

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_stream.h"

namespace ssa {
namespace smdb {

const DbSchema& Prdb::Schema() {
  static const DbSchema schema = BuildSchema<Prdb>();
  return schema;
}

Status Prdb::Serialize(std::string* out) const { return SerializeDb(*this, out); }

Status Prdb::Parse(const uint8_t* data, size_t len, Prdb* out) { return ParseDb(data, len, out); }
Status Prdb::WriteFile(const std::string& path) const { return WriteDbFile(*this, path); }
Status Prdb::ReadFile(const std::string& path, Prdb* out) { return ReadDbFile(path, out); }

void Prdb::SortRecords() { SortDb(this); }

bool operator==(const Prdb& a, const Prdb& b) { return DbEqual(a, b); }

}  // namespace smdb
}  // namespace ssa
