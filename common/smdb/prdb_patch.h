// prdb_patch.h: a consumer's next PRDB made from the previous one's
// serialization and the few paths recomputed, without parsing, sorting or
// re-hashing the whole PRDB: the access node's incremental update
// (distrib/prdb_service.h), which keeps only each consumer's serialization.
//
// The result is byte for byte what Prdb::Serialize gives for the new PRDB,
// its digest (CRC32 of the whole serialization) what DigestOf gives, and
// the delta what MakeDelta(old, new) gives. When no path appears or
// disappears the paths are overwritten in place and the table CRC and the
// digest follow by CRC arithmetic (Crc32Patch, Crc32Combine): the cost is
// one copy of the bytes plus O(changes * log size), not a pass over the
// records. Paths that appear or disappear cost one merge and one CRC pass.
//
// Pure function; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_PRDB_PATCH_H
#define IBACM_SSA_COMMON_SMDB_PRDB_PATCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

// One recomputed (source LID, destination LID) pair: the key fields of
// `path` (dgid, sgid, dlid, slid) are always set; `present` says whether
// there is a path now (then `path` is the whole record).
struct PathUpdate {
  PrdbPath path;
  bool present = false;
};

struct PatchedPrdb {
  std::string bytes;
  uint32_t digest = 0;
  std::string delta;   // from the old version to this one
  size_t changed = 0;  // path records put or removed
  uint32_t paths = 0;  // path records in `bytes`
};

// `old_bytes` is a PRDB serialization whose digest is `old_digest`;
// `updates` (any order, one per pair) are the pairs recomputed, every other
// path is kept; the result is stamped with `epoch` (header and source
// record). EINVAL when `old_bytes` is not a PRDB of this format version's
// layout or `updates` repeats a key: the caller builds from scratch then.
Status PatchPrdb(const std::string& old_bytes, uint32_t old_digest, uint64_t epoch,
                 std::vector<PathUpdate> updates, PatchedPrdb* out);

// The source record of `bytes`, a PRDB laid out as PatchPrdb needs it
// (EINVAL otherwise): whether a patch can start from it.
Status PrdbSourceOf(const std::string& bytes, PrdbSource* source);

}  // namespace smdb
}  // namespace ssa

#endif
