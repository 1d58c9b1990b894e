// view_builder.h: indexes each new PRDB (PrdbView) off ibacm's loop, so
// that the loop, which answers every resolve, never waits for it.
//
// At the full subnet a view of 48,748 paths took 4-8 ms to build, and the
// provider built it on the core's loop: every request to the daemon (not
// only this provider's) waited that long at each epoch. Now the loop only
// swaps a finished view in; until then the last one answers.
//
// Per key (a port): at most one build in flight; a PRDB that arrives
// meanwhile waits, and a newer one replaces it (only the newest matters).
// `done(key, view, ms)` runs on the loop for each finished build, in the
// order the port's PRDBs came, unless the key was forgotten since; `view`
// is null when memory ran out building it.
//
// Threads: everything but the build on the loop thread. The build runs on
// a WorkerPool the owner hands in (the provider's one worker, whose
// results come back to the core's loop through a TaskMailbox), and holds
// nothing but the PRDB (immutable, shared) and the view it makes. Results
// still queued when the pool is destroyed are dropped. Without a pool
// (its thread or eventfd could not be set up), views are built at once on
// the loop, as before.
#ifndef IBACM_SSA_PROVIDERS_SSA_VIEW_BUILDER_H
#define IBACM_SSA_PROVIDERS_SSA_VIEW_BUILDER_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "common/base/worker_pool.h"
#include "providers/ssa/prdb_view.h"

namespace ssa {
namespace ssa_provider {

class ViewBuilder {
 public:
  using DoneFn =
      std::function<void(uint64_t key, std::shared_ptr<const PrdbView> view, double build_ms)>;
  explicit ViewBuilder(DoneFn done) : done_(std::move(done)) {}
  ViewBuilder(const ViewBuilder&) = delete;
  ViewBuilder& operator=(const ViewBuilder&) = delete;

  // Where views are built from now on (null: on the loop).
  void set_pool(WorkerPool* pool) { pool_ = pool; }
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

  WorkerPool* pool_ = nullptr;
  DoneFn done_;
  std::map<uint64_t, Slot> slots_;
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
