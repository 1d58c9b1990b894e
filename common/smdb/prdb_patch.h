// prdb_patch.h: a consumer's next PRDB made from the previous one's
// image (prdb_image.h) and the few paths recomputed, without parsing,
// sorting, copying or re-hashing the whole PRDB: the access node's
// incremental update (distrib/prdb_service.h), which keeps only each
// consumer's image.
//
// The result, made whole, is byte for byte what Prdb::Serialize gives for
// the new PRDB, its digest (CRC32 of the whole serialization) what
// DigestOf gives, and the delta what MakeDelta(old, new) gives. When no
// path appears or disappears the changed paths become overrides of the
// same base and the table CRC and the digest follow by CRC arithmetic
// (Crc32Patch, Crc32Combine): O(changes * log size), nothing proportional
// to the PRDB. Paths that appear or disappear, or overrides past
// `max_overrides`, cost one copy (or merge) into a whole serialization and
// one CRC pass; that one is the next versions' base.
//
// Pure function; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_PRDB_PATCH_H
#define IBACM_SSA_COMMON_SMDB_PRDB_PATCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/buffer_recycler.h"
#include "common/base/status.h"
#include "common/smdb/prdb_image.h"
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
  std::shared_ptr<const PrdbImage> image;
  bool made_whole = false;  // written whole (a new base), not overrides
  uint32_t digest = 0;
  std::string delta;   // from the old version to this one
  size_t changed = 0;  // path records put or removed
  uint32_t paths = 0;  // path records in `bytes`
};

// `old` is a PRDB image whose digest is `old_digest`; `updates` (any
// order, one per pair) are the pairs recomputed, every other path is kept;
// the result is stamped with `epoch` (header and source record). It keeps
// old's base with at most `max_overrides` overrides, else it is written
// whole in a buffer from `buffers` (null: new memory). EINVAL when `old`
// is not a PRDB of this format version's layout or `updates` repeats a
// key: the caller builds from scratch then.
Status PatchPrdb(const PrdbImage& old, uint32_t old_digest, uint64_t epoch,
                 std::vector<PathUpdate> updates, size_t max_overrides, BufferRecycler* buffers,
                 PatchedPrdb* out);

// The source record of `image`, a PRDB laid out as PatchPrdb needs it
// (EINVAL otherwise): whether a patch can start from it.
Status PrdbSourceOf(const PrdbImage& image, PrdbSource* source);

}  // namespace smdb
}  // namespace ssa

#endif
