// version_store.h: the plugin's dump directory, one file per SMDB version.
//
//   smdb.<epoch>          the version, in the SMDB file format (smdb.h)
//   delta.<from>-<to>     MakeDelta from the previous version (smdb_delta.h)
//   smdb.<epoch>.txt      DumpSmdb text, with dump_text=1
//   latest                symlink to the newest smdb.<epoch>
//
// Every file is written under a temporary name and renamed, and `latest`
// moves only after the version and its delta are in place, so a reader
// that follows `latest` never sees a half-written file or a version whose
// delta is still missing. Older versions beyond `keep` are removed, with
// the deltas that lead to them, but never the newest nor the one `latest`
// points to: a `latest` left behind by an older run (or a clock of epochs
// that went backwards) must not be made to dangle.
//
// Owned by SmdbProducer; used from the worker thread only.
#ifndef IBACM_SSA_OPENSM_PLUGIN_VERSION_STORE_H
#define IBACM_SSA_OPENSM_PLUGIN_VERSION_STORE_H

#include <cstdint>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "common/smdb/smdb.h"

namespace ssa {
namespace opensm_plugin {

class VersionStore {
 public:
  // Creates `dir` (and its parents) if needed and checks it is writable.
  static Status Open(const std::string& dir, int keep, VersionStore* out);

  const std::string& dir() const { return dir_; }
  std::string VersionPath(uint64_t epoch) const;
  std::string DeltaPath(uint64_t from, uint64_t to) const;
  std::string LatestPath() const { return dir_ + "/latest"; }

  // Reads the version `latest` points to; *found is false when there is
  // none. A version that does not parse is an error.
  Status LoadLatest(smdb::Smdb* out, bool* found) const;

  // Writes one version: its serialized bytes, optionally the delta from
  // `from_epoch` and a text dump, then moves `latest` and prunes.
  Status Write(uint64_t epoch, const std::string& bytes, const std::string* delta,
               uint64_t from_epoch, const std::string* text);

  // Reads smdb.<epoch> directly, whatever `latest` says.
  Status LoadVersion(uint64_t epoch, smdb::Smdb* out) const;

  // Epochs of the smdb.<epoch> files present, ascending.
  std::vector<uint64_t> ListVersions() const;

  // The epoch in the name `latest` points to (smdb.<epoch>); false when it
  // is missing, not a symlink, or names something else.
  bool LatestTarget(uint64_t* epoch) const;

 private:
  void Prune(std::vector<std::string>* removed_errors);

  std::string dir_;
  int keep_ = 0;
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
