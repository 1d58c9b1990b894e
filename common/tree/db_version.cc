// db_version.cc: see db_version.h.
#include "common/tree/db_version.h"

#include <atomic>
#include <iterator>

namespace ssa {
namespace tree {

uint64_t NextVersionSerial() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

void Publication::Publish(const DbVersion& v, Bytes delta, uint64_t delta_from) {
  // The same epoch again with other bytes (an access node's PRDB made
  // again once its route-SL slice came): the steps that led to the old
  // bytes go, so that a child behind gets the new version whole.
  if (!empty() && v.epoch <= current_.epoch && v.digest != current_.digest) {
    for (auto it = steps_.begin(); it != steps_.end();)
      it = it->second.to >= v.epoch ? steps_.erase(it) : std::next(it);
  }
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
