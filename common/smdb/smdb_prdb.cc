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

Status Prdb::Parse(const uint8_t* data, size_t len, Prdb* out) {
  PrdbStreamReader reader;
  Status s = reader.Feed(data, len);
  if (!s.ok()) return s;
  return reader.Finish(out);
}

Status Prdb::WriteFile(const std::string& path) const {
  std::string bytes;
  Status s = Serialize(&bytes);
  if (!s.ok()) return s.WithContext(path);
  return WriteFileAtomically(path, bytes);
}

Status Prdb::ReadFile(const std::string& path, Prdb* out) {
  std::string bytes;
  Status s = ReadWholeFile(path, &bytes);
  if (!s.ok()) return s;
  return Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), out).WithContext(path);
}

void Prdb::SortRecords() { SortDb(this); }

bool operator==(const Prdb& a, const Prdb& b) { return DbEqual(a, b); }

}  // namespace smdb
}  // namespace ssa
