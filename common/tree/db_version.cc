// db_version.cc: see db_version.h.
#include "common/tree/db_version.h"

namespace ssa {
namespace tree {

void Publication::Publish(const DbVersion& v, Bytes delta, uint64_t delta_from) {
  if (delta && delta_from && delta_from == current_.epoch && v.epoch > delta_from)
    steps_[delta_from] = {delta_from, v.epoch, v.digest, delta};
  current_ = v;
  while (steps_.size() > keep_) steps_.erase(steps_.begin());
}

bool Publication::Chain(uint64_t from, std::vector<DeltaStep>* out) const {
  out->clear();
  uint64_t at = from;
  while (at != current_.epoch) {
    auto it = steps_.find(at);
    if (it == steps_.end() || out->size() > keep_) return false;
    out->push_back(it->second);
    at = it->second.to;
  }
  return true;
}

}  // namespace tree
}  // namespace ssa
