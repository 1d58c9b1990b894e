// prdb_image.h: one version of a consumer's PRDB serialization as an
// access node keeps it between updates: a whole serialization (the base,
// shared with the versions before) plus this version's own head (file
// header, section headers, source record: a few hundred bytes) and the
// path records that differ from the base's at the same positions.
//
// Why: an update changes a fraction of a percent of a consumer's records
// (a link change at the full subnet: about 0.5 per thousand), and the
// access node sends consumers the delta, not the PRDB. Copying each
// consumer's whole PRDB to overwrite those records cost an access node of
// 100 consumers at the full subnet 244 MB of copies per update (about 90
// ms here, a third of the update). An image costs what changed; the whole
// serialization is made only when something needs it: a child asking for
// a full transfer (Bytes()), a path appearing or disappearing (the
// records move), or the overrides past their bound (smdb::PatchPrdb).
//
// Immutable once made, except Bytes()'s cache (made once, under a mutex):
// shared between the service, its jobs and the data server's publication;
// any thread.
#ifndef IBACM_SSA_COMMON_SMDB_PRDB_IMAGE_H
#define IBACM_SSA_COMMON_SMDB_PRDB_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/base/mutex.h"
#include "common/smdb/smdb_codec.h"
#include "common/smdb/smdb_prdb.h"

namespace ssa {
namespace smdb {

class PrdbImage {
 public:
  // The layout of a PRDB of this format version: file header, source
  // section header and its one record, paths section header, paths.
  static constexpr size_t kSourceSize = WireSize<PrdbSource>();
  static constexpr size_t kPathSize = WireSize<PrdbPath>();
  static constexpr size_t kSourceHeader = kFileHeaderSize;
  static constexpr size_t kSourceRecord = kSourceHeader + kSectionHeaderSize;
  static constexpr size_t kPathsHeader = kSourceRecord + kSourceSize;
  static constexpr size_t kHeadSize = kPathsHeader + kSectionHeaderSize;  // first path

  struct Override {
    uint32_t pos;  // path index, the same key as the base's record there
    uint8_t record[kPathSize];
  };
  using Overrides = std::vector<Override>;  // ascending pos, no repeats

  // A whole serialization (no overrides).
  explicit PrdbImage(std::shared_ptr<const std::string> whole);
  // `base` with `head` (kHeadSize bytes) and `overrides` over it: the
  // caller (PatchPrdb) guarantees the base has the layout and the record
  // count the head names.
  PrdbImage(std::shared_ptr<const std::string> base, std::string head,
            std::shared_ptr<const Overrides> overrides);

  size_t size() const { return base_->size(); }
  bool whole() const { return !overrides_; }
  const std::shared_ptr<const std::string>& base() const { return base_; }
  // This version's first kHeadSize bytes (when the base has them).
  const uint8_t* head() const;
  size_t override_count() const { return overrides_ ? overrides_->size() : 0; }
  const Overrides* overrides() const { return overrides_.get(); }
  // Path `i` of this version (an override or the base's): `base_paths`
  // is the base's first path (base()->data() + kHeadSize).
  const uint8_t* PathAt(uint32_t i, const uint8_t* base_paths) const;

  // This version whole: the base itself, or made once and kept.
  std::shared_ptr<const std::string> Bytes() const;
  // Writes this version whole into `out` (its memory reused).
  void Materialize(std::string* out) const;
  // The whole serialization if Bytes() made it already, else null.
  std::shared_ptr<const std::string> MadeBytes() const;

 private:
  std::shared_ptr<const std::string> base_;
  std::string head_;                            // empty: the base's
  std::shared_ptr<const Overrides> overrides_;  // null: none
  mutable Mutex made_mutex_;
  mutable std::shared_ptr<const std::string> made_ GUARDED_BY(made_mutex_);
};

}  // namespace smdb
}  // namespace ssa

#endif
