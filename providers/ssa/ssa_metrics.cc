// ssa_metrics.cc: the ssa provider's families in ibacm's metrics file
// (ABI 1.4's collect_metrics; the core checks them and adds the provider
// and port labels; names in ibacm_ssa(7)). Per port, the consumer's view
// of the tree, which PERF_QUERY's seven counters cannot carry: the PRDB
// epoch held and its age, the newest epoch heard of and the lag behind
// it, transfers and bytes received, parent changes; and what requests
// met: answers from the PRDB (each an SA query saved) and the fallbacks
// by reason. The SA queries sent are the endpoints' own counter
// (ibacm_endpoint_sa_queries_total), not repeated here.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <utility>
#include <vector>

#include "providers/ssa/ssa_metrics.h"

namespace ssa {
namespace ssa_provider {

namespace {

// The reason label of each Miss, in its order.
const char* const kMissLabels[] = {
    "no_prdb",    "stale_prdb",  "not_in_prdb", "inexact_qos", "inexact_routing_sl",
    "other_pkey", "unconfirmed",
};
static_assert(std::size(kMissLabels) == kMissKinds, "a reason label for every Miss");

// One port's numbers as the families read them.
struct PortNumbers {
  const PortState* port;
  tree::ConsumerStats totals;  // earlier consumers' counters plus the current one's
  uint64_t heard = 0;          // the newest SMDB epoch heard of, 0: none
};

// The path tables' families (tables_export.h).
void ShmMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink, const ShmExport::Stats& s) {
  auto one = [&](const char* name, int type, const char* help, double v) {
    if (ops->family(sink, name, type, help) == 0) ops->sample(sink, nullptr, nullptr, 0, v);
  };
  one("ibacm_ssa_shm_published", SSA_METRIC_GAUGE,
      "1 while path tables for libibssa_path are published (0: readers use the socket).",
      s.published ? 1 : 0);
  one("ibacm_ssa_shm_publications_total", SSA_METRIC_COUNTER,
      "Path tables published for libibssa_path.", static_cast<double>(s.publications));
  one("ibacm_ssa_shm_publish_failures_total", SSA_METRIC_COUNTER,
      "Publications of the path tables that failed; each withdrew the tables (the log says "
      "why).",
      static_cast<double>(s.failures));
  one("ibacm_ssa_shm_retired_objects", SSA_METRIC_GAUGE,
      "Replaced path table objects still whole (truncated after their grace period).",
      static_cast<double>(s.retired));
}

// The tree's address database the provider answers names and IPs from:
// node-wide (every port's consumer brings the same one).
void AddrMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink, const smdb::AddrDb& db) {
  auto one = [&](const char* name, const char* help, double v) {
    if (ops->family(sink, name, SSA_METRIC_GAUGE, help) == 0)
      ops->sample(sink, nullptr, nullptr, 0, v);
  };
  one("ibacm_ssa_addr_epoch", "Epoch of the tree's address database the provider answers from.",
      static_cast<double>(db.global_epoch));
  one("ibacm_ssa_addr_names", "Names in that address database.",
      static_cast<double>(db.names.records.size()));
  one("ibacm_ssa_addr_ips", "IP addresses (IPv4 and IPv6) in that address database.",
      static_cast<double>(db.ips.records.size()));
}

}  // namespace

void CollectSsaMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink, const PortIndex& by_id,
                       const Confirmation& confirm, const TablesExport& tables,
                       const sa::SaProvider::BudgetStats& b, const smdb::AddrDb* addr) {
  const auto now = std::chrono::steady_clock::now();
  std::vector<PortNumbers> ports;
  for (const auto& kv : by_id) {
    const PortState* port = kv.second.get();
    PortNumbers n{port, port->earlier};
    if (port->consumer) {
      tree::ConsumerStats s = port->consumer->stats();
      n.totals.AddCounters(s);
      n.heard = std::max(s.core_epoch, s.parent_epoch);
      n.totals.parent_lid = s.parent_lid;
    }
    ports.push_back(n);
  }
  // A family and one sample per port where `value` gives one (false: none).
  using Value = std::function<bool(const PortNumbers&, double*)>;
  auto per_port = [&](const char* name, int type, const char* help, const Value& value) {
    if (ops->family(sink, name, type, help) < 0) return;
    for (const PortNumbers& n : ports) {
      double v = 0;
      if (value(n, &v)) ops->sample(sink, n.port->port->core_port, nullptr, 0, v);
    }
  };
  auto counter = [&](const char* name, const char* help,
                     std::function<uint64_t(const PortNumbers&)> count) {
    per_port(name, SSA_METRIC_COUNTER, help, [&](const PortNumbers& n, double* v) {
      *v = static_cast<double>(count(n));
      return true;
    });
  };
  auto age = [&](const PortState* p) {
    return std::chrono::duration<double>(now - p->view_since).count();
  };

  per_port("ibacm_ssa_prdb_epoch", SSA_METRIC_GAUGE,
           "SMDB epoch of the PRDB the port answers from (0: none yet).",
           [](const PortNumbers& n, double* v) {
             *v = n.port->view ? static_cast<double>(n.port->view->epoch()) : 0;
             return true;
           });
  per_port("ibacm_ssa_prdb_age_seconds", SSA_METRIC_GAUGE,
           "Seconds since the port's PRDB was put in place (only once it holds one).",
           [&](const PortNumbers& n, double* v) {
             *v = n.port->view ? age(n.port) : 0;
             return n.port->view != nullptr;
           });
  per_port("ibacm_ssa_prdb_paths", SSA_METRIC_GAUGE, "Path records in the port's PRDB.",
           [](const PortNumbers& n, double* v) {
             *v = n.port->view ? static_cast<double>(n.port->view->paths()) : 0;
             return n.port->view != nullptr;
           });
  // The consumer hears the core's epoch at each join and renewal, and its
  // access node's at each transfer: until then it does not know its lag.
  per_port("ibacm_ssa_core_epoch", SSA_METRIC_GAUGE,
           "The newest SMDB epoch the port's consumer heard of, from the core or its access "
           "node (only once it heard one).",
           [](const PortNumbers& n, double* v) {
             *v = static_cast<double>(n.heard);
             return n.heard != 0;
           });
  per_port("ibacm_ssa_lag_epochs", SSA_METRIC_GAUGE,
           "Epochs the port's PRDB is behind the newest one heard of (only once one was heard).",
           [](const PortNumbers& n, double* v) {
             uint64_t held = n.port->view ? n.port->view->epoch() : 0;
             *v = n.heard > held ? static_cast<double>(n.heard - held) : 0;
             return n.heard != 0;
           });
  per_port("ibacm_ssa_parent_connected", SSA_METRIC_GAUGE,
           "1 while the port's consumer is connected to an access node.",
           [](const PortNumbers& n, double* v) {
             *v = n.totals.parent_lid ? 1 : 0;
             return true;
           });
  per_port("ibacm_ssa_prdb_confirmed_age_seconds", SSA_METRIC_GAUGE,
           "Seconds since the core last confirmed the port's PRDB as current (only once it "
           "did); past stale_after_s the PRDB stops answering.",
           [&](const PortNumbers& n, double* v) {
             if (!n.port->consumer || !n.port->consumer->confirmed()) return false;
             *v = confirm.SinceConfirmed(n.port, now);
             return *v >= 0;
           });
  per_port("ibacm_ssa_prdb_unconfirmed", SSA_METRIC_GAUGE,
           "1 while the port's PRDB does not answer because the core has not confirmed it for "
           "longer than stale_after_s.",
           [](const PortNumbers& n, double* v) {
             *v = n.port->confirm.unconfirmed ? 1 : 0;
             return true;
           });
  per_port("ibacm_ssa_sm_silent", SSA_METRIC_GAUGE,
           "1 while the port's PRDB is past stale_after_s but no SM has answered since the core "
           "confirmed it (nothing can have changed: the PRDB keeps answering).",
           [](const PortNumbers& n, double* v) {
             *v = n.port->confirm.sm_silent ? 1 : 0;
             return true;
           });
  counter("ibacm_ssa_unconfirmed_periods_total",
          "Times the port's PRDB stopped answering because the core had not confirmed it for "
          "longer than stale_after_s.",
          [](const PortNumbers& n) { return n.port->confirm.unconfirmed_periods; });
  counter("ibacm_ssa_prdb_updates_total", "PRDB versions put in place for the port.",
          [](const PortNumbers& n) { return n.port->counts.updates; });

  if (ops->family(sink, "ibacm_ssa_transfers_total", SSA_METRIC_COUNTER,
                  "PRDB transfers received and applied, by kind (full or delta).") == 0) {
    for (const PortNumbers& n : ports) {
      const ssa_metric_label full = {"kind", "full"}, delta = {"kind", "delta"};
      ops->sample(sink, n.port->port->core_port, &full, 1,
                  static_cast<double>(n.totals.full_transfers));
      ops->sample(sink, n.port->port->core_port, &delta, 1,
                  static_cast<double>(n.totals.delta_transfers));
    }
  }
  counter("ibacm_ssa_received_bytes_total", "Bytes of PRDB transfers received.",
          [](const PortNumbers& n) { return n.totals.bytes_received; });
  counter("ibacm_ssa_reparents_total",
          "Times the port's consumer moved to another access node (its backup, or a new "
          "assignment).",
          [](const PortNumbers& n) { return n.totals.parent_changes; });
  counter("ibacm_ssa_reconnects_total", "Connections to an access node after the first.",
          [](const PortNumbers& n) { return n.totals.reconnects; });
  counter("ibacm_ssa_digest_mismatches_total",
          "Transfers whose result did not match the announced digest (the full PRDB was asked).",
          [](const PortNumbers& n) { return n.totals.digest_mismatches; });
  counter("ibacm_ssa_unproven_parents_total",
          "Peers at the access node's address that did not prove the link key the core gave "
          "(another process on its port): refused, nothing taken.",
          [](const PortNumbers& n) { return n.totals.unproven_parents; });

  if (tables.active()) ShmMetrics(ops, sink, tables.stats());
  if (addr) AddrMetrics(ops, sink, *addr);

  counter("ibacm_ssa_prdb_hits_total",
          "Path requests answered from the PRDB: each one an SA query saved.",
          [](const PortNumbers& n) { return n.port->counts.prdb_hits; });
  if (ops->family(sink, "ibacm_ssa_fallbacks_total", SSA_METRIC_COUNTER,
                  "Path requests the PRDB could not answer, by reason; they go to the SA "
                  "(fallback = sa) or get ENODATA (fallback = none).") == 0) {
    for (const PortNumbers& n : ports)
      for (int why = 0; why < kMissKinds; ++why) {
        const ssa_metric_label reason = {"reason", kMissLabels[why]};
        ops->sample(sink, n.port->port->core_port, &reason, 1,
                    static_cast<double>(n.port->counts.missed[why]));
      }
  }
  // The fallback's bound (fallback_sa_rate): node-wide, as the bucket is.
  if (ops->family(sink, "ibacm_ssa_fallback_throttled_total", SSA_METRIC_COUNTER,
                  "SA queries for the fallback held back by fallback_sa_rate: delayed (waited "
                  "for their turn), timed_out (waited fallback_wait_ms; their requests were "
                  "answered ETIMEDOUT), refused (too many waiting; answered ETIMEDOUT at "
                  "once).") == 0) {
    const std::pair<const char*, uint64_t> outcomes[] = {
        {"delayed", b.delayed}, {"timed_out", b.timed_out}, {"refused", b.refused}};
    for (const auto& o : outcomes) {
      const ssa_metric_label label = {"outcome", o.first};
      ops->sample(sink, nullptr, &label, 1, static_cast<double>(o.second));
    }
  }
  if (ops->family(sink, "ibacm_ssa_fallback_waiting", SSA_METRIC_GAUGE,
                  "SA queries for the fallback waiting for their turn under fallback_sa_rate.") ==
      0)
    ops->sample(sink, nullptr, nullptr, 0, static_cast<double>(b.waiting));
}

}  // namespace ssa_provider
}  // namespace ssa
