// smdb_delta_read.h: internal to smdb_delta*.cc. Reading a delta (its
// header, then each section's header and changes, checked against the
// schema and the base table) and merging a section's changes into a
// table's bytes: what ApplyDelta, ApplyDeltaKnown and SpliceDelta share;
// and finding the sections of a serialization and of an accepted delta,
// what SpliceDelta and its catch-up (smdb_delta_catch_up.cc) share.
// Byte layouts in smdb_format.h.
//
// Pure functions on caller-owned data; any thread.
#ifndef IBACM_SSA_COMMON_SMDB_SMDB_DELTA_READ_H
#define IBACM_SSA_COMMON_SMDB_SMDB_DELTA_READ_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_format.h"

namespace ssa {
namespace smdb {

// "smdb delta": how messages about a delta start.
std::string DeltaWhat(const DbSchema& schema);

// ---- The delta header ----

struct DeltaHeader {
  uint16_t size = 0;
  uint32_t sections = 0;
  uint64_t base_epoch = 0, new_epoch = 0;
  uint32_t base_digest = 0, new_digest = 0;
};
// The header at p[0, len): length, version, CRC, reserved field, db type.
Status ReadDeltaHeader(const DbSchema& schema, const uint8_t* p, size_t len, DeltaHeader* h);
// The error for a delta made against another database (global epoch
// `epoch`, digest `digest`).
Status WrongBase(const DbSchema& schema, const DeltaHeader& h, uint64_t epoch, uint32_t digest);
// The checks after the last section: no bytes follow it (it ended at
// `off` of `len`), and the result's digest is the one the header promised.
Status CheckNoTail(const DbSchema& schema, size_t off, size_t len);
Status CheckResultDigest(const DbSchema& schema, const DeltaHeader& h, uint32_t digest);

// ---- One section ----

// A section's changes: keys removed and records put, each list in strict
// key order once checked.
struct DeltaOps {
  const uint8_t* removed;  // n_removed keys
  uint32_t n_removed;
  const uint8_t* puts;  // n_puts records
  uint32_t n_puts;
};

// One delta section as the appliers read it: its header, checked against
// the schema, then where its changes are.
struct DeltaSection {
  const uint8_t* at = nullptr;  // the section header
  size_t index = 0;             // of the table in the schema
  const TableSchema* table = nullptr;
  std::string where;  // "smdb delta: table 'ports' (id 4)"
  uint16_t header_size = 0;
  DeltaOps ops{};   // set by LocateChanges
  size_t size = 0;  // header and changes; set by LocateChanges

  DeltaSectionView header() const { return DeltaSectionView(at); }
  Status Corrupt(const std::string& why) const;
};

// The phases of reading a section, in this order (a section that fails
// one is rejected with that phase's error):
//   ReadSectionHeader: the header at p[0, avail): its length, size, CRC and
//     reserved field, the section order (*last_id is the previous
//     section's table id) and a known table whose record and key sizes it
//     has;
//   CheckBaseTable: the table it applies to is the one it was made
//     against (record count, epoch, payload CRC);
//   LocateChanges: the changes after the header (of the `avail` bytes from
//     the section's start) are within the size limits, present, and match
//     their CRC; sets sec->ops and sec->size.
Status ReadSectionHeader(const DbSchema& schema, const uint8_t* p, size_t avail, int* last_id,
                         DeltaSection* sec);
Status CheckBaseTable(const DeltaSection& sec, uint64_t count, uint64_t epoch, uint32_t crc);
Status LocateChanges(size_t avail, DeltaSection* sec);

// ---- Merging ----

// The n keys (each `stride` bytes apart, compared on their first `ks`
// bytes) strictly increase; `what` names them in the error.
Status CheckStrictOrder(const uint8_t* p, uint32_t n, size_t stride, size_t ks,
                        const std::string& where, const char* what);
// old + ops -> *out, all of the same record layout.
Status MergeTable(const RawTable& old, const DeltaOps& ops, const TableSchema& t,
                  const std::string& where, std::string* out);
// Merges `ops` into `base` and checks the result against what the delta
// promised: its record count, valid records and the table CRC.
Status MergeChecked(const DbSchema& schema, const TableSchema& t, const RawTable& base,
                    const DeltaOps& ops, const std::string& where, uint32_t new_count,
                    uint32_t new_crc, std::string* merged);

// The first index in [lo, n) whose element is not below the key
// (below(i): element i is), n if none: a search from where the previous
// put's record was, widening 1, 2, 4, ... before halving. Why: a delta's
// puts ascend and sit close together (a switch's LFT blocks), so the probes
// stay near `lo` in memory already read; a plain binary search over the
// whole rest of a 2-million-record table missed the cache about 21 times
// per put.
template <class Below>
size_t LowerBoundFrom(size_t lo, size_t n, Below below) {
  size_t step = 1, hi = lo;
  while (hi < n && below(hi)) {
    lo = hi + 1;
    hi = lo + step < n ? lo + step : n;
    step *= 2;
  }
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (below(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// ---- An accepted delta and a serialization, in place ----
// (for splicing: the delta was accepted by ApplyDeltaKnown against the
// same base, which checked every CRC; only bounds are checked here.)

// The offset of each table section of `bytes` (a serialization as this
// format minor writes `schema`), in schema order; false when it is not
// laid out so.
bool FindTableSections(const DbSchema& schema, const std::string& bytes, std::vector<size_t>* at);
// The delta's section headers by table (nullptr for tables it leaves
// alone); false when its headers overrun `len`.
bool FindDeltaSections(const DbSchema& schema, const uint8_t* d, size_t len,
                       std::vector<const uint8_t*>* sec);
// The changes of the section whose header is at `sec`.
DeltaOps OpsOf(const TableSchema& t, const uint8_t* sec);
// True when the section at `sec` (changes `ops`) only replaces records:
// nothing removed, the same count, each put's key already there.
bool OnlyReplaces(const TableSchema& t, const uint8_t* sec, const DeltaOps& ops);
// The `count` records at `q` with each put written over the record of its
// key; false when some put's key is not there.
bool ReplaceInPlace(const TableSchema& t, uint8_t* q, uint32_t count, const DeltaOps& ops);
// The `count` records at `payload` with the changes of the section at
// `sec`, appended to *out: put over in place when it only replaces, else
// merged.
Status SpliceSection(const TableSchema& t, const uint8_t* sec, const uint8_t* payload,
                     uint32_t count, std::string* out);

}  // namespace smdb
}  // namespace ssa

#endif
