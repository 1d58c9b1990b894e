// view_builder.cc: see view_builder.h.
#include "providers/ssa/view_builder.h"

#include <chrono>
#include <new>

namespace ssa {
namespace ssa_provider {

ViewBuilder::Result ViewBuilder::Make(std::shared_ptr<const smdb::Prdb> prdb) {
  auto t0 = std::chrono::steady_clock::now();
  Result r;
  try {
    r.view = std::make_shared<const PrdbView>(std::move(prdb));
  } catch (const std::bad_alloc&) {
    // Not thrown across the worker (that ends the daemon): no view, and
    // the caller goes on answering from the last one.
    r.view = nullptr;
  }
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

void ViewBuilder::Build(uint64_t key, std::shared_ptr<const smdb::Prdb> prdb) {
  if (!pool_) {
    Result r = Make(std::move(prdb));
    done_(key, std::move(r.view), r.ms);
    return;
  }
  Slot& s = slots_[key];
  if (s.building == prdb || s.next == prdb) return;
  if (s.building) {
    s.next = std::move(prdb);  // an older one waiting is never built
    return;
  }
  Submit(key, std::move(prdb));
}

void ViewBuilder::Submit(uint64_t key, std::shared_ptr<const smdb::Prdb> prdb) {
  slots_[key].building = prdb;
  pool_->SubmitWithResult<Result>([prdb] { return Make(prdb); },
                                  [this, key](Result r) { Finished(key, std::move(r)); });
}

void ViewBuilder::Finished(uint64_t key, Result r) {
  auto it = slots_.find(key);
  if (it == slots_.end()) return;  // forgotten meanwhile
  std::shared_ptr<const smdb::Prdb> next = std::move(it->second.next);
  it->second.building.reset();
  done_(key, std::move(r.view), r.ms);
  if (next && slots_.count(key)) Submit(key, std::move(next));
}

}  // namespace ssa_provider
}  // namespace ssa
