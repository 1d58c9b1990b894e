// ibssa_metrics.cc: what an ibssa member writes to its metrics file
// (metrics_file in ibssa_opts.cfg(5); names in ibssa(8)), from the
// counters its pieces keep anyway: the data server (what it sent its
// children), the data clients (what it received, from which parent), the
// control client (joins and their answers) and the PRDB service. Every
// sample carries the member's role; names start with ibssa_.
#include "distrib/ibssa_member.h"

#include <algorithm>
#include <vector>

namespace ssa {
namespace distrib {

namespace {

using metrics::kCounter;
using metrics::kGauge;
using metrics::Labels;
using metrics::PromText;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

double Behind(uint64_t ahead, uint64_t held) {
  return ahead > held ? static_cast<double>(ahead - held) : 0;
}

}  // namespace

void IbssaMember::CollectMetrics(PromText* out) const {
  const std::string role = IbssaOptions::RolesName(options_.roles);
  auto with = [&role](const Labels& more) {
    Labels l = {{"role", role}};
    l.insert(l.end(), more.begin(), more.end());
    return l;
  };
  const Labels mine = with({});

  // What is held, and since when (the age grows while the tree is quiet;
  // against the core's epoch it tells a stuck member from a quiet subnet).
  struct Held {
    const char* db;
    uint64_t epoch;
    std::chrono::steady_clock::time_point at;
  };
  std::vector<Held> held = {{"smdb", smdb_.epoch(), smdb_at_}, {"addr", addr_.epoch(), addr_at_}};
  if (prdbs_) held.push_back({"prdb", prdb_epoch_, prdb_at_});
  if (route_sl_ && route_sl_->epoch())
    held.push_back({"routesl", route_sl_->epoch(), route_sl_->applied_at()});
  out->Family("ibssa_epoch", kGauge,
              "The epoch of the database held (prdb: the newest PRDB published to a consumer).");
  for (const Held& h : held) out->Add(with({{"db", h.db}}), static_cast<double>(h.epoch));
  out->Family("ibssa_epoch_age_seconds", kGauge,
              "Seconds since the database held was applied (only once one is held).");
  for (const Held& h : held)
    if (h.epoch) out->Add(with({{"db", h.db}}), Seconds(h.at));

  // The lag: the parent says its epoch at each connection and transfer;
  // the core's comes with each join answer (members report every epoch, so
  // it is fresh), and the parent's is a lower bound of it.
  uint64_t parent_epoch = upstream_ ? upstream_->parent_epoch() : 0;
  uint64_t core_epoch = control_ ? control_->assignment().core_epoch : 0;
  out->Family("ibssa_lag_epochs", kGauge,
              "SMDB epochs the member is behind its parent or the core (as last heard).");
  out->Add(with({{"behind", "parent"}}), Behind(parent_epoch, smdb_.epoch()));
  out->Add(with({{"behind", "core"}}), Behind(std::max(core_epoch, parent_epoch), smdb_.epoch()));

  tree::DataServerCounters sent = server_ ? server_->counters() : tree::DataServerCounters{};
  out->Family("ibssa_transfers_sent_total", kCounter,
              "Database transfers sent to children, by kind (full or delta).");
  out->Add(with({{"kind", "full"}}), static_cast<double>(sent.full_transfers));
  out->Add(with({{"kind", "delta"}}), static_cast<double>(sent.delta_transfers));
  out->Family("ibssa_sent_bytes_total", kCounter, "Bytes sent to children.");
  out->Add(mine, static_cast<double>(sent.bytes_sent));
  out->Family("ibssa_children", kGauge,
              "Children connected now, each counted once (not per database connection).");
  out->Add(mine, server_ ? static_cast<double>(server_->child_count()) : 0);
  out->Family("ibssa_children_refused_total", kCounter,
              "Children's connections refused (token, limit, nothing to serve).");
  out->Add(mine, static_cast<double>(sent.refused));
  out->Family("ibssa_children_bad_proofs_total", kCounter,
              "Children refused because their PROOF did not show the link key the core gave.");
  out->Add(mine, static_cast<double>(sent.bad_proofs));
  out->Family("ibssa_smdb_content_checks_total", kCounter,
              "SMDB versions held compared with the SHA-256 the core confirmed, by result.");
  out->Add(with({{"result", "confirmed"}}), static_cast<double>(content_verified_));
  out->Add(with({{"result", "mismatch"}}), static_cast<double>(content_mismatches_));

  struct Upstream {
    const char* db;
    const tree::DataClient* client;
  };
  const Upstream ups[] = {{"smdb", upstream_.get()},
                          {"addr", addr_upstream_.get()},
                          {"routesl", route_sl_ ? route_sl_->client() : nullptr}};
  auto per_db = [&](const char* name, const char* help, uint64_t tree::DataClientCounters::*f) {
    out->Family(name, kCounter, help);
    for (const Upstream& u : ups)
      if (u.client) out->Add(with({{"db", u.db}}), static_cast<double>(u.client->counters().*f));
  };
  out->Family("ibssa_transfers_received_total", kCounter,
              "Database transfers received from the parent and applied, by database and kind.");
  for (const Upstream& u : ups) {
    if (!u.client) continue;
    out->Add(with({{"db", u.db}, {"kind", "full"}}),
             static_cast<double>(u.client->counters().full_received));
    out->Add(with({{"db", u.db}, {"kind", "delta"}}),
             static_cast<double>(u.client->counters().delta_received));
  }
  per_db("ibssa_received_bytes_total", "Bytes received from the parent, by database.",
         &tree::DataClientCounters::bytes_received);
  per_db("ibssa_digest_mismatches_total",
         "Transfers whose result did not match the announced digest (the full one was asked).",
         &tree::DataClientCounters::digest_mismatches);
  per_db("ibssa_parent_refusals_total", "Times a parent refused our connection.",
         &tree::DataClientCounters::refused);
  per_db("ibssa_unproven_parents_total",
         "Peers at the parent's address that did not prove the link key the core gave "
         "(another process on its port): refused, nothing taken.",
         &tree::DataClientCounters::unproven_parents);
  per_db("ibssa_reparents_total",
         "Times the member moved to another parent (its backup, or a new assignment).",
         &tree::DataClientCounters::parent_changes);
  per_db("ibssa_reconnects_total", "Connections to a parent after the first.",
         &tree::DataClientCounters::reconnects);

  out->Family("ibssa_joins_total", kCounter, "Joins the core accepted (renewals included).");
  out->Add(mine, control_ ? static_cast<double>(control_->joins_accepted()) : 0);
  out->Family("ibssa_join_refusals_total", kCounter,
              "Joins the core did not accept, by reason (retry: no SMDB or no parent yet).");
  out->Add(with({{"reason", "retry"}}),
           control_ ? static_cast<double>(control_->joins_retry()) : 0);
  out->Add(with({{"reason", "refused"}}),
           control_ ? static_cast<double>(control_->joins_refused()) : 0);
  out->Family("ibssa_join_timeouts_total", kCounter,
              "Control MADs the core did not answer in time.");
  out->Add(mine, control_ ? static_cast<double>(control_->timeouts()) : 0);

  if (prdbs_) {
    out->Family("ibssa_prdb_versions_published_total", kCounter,
                "Consumers' PRDB versions computed and published (access role).");
    out->Add(mine, static_cast<double>(prdbs_->versions_published()));
    out->Family("ibssa_prdb_paths_computed_total", kCounter,
                "Paths the path engine computed for consumers' PRDBs (access role).");
    out->Add(mine, static_cast<double>(prdbs_->paths_computed()));
    out->Family("ibssa_prdb_consumers_without_engine_sls", kGauge,
                "Consumers whose PRDB lacks the routing engine's SLs (no route-SL slice of the "
                "SMDB's routing covers them yet): those records are marked not exact.");
    out->Add(mine, static_cast<double>(prdbs_->consumers_without_engine_sls()));
    out->Family("ibssa_route_sl_slices_rejected_total", kCounter,
                "Route-SL slices from the core that could not be used (bad tables).");
    out->Add(mine, static_cast<double>(prdbs_->slices_rejected()));
  }
}

}  // namespace distrib
}  // namespace ssa
