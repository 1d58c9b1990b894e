// smdb_delta.h: deltas between two versions of an SMDB (or PRDB), and the
// epoch bookkeeping that goes with them. Byte format in smdb_format.h.
//
// A delta lists, per changed table, the keys removed and the records put
// (inserted, or replacing the record with the same key): records are
// addressed by their natural key (GUID, GUID+port, switch+block, ...), not
// by position, so inserting one node does not shift every later record
// into the delta. Applying checks the base first (global epoch and a CRC of
// its whole serialization), so a delta applied to any other version is
// rejected as such (ESTALE), and checks the result table by table and as a
// whole, so the result is the new version byte for byte or an error.
//
// Deltas apply only between peers of the same format minor: the digests
// cover the exact serialization. A peer of another minor gets the full
// database instead (which any minor of the same major can read).
//
// Pure functions; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_DELTA_H
#define IBACM_SSA_COMMON_SMDB_SMDB_DELTA_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/addr_db.h"
#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

// Encodes what turns `old` into `neu` (tables whose records or epoch
// differ). Fails (EINVAL) only if either database breaks the format's rules
// (unsorted keys, ...), as Serialize would.
Status MakeDelta(const Smdb& old, const Smdb& neu, std::string* delta);
Status MakeDelta(const Prdb& old, const Prdb& neu, std::string* delta);
Status MakeDelta(const AddrDb& old, const AddrDb& neu, std::string* delta);

// Applies `delta` to `old`; `out` is written only on success and may be
// `&old`. Errors: ESTALE for a delta made against another base, EBADMSG
// for a malformed or corrupted delta, EPROTONOSUPPORT for another version.
Status ApplyDelta(const Smdb& old, const uint8_t* delta, size_t len, Smdb* out);
Status ApplyDelta(const Prdb& old, const uint8_t* delta, size_t len, Prdb* out);
Status ApplyDelta(const AddrDb& old, const uint8_t* delta, size_t len, AddrDb* out);

// The keys one table's section of a delta touches: the keys it removes,
// then the keys of the records it puts, `count` keys of `key_size` bytes
// each, back to back (no section for the table: none, `present` false);
// with the delta's epochs and digests. For a holder that applied the delta already and
// wants to know where it changed things (the route diff): the sections'
// layout and CRCs are checked, the base is not.
struct DeltaTableKeys {
  uint64_t base_epoch = 0, new_epoch = 0;
  uint32_t base_digest = 0, new_digest = 0;
  bool present = false;
  uint32_t key_size = 0;
  size_t count = 0;
  std::string keys;
};
Status ReadDeltaTableKeys(const DbSchema& schema, const uint8_t* delta, size_t len,
                          uint16_t table_id, DeltaTableKeys* out);
// The SMDB LFT blocks an SMDB delta removes or puts, as (switch node GUID,
// block number) in the section's order, with the delta's epochs and
// digests in `keys` (its `keys` bytes decoded into `blocks`). The route
// diff and the index's LFT catch-up (lft_lineage.h) read them.
Status ReadDeltaLftBlocks(const std::string& delta, DeltaTableKeys* keys,
                          std::vector<std::pair<uint64_t, uint16_t>>* blocks);

// What a replica knows of the database it holds: the digest (CRC32 of the
// whole serialization) and each table's payload CRC, schema order.
struct DbCrcs {
  uint32_t digest = 0;
  std::vector<uint32_t> tables;
};
// The table CRCs read from a serialization that parsed (the section
// headers carry them; `digest` is left 0 for the caller, who computed it to
// check the transfer); EINVAL if `bytes` is not laid out as one.
Status DbCrcsOf(const uint8_t* bytes, size_t len, DbCrcs* out);

// ApplyDelta for a holder that knows `old`'s CRCs: the same checks and the
// same result, without encoding or hashing what the delta does not touch.
// A table whose records the delta only replaces (same keys) gets its CRC by
// CRC arithmetic over the replaced records; one with records inserted or
// removed is re-encoded and hashed; the digest is combined from the table
// CRCs. *out_crcs are the result's. `out` may not be `&old`; it is built
// in place, keeping its vectors' storage where it is big enough, and holds
// nothing of use after an error.
//
// `made_old`: *out holds the version this delta turned into `old`, one the
// caller accepted it for (the caller proves it: tree::DbReplica). Then
// only the tables and records it names are copied from `old` into *out,
// not the whole database; the result is the same.
Status ApplyDeltaKnown(const Smdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Smdb* out, DbCrcs* out_crcs, const std::string* made_old = nullptr);
Status ApplyDeltaKnown(const Prdb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       Prdb* out, DbCrcs* out_crcs, const std::string* made_old = nullptr);
Status ApplyDeltaKnown(const AddrDb& old, const DbCrcs& old_crcs, const uint8_t* delta, size_t len,
                       AddrDb* out, DbCrcs* out_crcs, const std::string* made_old = nullptr);

// The serialization of what ApplyDeltaKnown made, from `old_bytes` (the
// serialization of its `old`) and the same delta, without encoding a
// record: tables the delta does not name are copied, records it only
// replaces are overwritten where their keys are, tables with records
// inserted or removed are merged. It trusts the delta: call it only after
// ApplyDeltaKnown accepted that delta for that base (which checked every
// CRC). EINVAL when `old_bytes` is not laid out as this format minor writes
// `schema` (the caller serializes the result instead). Written into
// *out's storage (its capacity is kept); nothing of use after an error.
Status SpliceDelta(const DbSchema& schema, const std::string& old_bytes, const uint8_t* delta,
                   size_t len, std::string* out);
// SpliceDelta into an *out that holds the serialization of the version
// `made_old` turned into `old_bytes` (both deltas accepted by
// ApplyDeltaKnown; the caller proves what *out holds: tree::DbReplica),
// when the result is laid out as *out is (every table's record count the
// same: a link that went down and came back): only the tables and records
// the two deltas name are written, in place. EINVAL when the layouts
// differ or *out is not laid out as this format minor writes `schema`
// (the caller splices whole instead); nothing of use after an error.
Status SpliceDeltaCatchUp(const DbSchema& schema, const std::string& old_bytes,
                          const std::string& made_old, const uint8_t* delta, size_t len,
                          std::string* out);

// Sets next's epochs from previous: a table whose records are unchanged
// keeps its epoch, a changed table gets previous.global_epoch + 1, and the
// global epoch is previous.global_epoch + 1 if any table changed, else
// previous.global_epoch. The producer calls it on each new extraction.
void BumpEpochs(const Smdb& previous, Smdb* next);
void BumpEpochs(const Prdb& previous, Prdb* next);
void BumpEpochs(const AddrDb& previous, AddrDb* next);

}  // namespace smdb
}  // namespace ssa

#endif
