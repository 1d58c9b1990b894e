// core_metrics.h: what the plugin writes to its metrics file
// (metrics_file=, man ibssa_osm(7)): the SMDB versions it made (epoch,
// count, extraction and lock-held time, full and delta bytes, the routing
// engine's path-SL state), the tree its core serves (members by role,
// joins, refusals, transfers to its children) and its federation links. Names start with
// ibssa_core_; ssa-tree --prometheus (the core's view of every member)
// uses other ibssa_core_ names, so both can be scraped on one host.
//
// Core thread only (TreeCore's loop): OpenSM's threads never wait on it.
#ifndef IBACM_SSA_OPENSM_PLUGIN_CORE_METRICS_H
#define IBACM_SSA_OPENSM_PLUGIN_CORE_METRICS_H

#include <cstdint>
#include <ctime>

#include "common/metrics/prom_text.h"
#include "common/tree/core_server.h"
#include "common/tree/federation.h"
#include "opensm_plugin/smdb_producer.h"

namespace ssa {
namespace opensm_plugin {

// The extractions and versions the core was told of, summed. Every
// extraction holds OpenSM's lock, also those that find nothing changed.
struct VersionStats {
  uint64_t extractions = 0;
  double last_extract_s = 0, extract_s_total = 0;
  double last_lock_held_s = 0, lock_held_s_total = 0;
  int route_sl_state = -1;  // ssa_route_sl_state; -1: not known yet
  uint64_t versions = 0;
  uint64_t epoch = 0;
  time_t last_at = 0;                        // Unix time of the last version
  uint64_t full_bytes = 0, delta_bytes = 0;  // the last version's
  uint64_t full_bytes_total = 0, delta_bytes_total = 0;

  // An extraction (a ProduceResult with route_sl_state >= 0).
  void RecordExtraction(const ProduceResult& r);
  // A new version (new_version set).
  void RecordVersion(const ProduceResult& v);
};

// One snapshot; `core` null while the core is idle (not the master SM),
// `federation` null without one (or while idle).
void CollectCoreMetrics(const VersionStats& versions, const tree::CoreServer* core,
                        const tree::Federation* federation, metrics::PromText* out);
// The federation's part (ibssa_core_federation_*), per peer.
void CollectFederationMetrics(const tree::Federation& federation, metrics::PromText* out);

}  // namespace opensm_plugin
}  // namespace ssa

#endif
