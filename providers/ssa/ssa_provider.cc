// ssa_provider.cc: see ssa_provider.h.
#include "providers/ssa/ssa_provider.h"

#include <chrono>
#include <cstdarg>
#include <cstring>
#include <random>

#include "common/base/option_set.h"
#include "providers/shared/core_log.h"
#include "providers/ssa/ssa_metrics.h"

namespace ssa {
namespace ssa_provider {

using provider_shared::RouteKey;

namespace {

constexpr uint8_t kPortActive = 4;

int ToCoreLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kError: return SSA_LOG_ERROR;
    case LogLevel::kWarn: return SSA_LOG_WARN;
    case LogLevel::kInfo: return SSA_LOG_INFO;
    case LogLevel::kDebug: return SSA_LOG_DEBUG;
    default: return SSA_LOG_TRACE;
  }
}

}  // namespace

SsaProvider::SsaProvider(const ssa_core_ops* ops, ssa_core_t* core)
    : CoreClient(ops, core),
      core_log_{ops, core},
      sa_(ops, core),
      reactor_(ops, core),
      answers_(options_, core_log_,
               uint64_t{std::random_device{}()} << 32 | std::random_device{}()),
      confirmation_(options_, core_log_),
      mailbox_(&reactor_),
      views_([this](uint64_t id, std::shared_ptr<const PrdbView> view, double ms) {
        OnViewBuilt(id, std::move(view), ms);
      }),
      tables_(
          &reactor_, core_log_, [this] { return GatherExport(); },
          [this]() -> std::shared_ptr<const ExportAddresses> {
            if (!addr_) return nullptr;
            return ResolveAddresses(
                *addr_, [this](uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) {
                  return sa_.OwnAddress(type, data, len, gid);
                });
          }) {
  sa_.set_owner(this);
  // The consumer library logs through a Logger: its lines go to the core's
  // log, whose own level decides what is written.
  log_.set_level(LogLevel::kDebug);
  log_.set_sink([this](LogLevel level, const std::string& line) {
    ops_->log(core_, ToCoreLevel(level), "%s", line.c_str());
  });
}

SsaProvider::~SsaProvider() {
  worker_.reset();  // joined: nothing of ours runs elsewhere from here on
  views_.set_pool(nullptr);
  if (confirm_timer_) reactor_.CancelTimer(confirm_timer_);
  tables_.Stop();
  AnswerCounts all = closed_;
  for (auto& kv : ports_) {
    if (kv.second->consumer) kv.second->consumer->Stop();
    all.Add(kv.second->counts);
  }
  Log(SSA_LOG_INFO,
      "stopped: %llu requests answered from PRDBs, %llu PRDB updates; not from a PRDB: %llu "
      "before the first, %llu for an old LID, %llu destinations not in it, %llu records not "
      "exact (QoS), %llu records not exact (routing engine's SL), %llu for another P_Key, %llu "
      "while the core had not confirmed the PRDB",
      static_cast<unsigned long long>(all.prdb_hits), static_cast<unsigned long long>(all.updates),
      static_cast<unsigned long long>(all.missed[kNoView]),
      static_cast<unsigned long long>(all.missed[kStaleView]),
      static_cast<unsigned long long>(all.missed[kNotInView]),
      static_cast<unsigned long long>(all.missed[kInexactQos]),
      static_cast<unsigned long long>(all.missed[kInexactRoutingSl]),
      static_cast<unsigned long long>(all.missed[kOtherPkey]),
      static_cast<unsigned long long>(all.missed[kUnconfirmed]));
}

int SsaProvider::Init() {
  // Our options are read with the sa provider's, from our section.
  sa_.set_section("ssa", [this](OptionSet* set) { options_.Bind(set); });
  sa_.set_route_source([this](const sa::SaEndpoint* ep, const RouteKey& key, ibv_path_record* p) {
    PortState* port = Find(ep->port);
    return port ? answers_.Route(port, ep->pkey, key, p) : -1;
  });
  sa_.set_address_source([this](uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) {
    return AddressFromTree(type, data, len, gid);
  });
  int rc = sa_.Init();
  if (rc < 0) return rc;
  // Every route query the embedded sa provider sends is a fallback (the
  // PRDB did not answer): the node's SA load is bounded there, the
  // records the PRDB marks not exact included (ibacm_ssa(7) says why).
  sa::QueryBudgetOptions budget;
  budget.rate = static_cast<uint32_t>(options_.fallback_sa_rate);
  budget.burst = static_cast<uint32_t>(options_.fallback_sa_burst);
  budget.max_wait_ms = static_cast<uint32_t>(options_.fallback_wait_ms);
  sa_.set_query_budget(budget);
  confirmation_.Init();
  Status ws = mailbox_.Init();
  if (ws.ok()) {
    worker_ = std::make_unique<WorkerPool>(mailbox_.Poster(), 1);
    views_.set_pool(worker_.get());
  } else {
    Log(SSA_LOG_WARN,
        "cannot set up our worker thread: %s; PRDB views and path tables are made on the loop",
        ws.ToString().c_str());
  }
  // Named after the core's client socket (ABI 1.3); an older core: none.
  const char* socket = SSA_HAS_MEMBER(ops_, client_socket) && ops_->client_socket
                           ? ops_->client_socket(core_)
                           : nullptr;
  if (socket) tables_.Start(socket, worker_.get());
  Log(SSA_LOG_INFO,
      "started: fallback %s, data channel %s, SSA MAD timeout %d ms x %d retries, a PRDB the "
      "core has not confirmed for %d s stops answering%s within %d s after; SA queries for "
      "the fallback %d/s after %d (0: no bound), waiting at most %d ms",
      options_.fallback_sa ? "sa" : "none", options_.transport.c_str(), options_.mad_timeout_ms,
      options_.mad_retries, options_.stale_after_s,
      options_.stale_after_s ? "" : " (0: never; it answers however old)",
      options_.fallback_jitter_s, options_.fallback_sa_rate, options_.fallback_sa_burst,
      options_.fallback_wait_ms);
  if (options_.stale_after_s) CheckConfirmed();
  return 0;
}

PortState* SsaProvider::Find(const sa::SaPort* port) const {
  auto it = ports_.find(port->id);
  return it == ports_.end() ? nullptr : it->second.get();
}

int SsaProvider::OpenDevice(const ssa_device_info* info, sa::SaDevice** out) {
  return sa_.OpenDevice(info, out);
}

void SsaProvider::CloseDevice(sa::SaDevice* dev) { sa_.CloseDevice(dev); }

int SsaProvider::OpenPort(sa::SaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
                          sa::SaPort** out) {
  int rc = sa_.OpenPort(dev, info, core_port, out);
  if (rc < 0) return rc;
  auto state = std::make_unique<PortState>(*out);
  PortState* p = state.get();
  ports_.emplace(p->id(), std::move(state));
  StartConsumer(p);
  return 0;
}

void SsaProvider::ClosePort(sa::SaPort* port) {
  PortState* p = Find(port);
  StopConsumer(p, "port closed");
  views_.Forget(p->id());
  closed_.Add(p->counts);
  ports_.erase(p->id());
  sa_.ClosePort(port);
  tables_.Withdraw();
}

void SsaProvider::PortChanged(sa::SaPort* port, const ssa_port_info* info) {
  PortState* p = Find(port);
  bool moved = port->AddressingChanges(*info);
  bool sm_moved = info->sm_lid != port->sm_lid;
  sa_.PortChanged(port, info);  // the port's PortView follows `info` there
  tables_.Withdraw();           // a view for an old LID is no longer published
  if (moved && p->consumer) {
    // The PRDB's source is the old LID: the view stays (the answering sees
    // it is stale) until the new one arrives; the join starts over.
    StopConsumer(p, "port's LID, LMC or GID changed");
  }
  if (!p->consumer) {
    StartConsumer(p);
  } else if (sm_moved) {
    Log(SSA_LOG_INFO, "port %s: SM now at LID %u; the consumer joins there on its next join",
        port->Name().c_str(), port->sm_lid);
  }
}

void SsaProvider::StartConsumer(PortState* state) {
  const sa::SaPort* port = state->port;
  if (port->state != kPortActive || !port->lid || !port->sm_lid) {
    Log(SSA_LOG_INFO, "port %s: not active (state %u, LID %u, SM LID %u); joining the tree later",
        port->Name().c_str(), port->state, port->lid, port->sm_lid);
    return;
  }
  tree::ConsumerOptions o;
  o.ca_name = port->ca_name;
  o.port_num = port->port_num;
  o.port_guid = port->port_guid;
  o.gid_prefix = port->gid_prefix;
  o.sm_lid = [port] { return port->sm_lid; };
  o.transport = options_.transport;
  o.mad_timeout_ms = options_.mad_timeout_ms;
  o.mad_retries = options_.mad_retries;
  o.owner_installs_prdb = true;  // OnViewBuilt logs "PRDB epoch N in place"
  std::unique_ptr<tree::Consumer> consumer;
  Status st = tree::Consumer::Create(
      &reactor_, &log_, o, [this, state] { OnUpdate(state); }, &consumer);
  if (st.ok()) st = consumer->Start();
  if (!st.ok()) {
    Log(SSA_LOG_ERROR, "port %s: cannot join the SSA tree: %s; %s", port->Name().c_str(),
        st.ToString().c_str(),
        options_.fallback_sa ? "the SA answers its requests" : "its requests get ENODATA");
    return;
  }
  state->consumer = std::move(consumer);
  state->confirm.first_view_at = {};  // this consumer's own first view
  Log(SSA_LOG_INFO,
      "port %s (LID %u, GUID 0x%016llx): joining the SSA tree through the SM at LID %u",
      port->Name().c_str(), port->lid, static_cast<unsigned long long>(port->port_guid),
      port->sm_lid);
}

void SsaProvider::StopConsumer(PortState* state, const char* why) {
  if (!state->consumer) return;
  Log(SSA_LOG_INFO, "port %s: leaving the SSA tree: %s", state->port->Name().c_str(), why);
  state->consumer->Stop();
  state->earlier.AddCounters(state->consumer->stats());
  state->consumer.reset();
}

bool SsaProvider::AddressFromTree(uint16_t type, const uint8_t* data, size_t len,
                                  uint8_t gid[16]) const {
  if (!addr_) return false;
  switch (type) {
    case SSA_ADDR_NAME:
      return addr_->FindName(std::string(reinterpret_cast<const char*>(data),
                                         strnlen(reinterpret_cast<const char*>(data), len)),
                             gid);
    case SSA_ADDR_IP: return addr_->FindIp(data, 4, gid);
    case SSA_ADDR_IP6: return len >= 16 && addr_->FindIp(data, 16, gid);
    default: return false;
  }
}

void SsaProvider::OnUpdate(PortState* port) {
  std::shared_ptr<const smdb::AddrDb> addr = port->consumer ? port->consumer->addr() : nullptr;
  if (addr && (!addr_ || addr->global_epoch > addr_->global_epoch)) {
    addr_ = addr;
    tables_.Schedule();
    Log(SSA_LOG_INFO, "address database epoch %llu in place: %zu names, %zu IPs",
        static_cast<unsigned long long>(addr->global_epoch), addr->names.records.size(),
        addr->ips.records.size());
  }
  std::shared_ptr<const smdb::Prdb> prdb = port->consumer ? port->consumer->prdb() : nullptr;
  if (!prdb || prdb->source.records.empty()) return;
  if (port->view && port->view->prdb() == prdb.get()) return;  // an address update only
  views_.Build(port->id(), std::move(prdb));
}

void SsaProvider::OnViewBuilt(uint64_t id, std::shared_ptr<const PrdbView> view, double build_ms) {
  auto it = ports_.find(id);
  if (it == ports_.end()) return;  // closed meanwhile
  PortState* port = it->second.get();
  const std::string name = port->port->Name();
  if (!view) {
    Log(SSA_LOG_ERROR, "port %s: out of memory indexing a new PRDB; answering from epoch %llu",
        name.c_str(), static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
    return;
  }
  auto now = std::chrono::steady_clock::now();
  double held_s = port->view ? std::chrono::duration<double>(now - port->view_since).count() : 0;
  uint64_t old_epoch = port->view ? port->view->epoch() : 0;
  if (view->base_lid() != port->port->lid)
    Log(SSA_LOG_WARN, "port %s: PRDB epoch %llu is for LID %u, the port has LID %u; not used",
        name.c_str(), static_cast<unsigned long long>(view->epoch()), view->base_lid(),
        port->port->lid);
  port->view = std::move(view);
  port->view_since = now;
  if (port->confirm.first_view_at == std::chrono::steady_clock::time_point{})
    port->confirm.first_view_at = now;
  tables_.Schedule(false);
  ++port->counts.updates;
  // The epoch held and how long it was held: the freshness an operator
  // asks about (PERF_QUERY has no room for it).
  Log(SSA_LOG_INFO,
      "port %s: PRDB epoch %llu in place (%zu paths, indexed in %.1f ms %s; epoch %llu before "
      "it, held %.1f s)",
      name.c_str(), static_cast<unsigned long long>(port->view->epoch()), port->view->paths(),
      build_ms, views_.off_loop() ? "off the loop" : "on the loop",
      static_cast<unsigned long long>(old_epoch), held_s);
}

void SsaProvider::CheckConfirmed() {
  confirm_timer_ = reactor_.AddTimer(std::chrono::seconds(1), [this] { CheckConfirmed(); });
  const auto now = std::chrono::steady_clock::now();
  for (auto& kv : ports_) {
    switch (confirmation_.Check(kv.second.get(), now)) {
      case Confirmation::kNowUnconfirmed:
        tables_.Withdraw();  // libibssa_path readers go to the socket at once
        break;
      case Confirmation::kConfirmedAgain: tables_.Schedule(false); break;
      case Confirmation::kSame: break;
    }
  }
}

std::vector<ExportPort> SsaProvider::GatherExport() const {
  std::vector<ExportPort> out;
  for (const auto& kv : ports_) {
    const PortState* state = kv.second.get();
    const sa::SaPort* port = state->port;
    if (port->state != kPortActive || !port->lid) continue;  // the core skips it too
    ExportPort e;
    port->GidBytes(e.gid.data());
    e.lid = port->lid;
    e.lmc = port->lmc;
    // Not exported while unconfirmed (the socket refuses it too).
    if (!state->confirm.unconfirmed) e.view = state->view;
    for (const sa::SaEndpoint* ep : port->endpoints) {
      e.pkeys.push_back(ep->pkey);
      for (const auto& a : ep->addresses) e.addresses.push_back({ep->pkey, a->addr});
    }
    out.push_back(std::move(e));
  }
  return out;
}

int SsaProvider::OpenEndpoint(sa::SaPort* port, const ssa_endpoint_info* info,
                              sa::SaEndpoint** out) {
  int rc = sa_.OpenEndpoint(port, info, out);
  if (rc < 0) return rc;
  tables_.Schedule();
  return 0;
}

void SsaProvider::CloseEndpoint(sa::SaEndpoint* ep) {
  sa_.CloseEndpoint(ep);
  tables_.Withdraw();
}

int SsaProvider::AddAddress(sa::SaEndpoint* ep, const ssa_address* addr, sa::SaAddress** out) {
  int rc = sa_.AddAddress(ep, addr, out);
  if (rc < 0) return rc;
  tables_.Schedule();
  return 0;
}

void SsaProvider::RemoveAddress(sa::SaAddress* addr) {
  sa_.RemoveAddress(addr);
  tables_.Withdraw();
}

int SsaProvider::Resolve(sa::SaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  return sa_.Resolve(src, req, req_id);
}

int SsaProvider::Query(sa::SaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  return sa_.Query(src, req, req_id);
}

int SsaProvider::QueryPerf(sa::SaEndpoint* ep, uint64_t* values, uint8_t* count) {
  return sa_.QueryPerf(ep, values, count);
}

void SsaProvider::CollectMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink) {
  CollectSsaMetrics(ops, sink, ports_, confirmation_, tables_, sa_.budget_stats(), addr_.get());
}

}  // namespace ssa_provider
}  // namespace ssa
