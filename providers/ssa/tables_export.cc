// tables_export.cc: see tables_export.h.
#include "providers/ssa/tables_export.h"

#include <cerrno>
#include <chrono>
#include <new>

#include <ibacm_ssa/provider.h>
#include "common/shm_prdb/shm_prdb_format.h"

namespace ssa {
namespace ssa_provider {

void TablesExport::Start(const std::string& socket, WorkerPool* worker) {
  worker_ = worker;
  shm_ = std::make_unique<ShmExport>(socket);
  log_(SSA_LOG_INFO, "path tables for libibssa_path: %s", shm_->path().c_str());
}

void TablesExport::Stop() {
  if (export_timer_) reactor_->CancelTimer(export_timer_);
  if (sweep_timer_) reactor_->CancelTimer(sweep_timer_);
  export_timer_ = sweep_timer_ = 0;
  worker_ = nullptr;
  shm_.reset();  // withdrawn: readers go to the socket, which is closing too
}

void TablesExport::Withdraw() {
  // The tables published (or being published) may answer for a port,
  // endpoint or address the socket no longer serves: readers go to the
  // socket until the next publication, which is made from now on.
  if (shm_) shm_->Invalidate();
  Schedule();
}

void TablesExport::Schedule(bool addresses) {
  if (addresses) addrs_stale_ = true;
  if (!shm_ || export_timer_) return;
  export_timer_ = reactor_->AddTimer(std::chrono::milliseconds(0), [this] {
    export_timer_ = 0;
    Export();
  });
}

void TablesExport::Export() {
  if (in_flight_) {
    again_ = true;  // Exported() starts the next with what is current then
    return;
  }
  std::vector<ExportPort> out = gather_();
  if (addrs_stale_) {
    addrs_stale_ = false;
    addrs_ = addresses_();
  }
  std::shared_ptr<const ExportAddresses> addrs = addrs_;
  const uint64_t generation = shm_->generation();
  if (!worker_) {
    Exported(shm_->Publish(out, addrs.get(), generation));
    return;
  }
  in_flight_ = true;
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
        in_flight_ = false;
        Exported(st);
        if (again_) {
          again_ = false;
          Export();
        }
      });
}

void TablesExport::Exported(const Status& st) {
  if (!sweep_timer_ && shm_->stats().retired) {
    sweep_timer_ =
        reactor_->AddTimer(std::chrono::milliseconds(IBSSA_SHM_RETIRE_GRACE_MS + 100), [this] {
          sweep_timer_ = 0;
          shm_->Sweep();
          Exported(Status::Ok());  // the next one, while some are left
        });
  }
  if (st.ok()) {
    if (!error_.empty() && shm_->stats().published)
      log_(SSA_LOG_INFO, "path tables published again at %s", shm_->path().c_str());
    if (shm_->stats().published) error_.clear();
    return;
  }
  // The publisher withdrew what was published: that is what readers see.
  // Each new reason at error level, a repeat at debug (the counter in the
  // metrics file counts them all).
  std::string text = st.ToString();
  log_(text == error_ ? SSA_LOG_DEBUG : SSA_LOG_ERROR,
       "cannot publish the path tables: %s; none are published now: libibssa_path readers "
       "use the socket (%llu failures so far)",
       text.c_str(), static_cast<unsigned long long>(shm_->stats().failures));
  error_ = text;
}

}  // namespace ssa_provider
}  // namespace ssa
