// tables_export.h: when the ssa provider publishes its path tables for
// libibssa_path (shm_export.h does the publishing): soon after anything
// they answer for changes, once for many changes, never two at a time,
// built on the provider's worker off the core's loop; withdrawn at once
// when something they may answer for goes away; replaced objects swept
// after their grace; each new failure logged at error level.
//
// Named after the core's client socket (ABI 1.3's client_socket; an older
// core: nothing is published). Threads: the core's loop, but the build on
// the worker.
#ifndef IBACM_SSA_PROVIDERS_SSA_TABLES_EXPORT_H
#define IBACM_SSA_PROVIDERS_SSA_TABLES_EXPORT_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/base/reactor.h"
#include "common/base/worker_pool.h"
#include "providers/shared/core_log.h"
#include "providers/ssa/shm_export.h"

namespace ssa {
namespace ssa_provider {

class TablesExport {
 public:
  // What is published, gathered on the loop: copies, and immutable objects
  // shared with the worker.
  using GatherFn = std::function<std::vector<ExportPort>()>;
  // The addresses as the provider answers them (ResolveAddresses), asked
  // again only after Schedule(true); null: no address database yet.
  using AddressesFn = std::function<std::shared_ptr<const ExportAddresses>()>;
  TablesExport(Reactor* reactor, provider_shared::CoreLogger log, GatherFn gather,
               AddressesFn addresses)
      : reactor_(reactor),
        log_(log),
        gather_(std::move(gather)),
        addresses_(std::move(addresses)) {}
  ~TablesExport() { Stop(); }
  TablesExport(const TablesExport&) = delete;
  TablesExport& operator=(const TablesExport&) = delete;

  // Publishes for the daemon at `socket` from now on, building on
  // `worker` (null: on the loop).
  void Start(const std::string& socket, WorkerPool* worker);
  // Withdraws the tables and publishes no more (the worker joined first).
  void Stop();
  bool active() const { return shm_ != nullptr; }
  const std::string& path() const { return shm_->path(); }
  ShmExport::Stats stats() const { return shm_->stats(); }

  // Publishes soon; `addresses`: what changed may change the addresses'
  // answers (anything but a new view).
  void Schedule(bool addresses = true);
  // Something the tables may answer for went away: withdrawn at once
  // (readers go to the socket), published again soon.
  void Withdraw();

 private:
  void Export();
  void Exported(const Status& st);

  Reactor* reactor_;
  provider_shared::CoreLogger log_;
  GatherFn gather_;
  AddressesFn addresses_;
  WorkerPool* worker_ = nullptr;
  std::unique_ptr<ShmExport> shm_;  // Publish on the worker only
  Reactor::TimerId export_timer_ = 0;
  Reactor::TimerId sweep_timer_ = 0;  // truncates replaced tables after their grace
  bool in_flight_ = false;
  bool again_ = false;       // something changed while one was in flight
  bool addrs_stale_ = true;  // addresses changed: ask addresses_ again
  std::shared_ptr<const ExportAddresses> addrs_;
  std::string error_;  // the last failure's text, logged when it changes
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
