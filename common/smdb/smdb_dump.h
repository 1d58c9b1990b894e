// smdb_dump.h: the text form of an SMDB or PRDB, for people and for the
// CLI: one line for the database, then per table one line for the table
// and one per record, every field as name=value in wire order, e.g.
//   smdb global_epoch=7 tables=10
//   table nodes id=3 epoch=5 records=2
//   node node_guid=0x0002c90300000001 ... description="ca1 HCA-1"
// Integers are decimal, GUIDs/P_Keys/masks 0x-prefixed fixed-width hex,
// texts quoted with C escapes for anything not printable ASCII. The output
// is stable: same database, same text.
//
// Pure functions; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_DUMP_H
#define IBACM_SSA_COMMON_SMDB_SMDB_DUMP_H

#include <string>

#include "common/smdb/addr_db.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

std::string DumpSmdb(const Smdb& db);
std::string DumpPrdb(const Prdb& db);
std::string DumpAddrDb(const AddrDb& db);

}  // namespace smdb
}  // namespace ssa

#endif
