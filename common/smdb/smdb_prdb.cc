// smdb_prdb.cc: Prdb's members: the templates shared with Smdb and AddrDb
// (smdb_codec.h); parsing is the stream reader fed the whole buffer.
#include "common/smdb/smdb_prdb.h"

#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_stream.h"

namespace ssa {
namespace smdb {

SSA_SMDB_DB_MEMBERS(Prdb)

}  // namespace smdb
}  // namespace ssa
