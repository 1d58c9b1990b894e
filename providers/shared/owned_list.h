// owned_list.h: removing one object from the list that owns it, as the
// providers' devices, ports and addresses are kept (a vector of
// unique_ptr, the object's pointer handed to the core as its context).
#ifndef IBACM_SSA_PROVIDERS_SHARED_OWNED_LIST_H
#define IBACM_SSA_PROVIDERS_SHARED_OWNED_LIST_H

#include <algorithm>
#include <memory>
#include <vector>

namespace ssa {
namespace provider_shared {

// Destroys `item` and drops it from `list`; nothing if `list` does not
// hold it.
template <typename T>
void EraseOwned(std::vector<std::unique_ptr<T>>* list, const T* item) {
  list->erase(std::remove_if(list->begin(), list->end(),
                             [item](const std::unique_ptr<T>& p) { return p.get() == item; }),
              list->end());
}

}  // namespace provider_shared
}  // namespace ssa

#endif
