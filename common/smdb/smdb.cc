// smdb.cc: Smdb's members: the templates shared with Prdb and AddrDb
// (smdb_codec.h); parsing is the stream reader fed the whole buffer.
#include "common/smdb/smdb.h"

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_stream.h"

namespace ssa {
namespace smdb {

SSA_SMDB_DB_MEMBERS(Smdb)

}  // namespace smdb
}  // namespace ssa
