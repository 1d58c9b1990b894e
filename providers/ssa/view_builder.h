// view_builder.h: indexes each new PRDB (PrdbView) on a thread of its own,
// so that ibacm's loop, which answers every resolve, never waits for it.
//
// At the full subnet a view of 48,748 paths took 4-8 ms to build, and the
// provider built it on the core's loop: every request to the daemon (not
// only this provider's) waited that long at each epoch. Now the loop only
// swaps a finished view in; until then the last one answers.
//
// Per key (a port): at most one build in flight; a PRDB that arrives
// meanwhile waits, and a newer one replaces it (only the newest matters).
// `done(key, view, ms)` runs on the loop for each finished build, in the
// order the port's PRDBs came, unless the key was forgotten since.
//
// Threads: everything but the build on the reactor's thread. The worker
// holds nothing but the PRDB (immutable, shared) and the view it makes.
// Destroying the builder joins the worker; results not yet delivered are
// dropped. If the worker cannot be set up (no eventfd), views are built
// at once on the loop, as before.
#ifndef IBACM_SSA_PROVIDERS_SSA_VIEW_BUILDER_H
#define IBACM_SSA_PROVIDERS_SSA_VIEW_BUILDER_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "common/base/reactor.h"
#include "common/base/status.h"
#include "common/base/task_mailbox.h"
#include "common/base/worker_pool.h"
#include "providers/ssa/prdb_view.h"

namespace ssa {
namespace ssa_provider {

class ViewBuilder {
 public:
  using DoneFn =
      std::function<void(uint64_t key, std::shared_ptr<const PrdbView> view, double build_ms)>;
  ViewBuilder(Reactor* reactor, DoneFn done) : mailbox_(reactor), done_(std::move(done)) {}
  ~ViewBuilder() { pool_.reset(); }  // joined before the mailbox goes
  ViewBuilder(const ViewBuilder&) = delete;
  ViewBuilder& operator=(const ViewBuilder&) = delete;

  // Sets up the worker; on error views are built on the loop.
  Status Start();
  bool off_loop() const { return pool_ != nullptr; }

  // A view of `prdb` for `key`, soon. The same PRDB again (in flight or
  // waiting) is ignored.
  void Build(uint64_t key, std::shared_ptr<const smdb::Prdb> prdb);
  // The key's port is gone: nothing more is delivered for it.
  void Forget(uint64_t key) { slots_.erase(key); }

 private:
  struct Slot {
    std::shared_ptr<const smdb::Prdb> building;  // in flight
    std::shared_ptr<const smdb::Prdb> next;      // waiting for it
  };
  struct Result {
    std::shared_ptr<const PrdbView> view;
    double ms = 0;
  };
  static Result Make(std::shared_ptr<const smdb::Prdb> prdb);
  void Submit(uint64_t key, std::shared_ptr<const smdb::Prdb> prdb);
  void Finished(uint64_t key, Result r);

  TaskMailbox mailbox_;
  std::unique_ptr<WorkerPool> pool_;  // after the mailbox: destroyed first
  DoneFn done_;
  std::map<uint64_t, Slot> slots_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
