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
// (ViewAnswers): a view that holds the destination answers at once
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
// libibssa_path (tables_export.h), again whenever a view, a port, an
// endpoint or an address changes, and withdrawn at fini.
//
// Its jobs, one piece each: answering (view_answer.h: the sa provider's
// route source), the tables' publication (tables_export.h), the core's
// confirmation (confirmation.h) and the metrics (ssa_metrics.h); this
// class opens and closes ports, endpoints and addresses, runs each port's
// consumer and puts its views in place.
//
// Ownership: the provider owns the embedded SaProvider, whose objects
// (device, port, endpoint, address) are the core's handles: ours are not
// copies of them. What the ssa provider adds to a port is its PortState
// (port_state.h), one per open port, found by the sa port's id.
//
// Threads: everything here runs on the core's loop. The
// consumers' transports run threads of their own (a umad receiver per port
// under umad2sim, the process's rsocket poller with transport = rsocket),
// which reach the loop only through fds it watches. Destroying a consumer
// (its port closed, or fini) joins its umad receiver, and the last rsocket
// closed joins the poller, so none is left when fini returns (the ABI's
// rule, ibacm_ssa/provider.h). One worker of ours indexes each new PRDB
// (view_builder.h) and publishes the path tables (tables_export.h) off the
// loop: a resolve meanwhile is answered from the last view instead of
// waiting; fini joins it.
#ifndef IBACM_SSA_PROVIDERS_SSA_SSA_PROVIDER_H
#define IBACM_SSA_PROVIDERS_SSA_SSA_PROVIDER_H

#include <infiniband/acm.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ibacm_ssa/provider.h>
#include "common/base/log.h"
#include "common/base/task_mailbox.h"
#include "common/base/worker_pool.h"
#include "common/tree/consumer.h"
#include "providers/sa/sa_provider.h"
#include "providers/shared/core_log.h"
#include "providers/shared/core_reactor.h"
#include "providers/ssa/confirmation.h"
#include "providers/ssa/port_state.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/shm_export.h"
#include "providers/ssa/ssa_options.h"
#include "providers/ssa/tables_export.h"
#include "providers/ssa/view_answer.h"
#include "providers/ssa/view_builder.h"

namespace ssa {
namespace ssa_provider {

class SsaProvider : public provider_shared::CoreClient {
 public:
  SsaProvider(const ssa_core_ops* ops, ssa_core_t* core);
  ~SsaProvider();
  SsaProvider(const SsaProvider&) = delete;
  SsaProvider& operator=(const SsaProvider&) = delete;

  int Init();
  int OpenDevice(const ssa_device_info* info, sa::SaDevice** out);
  void CloseDevice(sa::SaDevice* dev);
  int OpenPort(sa::SaDevice* dev, const ssa_port_info* info, ssa_core_port_t* core_port,
               sa::SaPort** out);
  void ClosePort(sa::SaPort* port);
  void PortChanged(sa::SaPort* port, const ssa_port_info* info);
  int OpenEndpoint(sa::SaPort* port, const ssa_endpoint_info* info, sa::SaEndpoint** out);
  void CloseEndpoint(sa::SaEndpoint* ep);
  int AddAddress(sa::SaEndpoint* ep, const ssa_address* addr, sa::SaAddress** out);
  void RemoveAddress(sa::SaAddress* addr);
  int Resolve(sa::SaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int Query(sa::SaAddress* src, const ssa_resolve_request* req, uint64_t req_id);
  int QueryPerf(sa::SaEndpoint* ep, uint64_t* values, uint8_t* count);
  // ABI 1.4: our families in ibacm's metrics file (ssa_metrics.h).
  void CollectMetrics(const ssa_metrics_ops* ops, ssa_metrics_sink_t* sink);
  // For tests and benches in this process: the embedded sa provider (its
  // clock, its budget's figures).
  sa::SaProvider* sa() { return &sa_; }

 private:
  PortState* Find(const sa::SaPort* port) const;
  void StartConsumer(PortState* port);
  void StopConsumer(PortState* port, const char* why);
  void OnUpdate(PortState* port);
  // A view ViewBuilder finished: put in place for the port with `id`.
  void OnViewBuilt(uint64_t id, std::shared_ptr<const PrdbView> view, double build_ms);
  // Every second: each port's confirmation (confirmation.h), and the
  // tables published without (or again with) its view.
  void CheckConfirmed();
  // What the tables publish (tables_export.h).
  std::vector<ExportPort> GatherExport() const;
  // The sa provider's address source (see sa_provider.h).
  bool AddressFromTree(uint16_t type, const uint8_t* data, size_t len, uint8_t gid[16]) const;

  provider_shared::CoreLogger core_log_;
  SsaOptions options_;
  sa::SaProvider sa_;
  Logger log_;  // for the consumer library: lines go to the core's log
  provider_shared::CoreReactor reactor_;
  PortIndex ports_;
  AnswerCounts closed_;  // the closed ports' counts, for the exit line
  ViewAnswers answers_;
  Confirmation confirmation_;
  Reactor::TimerId confirm_timer_ = 0;
  // Our one worker: PRDB views (views_) and the path tables' publication
  // (tables_) are made there, off the core's loop; results come back
  // through mailbox_ (an fd on the loop). After reactor_, destroyed before
  // it; the destructor joins the worker before anything it uses goes.
  TaskMailbox mailbox_;
  std::unique_ptr<WorkerPool> worker_;
  ViewBuilder views_;
  TablesExport tables_;
  // The newest address database any port's consumer holds (names, IPs).
  std::shared_ptr<const smdb::AddrDb> addr_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
