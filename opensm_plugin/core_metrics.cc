// core_metrics.cc: see core_metrics.h.
#include "opensm_plugin/core_metrics.h"

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "opensm_plugin/osm_bridge.h"

namespace ssa {
namespace opensm_plugin {

namespace {

using metrics::kCounter;
using metrics::kGauge;
using metrics::PromText;

// ssa_route_sl_state's names, in its order.
const char* const kRouteSlStates[] = {"none", "computed", "random", "too_large", "failed"};
static_assert(SSA_ROUTE_SL_FAILED == 4, "kRouteSlStates follows ssa_route_sl_state");

}  // namespace

void VersionStats::RecordExtraction(const ProduceResult& r) {
  ++extractions;
  // The whole making: waiting for and holding OpenSM's lock, building,
  // writing (the last two are 0 when nothing changed).
  last_extract_s = (r.lock_wait_ms + r.lock_hold_ms + r.build_ms + r.write_ms) / 1000;
  extract_s_total += last_extract_s;
  last_lock_held_s = r.lock_hold_ms / 1000;
  lock_held_s_total += last_lock_held_s;
  route_sl_state = r.route_sl_state;
}

void VersionStats::RecordVersion(const ProduceResult& v) {
  ++versions;
  epoch = v.epoch;
  last_at = time(nullptr);
  full_bytes = v.serialized ? v.serialized->size() : v.bytes;
  delta_bytes = v.delta ? v.delta->size() : 0;
  full_bytes_total += full_bytes;
  delta_bytes_total += delta_bytes;
}

void CollectFederationMetrics(const tree::Federation& f, PromText* out) {
  std::vector<tree::FederationPeerStats> peers = f.Stats();
  size_t up = 0;
  for (const auto& p : peers) up += p.up;
  out->Family("ibssa_core_federation_peers_up", kGauge,
              "Federation peers whose link is connected and proven now.");
  out->Add(static_cast<double>(up));
  // One family with a sample per peer (and per kind, when `kinds` names
  // two: the value's first and second).
  using Value = std::function<std::pair<double, double>(const tree::FederationPeerStats&)>;
  auto per_peer = [&](const char* name, PromText::Type type, const char* help,
                      std::pair<const char*, const char*> kinds, const Value& value) {
    out->Family(name, type, help);
    for (const auto& p : peers) {
      std::pair<double, double> v = value(p);
      if (!kinds.first) {
        out->Add({{"peer", p.name}}, v.first);
        continue;
      }
      out->Add({{"peer", p.name}, {"kind", kinds.first}}, v.first);
      out->Add({{"peer", p.name}, {"kind", kinds.second}}, v.second);
    }
  };
  using P = const tree::FederationPeerStats&;
  const std::pair<const char*, const char*> none{nullptr, nullptr};
  per_peer("ibssa_core_federation_peer_up", kGauge,
           "1 while the link to this peer is connected and proven.", none,
           [](P p) { return std::make_pair(p.up ? 1.0 : 0.0, 0.0); });
  per_peer("ibssa_core_federation_entries", kGauge,
           "A peer's entries served in this subnet's address database now, by kind.",
           {"names", "ips"}, [](P p) { return std::make_pair(double(p.names), double(p.ips)); });
  per_peer("ibssa_core_federation_versions_total", kCounter,
           "Versions of a peer's entries applied, by kind (full or delta).", {"full", "delta"},
           [](P p) { return std::make_pair(double(p.full), double(p.deltas)); });
  per_peer("ibssa_core_federation_resyncs_total", kCounter,
           "Full resynchronizations with a peer after its link broke.", none,
           [](P p) { return std::make_pair(double(p.resyncs), 0.0); });
  per_peer("ibssa_core_federation_withdrawals_total", kCounter,
           "Times a peer's entries were withdrawn: its link stayed broken for hold_s.", none,
           [](P p) { return std::make_pair(double(p.withdrawals), 0.0); });
  per_peer("ibssa_core_federation_refused_versions_total", kCounter,
           "A peer's versions holding entries whose GID is outside its prefix (refused).", none,
           [](P p) { return std::make_pair(double(p.refused_versions), 0.0); });
  per_peer("ibssa_core_federation_refused_entries", kGauge,
           "Entries of a peer's version held now that were refused (outside its prefix).", none,
           [](P p) { return std::make_pair(double(p.refused_entries), 0.0); });
  per_peer("ibssa_core_federation_unproven_total", kCounter,
           "Connections to a peer's address whose end did not prove the shared key.", none,
           [](P p) { return std::make_pair(double(p.unproven), 0.0); });
  if (const tree::DataServer* d = f.server()) {
    const tree::DataServerCounters& c = d->counters();
    out->Family("ibssa_core_federation_refused_total", kCounter,
                "Peers' connections to this core refused, by reason (unknown: no such peer or "
                "not a federation HELLO; bad_proof: the key did not check).");
    out->Add({{"reason", "unknown"}}, static_cast<double>(c.refused - c.bad_proofs));
    out->Add({{"reason", "bad_proof"}}, static_cast<double>(c.bad_proofs));
  }
  tree::FederationListenStats l = f.ListenStats();
  out->Family("ibssa_core_federation_listening", kGauge,
              "1 while the federation listener is bound; 0 while its port is retried.");
  out->Add(l.listening ? 1 : 0);
  out->Family("ibssa_core_federation_listen_failures_total", kCounter,
              "Attempts to bind the federation listen port that failed (retried with backoff).");
  out->Add(static_cast<double>(l.failures));
  out->Family("ibssa_core_federation_conflicts", kGauge,
              "Names or IPs two peers both announce (the first peer in the file is served).");
  out->Add(static_cast<double>(f.conflicts()));
}

void CollectCoreMetrics(const VersionStats& s, const tree::CoreServer* core,
                        const tree::Federation* federation, PromText* out) {
  out->Family("ibssa_core_serving", kGauge,
              "1 while this OpenSM's plugin is the tree's core (the master SM), else 0.");
  out->Add(core ? 1 : 0);
  if (federation) CollectFederationMetrics(*federation, out);
  out->Family("ibssa_core_smdb_epoch", kGauge, "The epoch of the newest SMDB version made.");
  out->Add(static_cast<double>(s.epoch));
  out->Family("ibssa_core_smdb_versions_total", kCounter, "SMDB versions made and published.");
  out->Add(static_cast<double>(s.versions));
  if (s.versions) {
    out->Family("ibssa_core_last_version_time_seconds", kGauge,
                "When the newest SMDB version was made, Unix time.");
    out->Add(static_cast<double>(s.last_at));
  }
  out->Family("ibssa_core_extractions_total", kCounter,
              "Extractions of OpenSM's subnet (one per sweep or routing change, changed or not).");
  out->Add(static_cast<double>(s.extractions));
  out->Family(
      "ibssa_core_last_extraction_seconds", kGauge,
      "Seconds the last extraction took: OpenSM's lock (waiting and holding), build, write.");
  out->Add(s.last_extract_s);
  out->Family("ibssa_core_extraction_seconds_total", kCounter, "Seconds all extractions took.");
  out->Add(s.extract_s_total);
  out->Family("ibssa_core_last_lock_held_seconds", kGauge,
              "Seconds the last extraction held OpenSM's lock (OpenSM stalled).");
  out->Add(s.last_lock_held_s);
  out->Family("ibssa_core_lock_held_seconds_total", kCounter,
              "Seconds all extractions held OpenSM's lock.");
  out->Add(s.lock_held_s_total);
  out->Family("ibssa_core_last_version_bytes", kGauge,
              "Size of the newest version, by kind (full: the SMDB; delta: from the one before).");
  out->Add({{"kind", "full"}}, static_cast<double>(s.full_bytes));
  out->Add({{"kind", "delta"}}, static_cast<double>(s.delta_bytes));
  out->Family("ibssa_core_version_bytes_total", kCounter, "Bytes of all versions made, by kind.");
  out->Add({{"kind", "full"}}, static_cast<double>(s.full_bytes_total));
  out->Add({{"kind", "delta"}}, static_cast<double>(s.delta_bytes_total));
  if (s.route_sl_state >= 0) {  // after the first extraction
    out->Family("ibssa_core_route_sls", kGauge,
                "The routing engine's path SLs, 1 for the state now: computed (in the SMDB or "
                "route-SL slices), none (the engine picks no SL), random, too_large, failed "
                "(consumers ask the SA).");
    for (int i = 0; i < static_cast<int>(sizeof(kRouteSlStates) / sizeof(kRouteSlStates[0])); ++i)
      out->Add({{"state", kRouteSlStates[i]}}, i == s.route_sl_state ? 1 : 0);
  }
  if (!core || !core->membership()) return;

  const tree::Membership& m = *core->membership();
  out->Family("ibssa_core_tree_members", kGauge, "Members of the tree, by role.");
  std::map<std::string, size_t> counts = m.CountByRole();
  for (const char* role : {"distribution", "access", "distribution,access", "consumer"}) {
    auto it = counts.find(role);
    out->Add({{"role", role}}, it == counts.end() ? 0 : static_cast<double>(it->second));
  }
  if (const tree::CoreControlServer* c = core->control()) {
    const tree::CoreControlCounters& cc = c->counters();
    out->Family("ibssa_core_joins_total", kCounter, "Joins accepted (renewals included).");
    out->Add(static_cast<double>(cc.joins));
    out->Family("ibssa_core_leaves_total", kCounter, "Members that left.");
    out->Add(static_cast<double>(cc.leaves));
    out->Family("ibssa_core_expired_total", kCounter,
                "Members forgotten when their lease ran out.");
    out->Add(static_cast<double>(cc.expired));
  }
  out->Family("ibssa_core_join_refusals_total", kCounter, "Joins refused, by reason.");
  for (const auto& r : m.refusals()) out->Add({{"reason", r.first}}, static_cast<double>(r.second));
  if (const tree::DataServer* d = core->data_server()) {
    const tree::DataServerCounters& dc = d->counters();
    out->Family("ibssa_core_transfers_sent_total", kCounter,
                "Transfers to the core's children, by kind (full or delta).");
    out->Add({{"kind", "full"}}, static_cast<double>(dc.full_transfers));
    out->Add({{"kind", "delta"}}, static_cast<double>(dc.delta_transfers));
    out->Family("ibssa_core_sent_bytes_total", kCounter, "Bytes sent to the core's children.");
    out->Add(static_cast<double>(dc.bytes_sent));
    out->Family("ibssa_core_children", kGauge, "The core's children connected now.");
    out->Add(static_cast<double>(d->child_count()));
  }
  if (const tree::RouteSlSlices* r = core->route_sl_slices()) {
    out->Family("ibssa_core_route_sl_slices", kGauge,
                "Access nodes with a route-SL slice now (the SMDB leaves the engine's SLs out).");
    out->Add(static_cast<double>(r->slices()));
    out->Family("ibssa_core_route_sl_slice_versions_total", kCounter,
                "Route-SL slice versions cut and published.");
    out->Add(static_cast<double>(r->versions_published()));
  }
}

}  // namespace opensm_plugin
}  // namespace ssa
