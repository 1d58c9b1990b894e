// smdb_producer.h: makes one SMDB version from OpenSM's subnet: copy under
// OpenSM's lock (the injected Extract function, ssa_osm_extract in the
// plugin), then, with the lock released, build the records, bump the
// epochs of the tables that changed against the previous version,
// serialize, and write the version and its delta to the dump directory.
//
// The previous version stays in memory (it is the base of the next delta
// and of the epoch comparison); at start it is reloaded from the dump
// directory, so epochs keep increasing across OpenSM restarts. The next
// epoch always follows the highest smdb.<epoch> on disk, whatever `latest`
// says: restarting at 1 beside newer files would make readers (and keep=
// pruning) take the old files for the newest.
//
// Owned by ExtractWorker and used only on its thread; borrows the log,
// which must outlive it.
#ifndef IBACM_SSA_OPENSM_PLUGIN_SMDB_PRODUCER_H
#define IBACM_SSA_OPENSM_PLUGIN_SMDB_PRODUCER_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/smdb/smdb.h"
#include "opensm_plugin/osm_bridge.h"
#include "opensm_plugin/plugin_log.h"
#include "opensm_plugin/plugin_options.h"
#include "opensm_plugin/raw_snapshot.h"
#include "opensm_plugin/version_store.h"

namespace ssa {
namespace opensm_plugin {

// Copies the subnet into the buffers under the SM's lock; returns as
// ssa_osm_extract does (0 complete, 1 some array overflowed).
using ExtractFn = std::function<int(ssa_raw_buffers*, ssa_extract_times*)>;

// What one Produce() did, for the log and for tests.
struct ProduceResult {
  bool new_version = false;  // false: nothing changed, or an error
  uint64_t epoch = 0;        // the current global epoch afterwards
  int walks = 0;             // walks under the lock (more than 1: a buffer grew)
  double lock_wait_ms = 0;   // summed over the walks
  double lock_hold_ms = 0;   // summed over the walks
  double build_ms = 0;       // records, epochs, serialization, delta
  double write_ms = 0;
  size_t bytes = 0;
  std::string changed;  // "nodes ports ..." or ""
  // The extraction's ssa_route_sl_state (osm_bridge.h); -1: no extraction.
  int route_sl_state = -1;
  // The new version for the SSA tree (set with new_version): the database,
  // its serialization and the delta from the previous version (null for the
  // first version, or when it could not be made). Immutable and shared, so
  // the tree thread serves them without copying.
  std::shared_ptr<const smdb::Smdb> db;
  std::shared_ptr<const std::string> serialized;
  std::shared_ptr<const std::string> delta;
  uint64_t delta_from = 0;
  // With kSubnetRouteSlSlices: the engine's SL rows the SMDB leaves out,
  // sorted by key, for the core's route-SL slices (route_sl_slices.h).
  std::shared_ptr<const std::vector<smdb::SmdbRouteSl>> route_sl_rows;
};

class SmdbProducer {
 public:
  // `store` is null when there is no dump directory.
  SmdbProducer(const PluginOptions& options, std::unique_ptr<VersionStore> store, ExtractFn extract,
               PluginLog* log);

  // Loads the previous version from the dump directory, if any: `latest`
  // when it is the highest version on disk, else that highest version
  // itself. When neither parses it is logged and ignored, and the next
  // version follows the highest epoch on disk, written whole (no delta).
  void LoadPrevious();

  // One extraction and, if anything changed, one new version. `reason`
  // and `sweep_ms` (< 0: unknown) go into the log line. Throws only
  // std::bad_alloc (the caller logs it and waits for the next event).
  ProduceResult Produce(const std::string& reason, double sweep_ms);

  // A member of the tree holds epoch `seen`, at or above ours: a database
  // from another core (before an SM failover, or before the dump directory
  // was lost). Republishes the current subnet as epoch seen + 1 (every
  // table's epoch too: the member's tables came from elsewhere), so epochs
  // never go backwards for anyone. Without a current version it only
  // raises the floor the next version starts after. No new version when
  // `seen` is below the current epoch.
  ProduceResult ContinueAfter(uint64_t seen);

  const smdb::Smdb& current() const { return previous_; }
  // The current version as a ProduceResult (db and serialization, no
  // delta), for a consumer that joins late (the tree after a restart whose
  // first extraction found nothing new). False when there is none.
  bool CurrentVersion(ProduceResult* out) const;

 private:
  bool Extract(ProduceResult* r);
  // Past route_sl_smdb_rows, moves the engine's SL rows out of `next` (into
  // *rows) and marks it kSubnetRouteSlSlices.
  void LeaveRowsToSlices(smdb::Smdb* next,
                         std::shared_ptr<const std::vector<smdb::SmdbRouteSl>>* rows) const;
  void Publish(smdb::Smdb next, ProduceResult* r);

  PluginOptions options_;
  std::unique_ptr<VersionStore> store_;
  ExtractFn extract_;
  PluginLog* log_;
  RawSnapshot raw_;
  smdb::Smdb previous_;            // the latest version (global_epoch 0: none yet)
  bool previous_on_disk_ = false;  // a delta from it can be applied by readers
  uint64_t epoch_floor_ = 0;       // without a previous version: the highest epoch on disk
  // The rows previous_ left to route-SL slices (null: none, or unknown
  // after a restart).
  std::shared_ptr<const std::vector<smdb::SmdbRouteSl>> slice_rows_;
};

}  // namespace opensm_plugin
}  // namespace ssa

#endif
