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

Status Smdb::Parse(const uint8_t* data, size_t len, Smdb* out) {
  SmdbStreamReader reader;
  Status s = reader.Feed(data, len);
  if (!s.ok()) return s;
  return reader.Finish(out);
}

Status Smdb::WriteFile(const std::string& path) const {
  std::string bytes;
  Status s = Serialize(&bytes);
  if (!s.ok()) return s.WithContext(path);
  return WriteFileAtomically(path, bytes);
}

Status Smdb::ReadFile(const std::string& path, Smdb* out) {
  std::string bytes;
  Status s = ReadWholeFile(path, &bytes);
  if (!s.ok()) return s;
  return Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out).WithContext(path);
}

void Smdb::SortRecords() { SortDb(this); }

bool operator==(const Smdb& a, const Smdb& b) { return DbEqual(a, b); }

}  // namespace smdb
}  // namespace ssa
