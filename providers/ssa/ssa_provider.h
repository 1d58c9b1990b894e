// ssa_provider.h: the "ssa" resolution provider (man ibacm_ssa(7)): path
// records from the PRDB the SSA tree delivers for each port, built on the
// sa provider's code for everything else.
//
// Per port it runs a tree::Consumer (common/tree/consumer.h) on the core's
// loop (provider_shared::CoreReactor) and keeps the newest verified PRDB
// as an immutable, indexed PrdbView that an update replaces whole: a
// request never sees half of one epoch.
//
// Requests go through an embedded sa::SaProvider, which turns the
// destination (GID, LID, path request, or a name or IP through its address
// data) into a route key and then asks our route source first
// (RouteFromView): a view that holds the destination answers at once
// (counted as a route cache hit). Names and IPs that neither the local
// endpoints nor the sa options' addr_data_file know are looked up in the
// address database the tree delivers (the core's hosts_file). A destination the view does not hold,
// or any destination before the first PRDB or while the PRDB is for an
// old LID of the port, goes on to the sa provider's cache and the SA when
// `fallback = sa` (the default), or is answered ENODATA with
// `fallback = none`. So does every destination while the core has not
// confirmed the port's PRDB as current for `stale_after_s` and an SM runs
// (the core moved on and the PRDB did not follow, or a new master's core
// does not answer): with `fallback = none` those get ACM_STATUS_ENOTCONN,
// not ENODATA, which would read as "no path". With no SM at all (none has
// answered since, none other took over) nobody reprograms the fabric and
// the PRDB answers on. So does a destination whose record the PRDB marks
// "not exact" (smdb::kPathInexact*: the access node could not compute it
// exactly as the SA would, e.g. under a QoS policy or a routing engine
// that chooses SLs): it is never answered from the view. QUERY_SA requests
// always go to the SA. A record is the SA's answer to a query with its own
// P_Key (PathEngineOptions::ForPrdb): an endpoint of another partition
// gets it from the SA too.
//
// Shared memory: what the views answer is also published for
// libibssa_path (shm_export.h), named after the core's client socket
// (ABI 1.3's client_socket; an older core: nothing is published), again
// whenever a view, a port, an endpoint or an address changes, and
// withdrawn at fini.
//
// Ownership: the provider owns the embedded SaProvider and its own objects;
// each of ours wraps (inner) the sa object of the same level, which the
// SaProvider owns. Threads: everything here runs on the core's loop. The
// consumers' transports run threads of their own (a umad receiver per port
// under umad2sim, the process's rsocket poller with transport = rsocket),
// which reach the loop only through fds it watches. Destroying a consumer
// (its port closed, or fini) joins its umad receiver, and the last rsocket
// closed joins the poller, so none is left when fini returns (the ABI's
// rule, ibacm_ssa/provider.h). One worker of ours indexes each new PRDB
// (view_builder.h) and publishes the path tables (shm_export.h) off the
// loop: a resolve meanwhile is answered from the last view instead of
// waiting; fini joins it.
#ifndef IBACM_SSA_PROVIDERS_SSA_SSA_PROVIDER_H
#define IBACM_SSA_PROVIDERS_SSA_SSA_PROVIDER_H

#include <infiniband/acm.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/log.h"
#include "common/base/task_mailbox.h"
#include "common/base/worker_pool.h"
#include "common/tree/consumer.h"
#include "providers/sa/sa_provider.h"
#include "providers/shared/core_reactor.h"
#include "providers/shared/port_view.h"
#include "providers/ssa/fallback_jitter.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/shm_export.h"
#include "providers/ssa/ssa_options.h"
#include "providers/ssa/view_answer.h"
#include "providers/ssa/view_builder.h"

namespace ssa {
namespace ssa_provider {

class SsaProvider;

struct SsaDevice {
  SsaProvider* prov = nullptr;
  sa::SaDevice* inner = nullptr;
};

// The core's view of the port is the PortView base, as in the sa port it
// wraps (which the sa provider updates on its own).
struct SsaPort : provider_shared::PortView {
  SsaDevice* dev = nullptr;
  sa::SaPort* inner = nullptr;
  std::unique_ptr<tree::Consumer> consumer;
  std::shared_ptr<const PrdbView> view;              // the newest verified PRDB
  std::chrono::steady_clock::time_point view_since;  // when it was put in place
  // For the metrics (ssa_metrics.cc): this port's answers from views and
  // misses, the views put in place, and what its earlier consumers counted
  // (one is replaced when the port's LID changes), so counters never go
  // back.
  uint64_t id = 0;  // the provider's, never reused: ViewBuilder's key
  uint64_t prdb_hits = 0;
  uint64_t missed[kMissKinds] = {};
  uint64_t updates = 0;
  // Past stale_after_s without the core's confirmation while an SM runs:
  // not answered from, not exported; how often that began. Decided once a
  // second by CheckConfirmed, so that a resolve reads a flag (not the
  // consumer's state) and the answers, the tables, the log and the metrics
  // agree.
  bool unconfirmed = false;
  uint64_t unconfirmed_periods = 0;
  bool sm_silent = false;  // past the bound with no SM answering: answers on
  // It stops answering at the moment drawn here, within the last
  // fallback_jitter_s before the bound (fallback_jitter.h).
  FallbackJitter::PortState jitter;
  // When the current consumer's first view was put in place: a PRDB the
  // core never confirmed (the tree delivered it before the core's answer
  // caught up) is timed from there.
  std::chrono::steady_clock::time_point first_view_at{};
  tree::ConsumerStats earlier;
};

struct SsaEndpoint {
  SsaPort* port = nullptr;
  sa::SaEndpoint* inner = nullptr;
};

struct SsaAddress {
  SsaEndpoint* ep = nullptr;
  sa::SaAddress* inner = nullptr;
};

class SsaProvider {
 public:
  SsaProvider(const ssa_core_ops* ops, ssa_core_t* core);
  ~SsaProvider();
  SsaProvider(const SsaProvider&) = delete;
  SsaProvider& operator=(const SsaProvider&) = delete;

  int Init();
  int OpenDevice(const ssa_device_info* info, SsaDevice** out);
  void CloseDevice(SsaDevice* dev);
  int OpenPort(SsaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
               SsaPort** out);
  void ClosePort(SsaPort* port);
  void PortChanged(SsaPort* port, const ssa_port_info* info);
  int OpenEndpoint(SsaPort* port, const ssa_endpoint_info* info, SsaEndpoint** out);
  void CloseEndpoint(SsaEndpoint* ep);
  int AddAddress(SsaEndpoint* ep, const ssa_address* addr, SsaAddress** out);
  void RemoveAddress(SsaAddress* addr);
  int Resolve(SsaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int Query(SsaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int QueryPerf(SsaEndpoint* ep, uint64_t* values, uint8_t* count);
  // ABI 1.4: our families in ibacm's metrics file (ssa_metrics.cc).
  void CollectMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink);
  // For tests and benches in this process: the embedded sa provider (its
  // clock, its budget's figures).
  sa::SaProvider* sa() { return &sa_; }
  void ShmMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink);

  void Log(int level, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

 private:
  void StartConsumer(SsaPort* port);
  void StopConsumer(SsaPort* port, const char* why);
  void OnUpdate(SsaPort* port);
  // A view ViewBuilder finished: put in place for the port with `id`.
  void OnViewBuilt(uint64_t id, std::shared_ptr<const PrdbView> view, double build_ms);
  // The sa provider's route source (see sa_provider.h).
  int RouteFromView(const sa::SaEndpoint* ep, const provider_shared::RouteKey& key,
                    ibv_path_record* path);
  void NoteMiss(SsaPort* port, Miss why);
  // Seconds at `now` since the core last confirmed the port's view (since
  // it arrived, if never), or -1 when that does not apply (no view of the
  // current consumer's).
  double SinceConfirmed(const SsaPort* port, std::chrono::steady_clock::time_point now) const;
  // The bound: stale_after_s, at least two renewal periods (0: none).
  double Bound(const SsaPort* port) const;
  // Whether SinceConfirmed is longer than the bound.
  bool PastBound(const SsaPort* port, std::chrono::steady_clock::time_point now) const;
  // No SM has answered since the confirmation and the master SM is the
  // one that gave it (tree::Consumer::sm_silent_since_confirmed).
  bool SmSilent(const SsaPort* port) const;
  // Whether the port's view has gone unconfirmed past the moment it drew
  // within the last fallback_jitter_s before the bound, while an SM runs
  // (stale_after_s; core_confirmation.h, fallback_jitter.h).
  bool Unconfirmed(SsaPort* port, std::chrono::steady_clock::time_point now);
  // Every second: logs each port's change between confirmed and not, and
  // publishes the tables without (or again with) its view.
  void CheckConfirmed();
  // Publishes the shared-memory tables soon (once for many changes);
  // `addresses`: what changed may change the addresses' answers (anything
  // but a new view).
  void ScheduleExport(bool addresses = true);
  // Something the tables may answer for went away: withdrawn at once, and
  // published again soon.
  void WithdrawTables();
  void Export();
  void Exported(const Status& st);
  // The sa provider's address source (see sa_provider.h).
  bool AddressFromTree(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) const;

  const ssa_core_ops* ops_;
  ssa_core_t* core_;
  SsaOptions options_;
  sa::SaProvider sa_;
  // Seeded per process: nodes draw different moments (Init sets the window).
  FallbackJitter jitter_{std::chrono::milliseconds(0), std::random_device{}()};
  Logger log_;  // for the consumer library: lines go to the core's log
  provider_shared::CoreReactor reactor_;
  // Ours are owned here; the sa object each wraps finds it in ports_.
  std::vector<std::unique_ptr<SsaDevice>> devices_;
  std::unordered_map<const sa::SaPort*, std::unique_ptr<SsaPort>> ports_;
  std::vector<SsaPort*> port_order_;  // as the core opened them: its order
  uint64_t next_port_id_ = 1;
  // Our one worker: PRDB views (views_) and the path tables' publication
  // (shm_) are made there, off the core's loop; results come back through
  // mailbox_ (an fd on the loop). After reactor_, destroyed before it; the
  // destructor joins the worker before anything it uses goes.
  TaskMailbox mailbox_;
  std::unique_ptr<WorkerPool> worker_;
  ViewBuilder views_;
  std::unique_ptr<ShmExport> shm_;  // Publish on the worker only
  Reactor::TimerId export_timer_ = 0;
  Reactor::TimerId confirm_timer_ = 0;
  bool export_in_flight_ = false;
  bool export_again_ = false;       // something changed while one was in flight
  bool export_addrs_stale_ = true;  // addresses changed: ResolveAddresses again
  std::shared_ptr<const ExportAddresses> export_addrs_;
  Reactor::TimerId sweep_timer_ = 0;  // truncates replaced tables after their grace
  std::string export_error_;          // the last failure's text, logged when it changes
  std::vector<std::unique_ptr<SsaEndpoint>> endpoints_;
  std::vector<std::unique_ptr<SsaAddress>> addresses_;
  // The newest address database any port's consumer holds (names, IPs).
  std::shared_ptr<const smdb::AddrDb> addr_;
  bool miss_noted_[kMissKinds] = {};
  uint64_t answered_ = 0;
  // The SL draws' state (common/answer/answer_rule.h), seeded per process.
  uint64_t sl_draws_ = uint64_t{std::random_device{}()} << 32 | std::random_device{}();
  uint64_t missed_[kMissKinds] = {};
  uint64_t updates_ = 0;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
