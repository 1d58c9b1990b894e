// sort_unique.h: sorting records by a key and keeping one record per key,
// the first in the input's order (the caller's order decides which wins:
// the SMDB's raw extraction, the federation's merge of its peers).
#ifndef IBACM_SSA_COMMON_BASE_SORT_UNIQUE_H
#define IBACM_SSA_COMMON_BASE_SORT_UNIQUE_H

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ssa {

// Sorts `v` by key(record) and drops the records whose key repeats,
// keeping the first; returns how many were dropped.
template <class R, class Key>
size_t SortUnique(std::vector<R>* v, Key key) {
  std::stable_sort(v->begin(), v->end(), [&](const R& a, const R& b) { return key(a) < key(b); });
  auto end =
      std::unique(v->begin(), v->end(), [&](const R& a, const R& b) { return key(a) == key(b); });
  size_t dropped = static_cast<size_t>(v->end() - end);
  v->erase(end, v->end());
  return dropped;
}

}  // namespace ssa

#endif
