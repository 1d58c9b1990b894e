// raw_snapshot.h: the storage OpenSM's subnet is copied into under its lock
// (RawSnapshot), and the step after the lock is released that turns the
// copy into an SMDB (BuildSmdb).
//
// A RawSnapshot is reused from one extraction to the next so that, once
// the fabric's size is known, the copy under the lock allocates nothing:
// its arrays keep their size, and only an overflow (the fabric grew) makes
// Grow() reallocate, outside the lock, before the walk is retried.
//
// Owned by the worker thread (ExtractWorker); not thread-safe.
#ifndef IBACM_SSA_OPENSM_PLUGIN_RAW_SNAPSHOT_H
#define IBACM_SSA_OPENSM_PLUGIN_RAW_SNAPSHOT_H

#include <cstddef>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "opensm_plugin/osm_bridge.h"

namespace ssa {
namespace opensm_plugin {

class RawSnapshot {
 public:
  RawSnapshot();
  RawSnapshot(const RawSnapshot&) = delete;
  RawSnapshot& operator=(const RawSnapshot&) = delete;

  // The buffers to hand to ssa_osm_extract; they point into this object.
  ssa_raw_buffers* buffers() { return &b_; }
  const ssa_raw_buffers& raw() const { return b_; }

  // After an extraction that overflowed: resizes every array to at least
  // what the walk counted, with headroom so that a slowly growing fabric
  // does not overflow on every sweep. Throws std::bad_alloc.
  void Grow();
  // Total bytes of the arrays (for the log).
  size_t CapacityBytes() const;

 private:
  void Expose();

  ssa_raw_buffers b_{};
  // The storage of each raw array, name_ for b_.name (osm_bridge.h).
#define SSA_RAW_VECTOR(type, name) std::vector<type> name##_;
  SSA_RAW_ARRAYS(SSA_RAW_VECTOR)
#undef SSA_RAW_VECTOR
};

// What BuildSmdb had to drop or fix (OpenSM inconsistencies, reported in
// the log; normally all zero).
struct BuildReport {
  size_t duplicate_keys = 0;  // records dropped because their key repeated
  size_t dangling_links = 0;  // links whose peer node is not in the snapshot
};

// Turns a complete extraction into SMDB records, every table sorted by key.
// Epochs are left at 0 (the caller runs BumpEpochs). Throws std::bad_alloc.
void BuildSmdb(const ssa_raw_buffers& raw, smdb::Smdb* out, BuildReport* report);

}  // namespace opensm_plugin
}  // namespace ssa

#endif
