// ssa_provider.cc: see ssa_provider.h.
#include "providers/ssa/ssa_provider.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <new>

#include "common/base/option_set.h"
#include "common/mad/mad_wire.h"
#include "common/shm_prdb/shm_prdb_format.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"
#include "providers/shared/core_log.h"

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

const char* MissText(Miss why) {
  switch (why) {
    case kNoView: return "no PRDB from the tree yet";
    case kStaleView: return "the PRDB is for an earlier LID of the port";
    case kInexactQos:
      return "a record is marked not exact in the PRDB (QoS levels or SL2VL tables may change "
             "it)";
    case kInexactRoutingSl:
      return "a record is marked not exact in the PRDB (the routing engine chooses its SL)";
    case kOtherPkey: return "a record is for another partition than the endpoint's P_Key";
    case kUnconfirmed:
      return "the core has not confirmed the PRDB as current for longer than stale_after_s";
    default: return "a destination is not in the PRDB";
  }
}

// Drops the one object of `owned` that is `which` (ours are few: a scan).
template <class T>
void EraseOwned(std::vector<std::unique_ptr<T>>* owned, const T* which) {
  for (auto it = owned->begin(); it != owned->end(); ++it)
    if (it->get() == which) {
      owned->erase(it);
      return;
    }
}

}  // namespace

SsaProvider::SsaProvider(const ssa_core_ops* ops, ssa_core_t* core)
    : ops_(ops),
      core_(core),
      sa_(ops, core),
      reactor_(ops, core),
      mailbox_(&reactor_),
      views_([this](uint64_t id, std::shared_ptr<const PrdbView> view, double ms) {
        OnViewBuilt(id, std::move(view), ms);
      }) {
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
  if (export_timer_) reactor_.CancelTimer(export_timer_);
  if (confirm_timer_) reactor_.CancelTimer(confirm_timer_);
  if (sweep_timer_) reactor_.CancelTimer(sweep_timer_);
  shm_.reset();  // withdrawn: readers go to the socket, which is closing too
  for (auto& kv : ports_)
    if (kv.second->consumer) kv.second->consumer->Stop();
  Log(SSA_LOG_INFO,
      "stopped: %llu requests answered from PRDBs, %llu PRDB updates; not from a PRDB: %llu "
      "before the first, %llu for an old LID, %llu destinations not in it, %llu records not "
      "exact (QoS), %llu records not exact (routing engine's SL), %llu for another P_Key, %llu "
      "while the core had not confirmed the PRDB",
      static_cast<unsigned long long>(answered_), static_cast<unsigned long long>(updates_),
      static_cast<unsigned long long>(missed_[kNoView]),
      static_cast<unsigned long long>(missed_[kStaleView]),
      static_cast<unsigned long long>(missed_[kNotInView]),
      static_cast<unsigned long long>(missed_[kInexactQos]),
      static_cast<unsigned long long>(missed_[kInexactRoutingSl]),
      static_cast<unsigned long long>(missed_[kOtherPkey]),
      static_cast<unsigned long long>(missed_[kUnconfirmed]));
}

void SsaProvider::Log(int level, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  provider_shared::CoreLogV(ops_, core_, level, fmt, args);
  va_end(args);
}

int SsaProvider::Init() {
  // Our options are read with the sa provider's, from our section.
  sa_.set_section("ssa", [this](OptionSet* set) { options_.Bind(set); });
  sa_.set_route_source([this](const sa::SaEndpoint* ep, const RouteKey& key, ibv_path_record* p) {
    return RouteFromView(ep, key, p);
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
  jitter_ =
      FallbackJitter(std::chrono::seconds(options_.fallback_jitter_s), std::random_device{}());
  Status ws = mailbox_.Init();
  if (ws.ok()) {
    worker_ = std::make_unique<WorkerPool>(mailbox_.Poster(), 1);
    views_.set_pool(worker_.get());
  } else {
    Log(SSA_LOG_WARN,
        "cannot set up our worker thread: %s; PRDB views and path tables are made on the loop",
        ws.ToString().c_str());
  }
  const char* socket = SSA_HAS_MEMBER(ops_, client_socket) && ops_->client_socket
                           ? ops_->client_socket(core_)
                           : nullptr;
  if (socket) {
    shm_ = std::make_unique<ShmExport>(socket);
    Log(SSA_LOG_INFO, "path tables for libibssa_path: %s", shm_->path().c_str());
  }
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

int SsaProvider::OpenDevice(const ssa_device_info* info, SsaDevice** out) {
  auto dev = std::make_unique<SsaDevice>();
  dev->prov = this;
  int rc = sa_.OpenDevice(info, &dev->inner);
  if (rc < 0) return rc;
  *out = dev.get();
  devices_.push_back(std::move(dev));
  return 0;
}

void SsaProvider::CloseDevice(SsaDevice* dev) {
  sa_.CloseDevice(dev->inner);
  EraseOwned(&devices_, dev);
}

int SsaProvider::OpenPort(SsaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
                          SsaPort** out) {
  auto port = std::make_unique<SsaPort>();
  port->dev = dev;
  int rc = sa_.OpenPort(dev->inner, info, core_port, &port->inner);
  if (rc < 0) return rc;
  port->Open(*info, dev->inner->name);
  port->id = next_port_id_++;
  SsaPort* p = port.get();
  ports_[p->inner] = std::move(port);
  port_order_.push_back(p);
  StartConsumer(p);
  *out = p;
  return 0;
}

void SsaProvider::ClosePort(SsaPort* port) {
  StopConsumer(port, "port closed");
  views_.Forget(port->id);
  sa_.ClosePort(port->inner);
  port_order_.erase(std::find(port_order_.begin(), port_order_.end(), port));
  ports_.erase(port->inner);
  WithdrawTables();
}

void SsaProvider::PortChanged(SsaPort* port, const ssa_port_info* info) {
  bool moved = port->AddressingChanges(*info);
  bool sm_moved = info->sm_lid != port->sm_lid;
  port->Assign(*info);
  sa_.PortChanged(port->inner, info);
  WithdrawTables();  // a view for an old LID is no longer published
  if (moved && port->consumer) {
    // The PRDB's source is the old LID: the view stays (RouteFromView sees
    // it is stale) until the new one arrives; the join starts over.
    StopConsumer(port, "port's LID, LMC or GID changed");
  }
  if (!port->consumer) {
    StartConsumer(port);
  } else if (sm_moved) {
    Log(SSA_LOG_INFO, "port %s: SM now at LID %u; the consumer joins there on its next join",
        port->Name().c_str(), port->sm_lid);
  }
}

void SsaProvider::StartConsumer(SsaPort* port) {
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
      &reactor_, &log_, o, [this, port] { OnUpdate(port); }, &consumer);
  if (st.ok()) st = consumer->Start();
  if (!st.ok()) {
    Log(SSA_LOG_ERROR, "port %s: cannot join the SSA tree: %s; %s", port->Name().c_str(),
        st.ToString().c_str(),
        options_.fallback_sa ? "the SA answers its requests" : "its requests get ENODATA");
    return;
  }
  port->consumer = std::move(consumer);
  port->first_view_at = {};  // this consumer's own first view
  Log(SSA_LOG_INFO,
      "port %s (LID %u, GUID 0x%016llx): joining the SSA tree through the SM at LID %u",
      port->Name().c_str(), port->lid, static_cast<unsigned long long>(port->port_guid),
      port->sm_lid);
}

void SsaProvider::StopConsumer(SsaPort* port, const char* why) {
  if (!port->consumer) return;
  Log(SSA_LOG_INFO, "port %s: leaving the SSA tree: %s", port->Name().c_str(), why);
  port->consumer->Stop();
  port->earlier.AddCounters(port->consumer->stats());
  port->consumer.reset();
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

void SsaProvider::OnUpdate(SsaPort* port) {
  std::shared_ptr<const smdb::AddrDb> addr = port->consumer ? port->consumer->addr() : nullptr;
  if (addr && (!addr_ || addr->global_epoch > addr_->global_epoch)) {
    addr_ = addr;
    ScheduleExport();
    Log(SSA_LOG_INFO, "address database epoch %llu in place: %zu names, %zu IPs",
        static_cast<unsigned long long>(addr->global_epoch), addr->names.records.size(),
        addr->ips.records.size());
  }
  std::shared_ptr<const smdb::Prdb> prdb = port->consumer ? port->consumer->prdb() : nullptr;
  if (!prdb || prdb->source.records.empty()) return;
  if (port->view && port->view->prdb() == prdb.get()) return;  // an address update only
  views_.Build(port->id, std::move(prdb));
}

void SsaProvider::OnViewBuilt(uint64_t id, std::shared_ptr<const PrdbView> view, double build_ms) {
  SsaPort* port = nullptr;
  for (SsaPort* p : port_order_)
    if (p->id == id) port = p;
  if (!port) return;  // closed meanwhile
  if (!view) {
    Log(SSA_LOG_ERROR, "port %s: out of memory indexing a new PRDB; answering from epoch %llu",
        port->Name().c_str(),
        static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
    return;
  }
  auto now = std::chrono::steady_clock::now();
  double held_s = port->view ? std::chrono::duration<double>(now - port->view_since).count() : 0;
  uint64_t old_epoch = port->view ? port->view->epoch() : 0;
  if (view->base_lid() != port->lid)
    Log(SSA_LOG_WARN, "port %s: PRDB epoch %llu is for LID %u, the port has LID %u; not used",
        port->Name().c_str(), static_cast<unsigned long long>(view->epoch()), view->base_lid(),
        port->lid);
  port->view = std::move(view);
  port->view_since = now;
  if (port->first_view_at == std::chrono::steady_clock::time_point{}) port->first_view_at = now;
  ScheduleExport(false);
  ++updates_;
  ++port->updates;
  // The epoch held and how long it was held: the freshness an operator
  // asks about (PERF_QUERY has no room for it).
  Log(SSA_LOG_INFO,
      "port %s: PRDB epoch %llu in place (%zu paths, indexed in %.1f ms %s; epoch %llu before "
      "it, held %.1f s)",
      port->Name().c_str(), static_cast<unsigned long long>(port->view->epoch()),
      port->view->paths(), build_ms, views_.off_loop() ? "off the loop" : "on the loop",
      static_cast<unsigned long long>(old_epoch), held_s);
}

void SsaProvider::NoteMiss(SsaPort* port, Miss why) {
  ++missed_[why];
  ++port->missed[why];
  if (miss_noted_[why]) return;
  miss_noted_[why] = true;  // once per reason: the counters say the rest
  Log(SSA_LOG_INFO, "port %s: %s; %s (logged once)", port->Name().c_str(), MissText(why),
      options_.fallback_sa  ? "asking the SA instead"
      : why == kUnconfirmed ? "answering ENOTCONN (fallback = none)"
                            : "answering ENODATA (fallback = none)");
}

double SsaProvider::SinceConfirmed(const SsaPort* port,
                                   std::chrono::steady_clock::time_point now) const {
  if (!port->view) return -1;
  // Without a consumer nothing can confirm it (the port's LID changed: the
  // view is refused as stale anyway).
  if (!port->consumer) return 1e9;
  const bool ever = port->consumer->confirmed();
  // No view of this consumer's yet: the view is an earlier consumer's, for
  // an old LID, which RouteFromView refuses as stale anyway.
  if (!ever && port->first_view_at == std::chrono::steady_clock::time_point{}) return -1;
  auto since = ever ? port->consumer->confirmed_at() : port->first_view_at;
  return std::chrono::duration<double>(now - since).count();
}

double SsaProvider::Bound(const SsaPort* port) const {
  if (!options_.stale_after_s) return 0;
  // A bound shorter than the core's renewal period would stop a healthy
  // port between two renewals: it is never taken below two periods.
  uint32_t renew_s = port->consumer ? port->consumer->stats().renew_s : 0;
  return std::max<double>(options_.stale_after_s, 2.0 * renew_s);
}

bool SsaProvider::PastBound(const SsaPort* port, std::chrono::steady_clock::time_point now) const {
  double bound = Bound(port), age = SinceConfirmed(port, now);
  return bound > 0 && age >= 0 && age > bound;
}

bool SsaProvider::SmSilent(const SsaPort* port) const {
  return port->consumer && port->consumer->sm_silent_since_confirmed();
}

bool SsaProvider::Unconfirmed(SsaPort* port, std::chrono::steady_clock::time_point now) {
  // With no SM at all (the confirming one silent, none other master)
  // nothing reprograms the fabric and no SA answers: the PRDB is still
  // what the fabric does, and it answers however long that lasts.
  // Otherwise it stops at the moment the port drew within the last
  // fallback_jitter_s before the bound (fallback_jitter.h).
  return jitter_.FallsBack(&port->jitter, SinceConfirmed(port, now), Bound(port)) &&
         !SmSilent(port);
}

void SsaProvider::CheckConfirmed() {
  confirm_timer_ = reactor_.AddTimer(std::chrono::seconds(1), [this] { CheckConfirmed(); });
  const auto now = std::chrono::steady_clock::now();
  for (SsaPort* port : port_order_) {
    bool silent = PastBound(port, now) && SmSilent(port);
    if (silent != port->sm_silent) {
      port->sm_silent = silent;
      if (silent)
        Log(SSA_LOG_WARN,
            "port %s: no SM has answered for %.0f s and none other has taken over: nothing can "
            "have changed the fabric's routes, answering from PRDB epoch %llu",
            port->Name().c_str(), SinceConfirmed(port, now),
            static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
      else
        Log(SSA_LOG_INFO, "port %s: an SM answers again", port->Name().c_str());
    }
    bool unconfirmed = Unconfirmed(port, now);
    if (unconfirmed == port->unconfirmed) continue;
    port->unconfirmed = unconfirmed;
    tree::ConsumerStats s = port->consumer ? port->consumer->stats() : tree::ConsumerStats{};
    if (unconfirmed) {
      ++port->unconfirmed_periods;
      bool ever = port->consumer && port->consumer->confirmed();
      double age = SinceConfirmed(port, now);
      Log(SSA_LOG_WARN,
          "port %s: the core has not confirmed PRDB epoch %llu as current for %.0f s%s (core "
          "epoch heard %llu, access node LID %u): not answering from it (%s) until it does",
          port->Name().c_str(), static_cast<unsigned long long>(port->view->epoch()), age,
          ever ? "" : " (never since it arrived)", static_cast<unsigned long long>(s.core_epoch),
          s.parent_lid, options_.fallback_sa ? "the SA answers" : "ENOTCONN, fallback = none");
      WithdrawTables();  // libibssa_path readers go to the socket at once
    } else {
      Log(SSA_LOG_INFO, "port %s: the core confirmed PRDB epoch %llu again; answering from it",
          port->Name().c_str(),
          static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
      ScheduleExport(false);
    }
  }
}

int SsaProvider::RouteFromView(const sa::SaEndpoint* ep, const RouteKey& key,
                               ibv_path_record* path) {
  auto it = ports_.find(ep->port);
  if (it == ports_.end()) return -1;
  SsaPort* port = it->second.get();
  const PrdbView* view = port->view.get();
  Miss miss = kNotInView;
  if (!view) {
    miss = kNoView;
  } else if (view->base_lid() != port->lid || view->lmc() != port->lmc) {
    miss = kStaleView;
  } else if (port->unconfirmed) {  // CheckConfirmed's decision, once a second
    // Maybe no longer what the SA answers: never served as its answer,
    // and with no fallback not "no path" (ENODATA) either.
    NoteMiss(port, kUnconfirmed);
    return options_.fallback_sa ? -1 : ACM_STATUS_ENOTCONN;
  } else {
    MissSet why = AnswerFromView(*view, key, ep->pkey, &sl_draws_, path);
    if (!why) {
      ++answered_;
      ++port->prdb_hits;
      return ACM_STATUS_SUCCESS;
    }
    for (int m = 0; m < kMissKinds; ++m)
      if (why & MissBit(static_cast<Miss>(m))) NoteMiss(port, static_cast<Miss>(m));
    return options_.fallback_sa ? -1 : ACM_STATUS_ENODATA;
  }
  NoteMiss(port, miss);
  return options_.fallback_sa ? -1 : ACM_STATUS_ENODATA;
}

int SsaProvider::OpenEndpoint(SsaPort* port, const ssa_endpoint_info* info, SsaEndpoint** out) {
  auto ep = std::make_unique<SsaEndpoint>();
  ep->port = port;
  int rc = sa_.OpenEndpoint(port->inner, info, &ep->inner);
  if (rc < 0) return rc;
  *out = ep.get();
  endpoints_.push_back(std::move(ep));
  ScheduleExport();
  return 0;
}

void SsaProvider::CloseEndpoint(SsaEndpoint* ep) {
  sa_.CloseEndpoint(ep->inner);
  EraseOwned(&endpoints_, ep);
  WithdrawTables();
}

int SsaProvider::AddAddress(SsaEndpoint* ep, const ssa_address* addr, SsaAddress** out) {
  auto a = std::make_unique<SsaAddress>();
  a->ep = ep;
  int rc = sa_.AddAddress(ep->inner, addr, &a->inner);
  if (rc < 0) return rc;
  *out = a.get();
  addresses_.push_back(std::move(a));
  ScheduleExport();
  return 0;
}

void SsaProvider::RemoveAddress(SsaAddress* addr) {
  sa_.RemoveAddress(addr->inner);
  EraseOwned(&addresses_, addr);
  WithdrawTables();
}

void SsaProvider::WithdrawTables() {
  // The tables published (or being published) may answer for a port,
  // endpoint or address the socket no longer serves: readers go to the
  // socket until the next publication, which is made from now on.
  if (shm_) shm_->Invalidate();
  ScheduleExport();
}

void SsaProvider::ScheduleExport(bool addresses) {
  if (addresses) export_addrs_stale_ = true;
  if (!shm_ || export_timer_) return;
  export_timer_ = reactor_.AddTimer(std::chrono::milliseconds(0), [this] {
    export_timer_ = 0;
    Export();
  });
}

void SsaProvider::Export() {
  if (export_in_flight_) {
    export_again_ = true;  // Exported() starts the next with what is current then
    return;
  }
  // What is exported, gathered on the loop: copies, and immutable objects
  // shared with the worker.
  std::vector<ExportPort> out;
  for (const SsaPort* port : port_order_) {
    if (port->state != kPortActive || !port->lid) continue;  // the core skips it too
    ExportPort e;
    port->GidBytes(e.gid.data());
    e.lid = port->lid;
    e.lmc = port->lmc;
    // Not exported while unconfirmed (the socket refuses it too).
    if (!port->unconfirmed) e.view = port->view;
    for (const auto& ep : endpoints_) {
      if (ep->port != port) continue;
      e.pkeys.push_back(ep->inner->pkey);
      for (const auto& a : addresses_)
        if (a->ep == ep.get()) e.addresses.push_back({ep->inner->pkey, a->inner->addr});
    }
    out.push_back(std::move(e));
  }
  if (export_addrs_stale_) {
    export_addrs_stale_ = false;
    export_addrs_ =
        addr_
            ? ResolveAddresses(
                  *addr_, [this](uint16_t type, const uint8_t* data, size_t len,
                                 uint8_t gid[16]) { return sa_.OwnAddress(type, data, len, gid); })
            : nullptr;
  }
  std::shared_ptr<const ExportAddresses> addrs = export_addrs_;
  const uint64_t generation = shm_->generation();
  if (!worker_) {
    Exported(shm_->Publish(out, addrs.get(), generation));
    return;
  }
  export_in_flight_ = true;
  ShmExport* shm = shm_.get();
  worker_->SubmitWithResult<Status>(
      [shm, out = std::move(out), addrs, generation] {
        try {
          return shm->Publish(out, addrs.get(), generation);
        } catch (const std::bad_alloc&) {  // not across the worker: that ends the daemon
          return Status::Error(ENOMEM, "out of memory building the tables");
        }
      },
      [this](Status st) {
        export_in_flight_ = false;
        Exported(st);
        if (export_again_) {
          export_again_ = false;
          Export();
        }
      });
}

void SsaProvider::Exported(const Status& st) {
  if (!sweep_timer_ && shm_->stats().retired) {
    sweep_timer_ =
        reactor_.AddTimer(std::chrono::milliseconds(IBSSA_SHM_RETIRE_GRACE_MS + 100), [this] {
          sweep_timer_ = 0;
          shm_->Sweep();
          Exported(Status::Ok());  // the next one, while some are left
        });
  }
  if (st.ok()) {
    if (!export_error_.empty() && shm_->stats().published)
      Log(SSA_LOG_INFO, "path tables published again at %s", shm_->path().c_str());
    if (shm_->stats().published) export_error_.clear();
    return;
  }
  // The publisher withdrew what was published: that is what readers see.
  // Each new reason at error level, a repeat at debug (the counter in the
  // metrics file counts them all).
  std::string text = st.ToString();
  Log(text == export_error_ ? SSA_LOG_DEBUG : SSA_LOG_ERROR,
      "cannot publish the path tables: %s; none are published now: libibssa_path readers "
      "use the socket (%llu failures so far)",
      text.c_str(), static_cast<unsigned long long>(shm_->stats().failures));
  export_error_ = text;
}

int SsaProvider::Resolve(SsaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  return sa_.Resolve(src->inner, req, req_id);
}

int SsaProvider::Query(SsaAddress* src, const ssa_resolve_request* req, uint64_t req_id) {
  return sa_.Query(src->inner, req, req_id);
}

int SsaProvider::QueryPerf(SsaEndpoint* ep, uint64_t* values, uint8_t* count) {
  return sa_.QueryPerf(ep->inner, values, count);
}

}  // namespace ssa_provider
}  // namespace ssa
