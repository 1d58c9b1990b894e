// fault_spec.h: the fault-injection options of the tree's daemons and tools
// (data_faults, mad_faults): "key=value" pairs separated by commas, e.g.
// "drop=0.2,seed=7". Values are numbers (probabilities 0..1, byte counts,
// milliseconds); each seam says which keys it knows, and an unknown key is
// an error so a typo never silently injects nothing.
//
// FaultDice is the seeded generator the seams roll: a run with the same
// seed and the same traffic makes the same choices. Seed 0 (the default)
// takes one from the clock.
//
// Plain values; one thread at a time.
#ifndef IBACM_SSA_COMMON_BASE_FAULT_SPEC_H
#define IBACM_SSA_COMMON_BASE_FAULT_SPEC_H

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace ssa {

class FaultSpec {
 public:
  // EINVAL names the bad pair.
  static Status Parse(const std::string& text, const std::vector<std::string>& known,
                      FaultSpec* out);

  bool empty() const { return values_.empty(); }
  double Get(const std::string& key, double fallback = 0) const;
  // "drop=0.2,seed=7" (sorted by key).
  std::string ToString() const;

 private:
  std::map<std::string, double> values_;
};

class FaultDice {
 public:
  explicit FaultDice(uint64_t seed);
  // True with probability `p`.
  bool Roll(double p);
  // Uniform in [0, n); n > 0.
  uint64_t Below(uint64_t n);

 private:
  std::mt19937_64 rng_;
};

}  // namespace ssa

#endif
