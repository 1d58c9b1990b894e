// abi_guard.h: the providers' rule that no C++ exception crosses the
// provider ABI. The only exception provider code throws is std::bad_alloc:
// an op that returns int turns it into -ENOMEM; a void op logs it through
// its provider and carries on (the core has no way to hear of it).
//
// Header only, for each provider's *_entry.cc. Borrows nothing; runs on
// whichever thread calls the op (the core's loop thread, by the ABI).
#ifndef IBACM_SSA_PROVIDERS_SHARED_ABI_GUARD_H
#define IBACM_SSA_PROVIDERS_SHARED_ABI_GUARD_H

#include <cerrno>
#include <new>

#include <ibacm_ssa/provider.h>

namespace ssa {
namespace provider_shared {

// Runs `fn` (returning int) and returns its result, or -ENOMEM if it ran
// out of memory.
template <typename Fn>
int Guarded(Fn fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return -ENOMEM;
  }
}

// Runs `fn` (returning nothing) for the void op `what`; running out of
// memory is logged as "<what>: out of memory" through prov->Log(level,
// printf format, ...).
template <typename Provider, typename Fn>
void GuardedVoid(Provider* prov, const char* what, Fn fn) {
  if (Guarded([&] {
        fn();
        return 0;
      }) < 0)
    prov->Log(SSA_LOG_ERROR, "%s: out of memory", what);
}

}  // namespace provider_shared
}  // namespace ssa

#endif
