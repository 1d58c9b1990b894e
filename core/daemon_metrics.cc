// daemon_metrics.cc: what ibacm writes to its metrics file (metrics_file,
// common/metrics/metrics_file.h): the clients and how often their share
// ran out, the SA queues, the resolves by endpoint
// and provider (each provider's own counters, as PERF_QUERY reads them:
// resolves, errors, ENODATA answers, address and route queries and cache
// hits; for the ssa provider a route query is one sent to the SA, a route
// "cache" hit one answered from the PRDB), the kernel's requests, and last
// the families providers give through ABI 1.4's collect_metrics, checked
// by ProviderMetrics (core/provider_metrics.h). Names start with ibacm_
// (man ibacm(8) lists them).
#include "core/daemon.h"

#include <array>
#include <cstdio>

#include "common/acm/acm_wire.h"
#include "common/mad/sa_client.h"
#include "core/client_server.h"
#include "core/kernel_ls/kernel_path_service.h"
#include "core/port_manager.h"
#include "core/provider_host.h"
#include "core/provider_loader.h"
#include "core/provider_metrics.h"
#include "core/request_dispatcher.h"

namespace ssa {

namespace {

using metrics::kCounter;
using metrics::kGauge;
using metrics::Labels;
using metrics::PromText;

// PERF_QUERY's counters as metric families.
struct PerfFamily {
  int index;  // acm::kCntr*
  const char* name;
  const char* help;
};
constexpr PerfFamily kPerfFamilies[] = {
    {acm::kCntrResolve, "ibacm_endpoint_resolves_total", "Resolves the endpoint's provider took."},
    {acm::kCntrError, "ibacm_endpoint_errors_total", "Resolves answered with an error."},
    {acm::kCntrNoData, "ibacm_endpoint_nodata_total", "Resolves answered with ENODATA."},
    {acm::kCntrAddrQuery, "ibacm_endpoint_addr_queries_total",
     "Address resolutions the provider sent to the fabric."},
    {acm::kCntrAddrCache, "ibacm_endpoint_addr_cache_hits_total",
     "Address resolutions answered from the provider's cache or database."},
    {acm::kCntrRouteQuery, "ibacm_endpoint_sa_queries_total",
     "Path queries the provider sent to the SA."},
    {acm::kCntrRouteCache, "ibacm_endpoint_route_cache_hits_total",
     "Paths answered without the SA (cache or PRDB)."},
};

std::string Hex16(uint16_t v) {
  char buf[8];
  snprintf(buf, sizeof(buf), "0x%04x", v);
  return buf;
}

// A port as the metrics' port label names it: "mlx5_0:1".
std::string PortLabel(const CorePort& port) {
  return port.info.ca_name + ":" + std::to_string(port.info.port_num);
}

}  // namespace

void Daemon::CollectMetrics(metrics::PromText* out) {
  metrics::AddDaemonFamilies(out, "ibacm", start_time_);

  // Every endpoint's provider counters.
  struct Row {
    Labels labels;
    std::array<uint64_t, acm::kMaxCounters> values{};
  };
  std::vector<Row> rows;
  for (const auto& port : ports_->ports()) {
    ProviderInstance* prov = port->provider;
    if (!prov) continue;
    for (const auto& ep : port->endpoints) {
      Row r;
      r.labels = {
          {"port", PortLabel(*port)}, {"pkey", Hex16(ep->pkey)}, {"provider", prov->name()}};
      uint8_t count = static_cast<uint8_t>(r.values.size());
      if (!prov->has_query_perf() ||
          prov->table()->query_perf(ep->prov_ctx, r.values.data(), &count) < 0)
        continue;
      rows.push_back(r);
    }
  }
  for (const PerfFamily& f : kPerfFamilies) {
    out->Family(f.name, kCounter, f.help);
    for (const Row& r : rows) out->Add(r.labels, static_cast<double>(r.values[f.index]));
  }

  // The daemon as a whole (PERF_QUERY's global counters).
  out->Family("ibacm_resolves_total", kCounter,
              "Resolves the daemon took from clients and the kernel.");
  out->Add(static_cast<double>(counters_[acm::kCntrResolve]));
  out->Family("ibacm_resolve_errors_total", kCounter,
              "Resolves answered with an error, by kind (nodata: ENODATA).");
  out->Add({{"kind", "nodata"}}, static_cast<double>(counters_[acm::kCntrNoData]));
  out->Add({{"kind", "other"}}, static_cast<double>(counters_[acm::kCntrError]));
  const RequestDispatcher::Stats& d = dispatcher_->stats();
  out->Family("ibacm_bad_requests_total", kCounter, "Client messages refused as malformed.");
  out->Add(static_cast<double>(d.bad_requests));

  const ClientServer::Stats& c = server_->stats();
  out->Family("ibacm_client_connections", kGauge, "Clients connected now.");
  out->Add(static_cast<double>(c.accepted - c.closed));
  out->Family("ibacm_client_connections_total", kCounter, "Clients accepted.");
  out->Add(static_cast<double>(c.accepted));
  out->Family("ibacm_client_closed_total", kCounter,
              "Connections the daemon closed, by reason (refused: max_clients reached).");
  out->Add({{"reason", "bad_frame"}}, static_cast<double>(c.bad_frames));
  out->Add({{"reason", "truncated"}}, static_cast<double>(c.truncated));
  out->Add({{"reason", "timeout"}}, static_cast<double>(c.timeouts));
  out->Add({{"reason", "refused"}}, static_cast<double>(c.refused));
  out->Family("ibacm_client_limit", kGauge,
              "Most clients connected at once (max_clients, or the descriptor limit less a "
              "reserve); 0: no limit.");
  out->Add(static_cast<double>(server_->limits().max_clients));
  // One client's share (core/client_server.h).
  out->Family("ibacm_client_paused", kGauge,
              "Clients not read now: at client_max_inflight, or with answers unread.");
  out->Add(static_cast<double>(c.paused));
  out->Family("ibacm_client_throttled_total", kCounter,
              "Times a client's share ran out, by reason (inflight: paused at "
              "client_max_inflight; output: paused with answers unread; budget: its turn "
              "ended with messages left for the next).");
  out->Add({{"reason", "inflight"}}, static_cast<double>(c.paused_inflight));
  out->Add({{"reason", "output"}}, static_cast<double>(c.paused_output));
  out->Add({{"reason", "budget"}}, static_cast<double>(c.budget_spent));
  // The SA queues, each shared fairly between the clients whose queries
  // wait in it (common/mad/sa_client.h).
  out->Family("ibacm_sa_queued", kGauge, "SA queries waiting for room under sa_depth.");
  for (const auto& port : ports_->ports())
    if (port->sa) out->Add({{"port", PortLabel(*port)}}, static_cast<double>(port->sa->queued()));
  out->Family("ibacm_sa_queued_flows", kGauge,
              "Clients (and the daemon itself) with SA queries waiting: the shares the port's "
              "SA queue is taken from in turn.");
  for (const auto& port : ports_->ports())
    if (port->sa)
      out->Add({{"port", PortLabel(*port)}}, static_cast<double>(port->sa->queued_flows()));

  if (kernel_) {
    const KernelPathService::Stats& k = kernel_->stats();
    out->Family("ibacm_kernel_requests_total", kCounter,
                "The kernel's netlink requests taken to a provider, by kind.");
    out->Add({{"kind", "path"}}, static_cast<double>(k.requests - k.ip_requests));
    out->Add({{"kind", "address"}}, static_cast<double>(k.ip_requests));
    out->Family("ibacm_kernel_answers_total", kCounter,
                "Answers to the kernel, by outcome (error: the kernel asks the SA or fails).");
    out->Add({{"outcome", "answered"}}, static_cast<double>(k.answered_path));
    out->Add({{"outcome", "error"}}, static_cast<double>(k.answered_error));
    out->Family("ibacm_kernel_errors_total", kCounter, "Error answers to the kernel, by cause.");
    out->Add({{"cause", "provider"}}, static_cast<double>(k.provider_errors));
    out->Add({{"cause", "timeout"}}, static_cast<double>(k.timeouts));
    out->Add({{"cause", "bad_request"}}, static_cast<double>(k.bad_requests));
  }
  metrics::AddWriteFailures(out, "ibacm", metrics_.get());

  // The providers' own families, each given only the ports it serves.
  std::vector<ProviderMetrics::Source> sources;
  for (ProviderInstance* inst : host_->instances()) {
    if (!inst->has_collect_metrics()) continue;
    ProviderMetrics::Source s;
    s.provider = inst->name();
    for (const auto& port : ports_->ports())
      if (port->provider == inst && port->open) s.ports[port->handle()] = PortLabel(*port);
    s.collect = [inst](const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink) {
      inst->table()->collect_metrics(inst->ctx(), ops, sink);
    };
    sources.push_back(std::move(s));
  }
  if (provider_metrics_) provider_metrics_->Write(sources, out);
}

}  // namespace ssa
