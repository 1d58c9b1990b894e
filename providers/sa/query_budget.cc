// query_budget.cc: see query_budget.h.
#include "providers/sa/query_budget.h"

#include <algorithm>

namespace ssa {
namespace sa {

QueryBudget::QueryBudget(const QueryBudgetOptions& options, uint64_t now_ms)
    : options_(options),
      milli_tokens_(uint64_t{std::max<uint32_t>(options.burst, 1)} * 1000),
      last_ms_(now_ms) {
  options_.burst = std::max<uint32_t>(options_.burst, 1);
}

void QueryBudget::Refill(uint64_t now_ms) {
  if (now_ms <= last_ms_) return;
  // rate tokens a second = rate thousandths of a token a millisecond.
  uint64_t cap = uint64_t{options_.burst} * 1000;
  uint64_t add = (now_ms - last_ms_) * options_.rate;
  milli_tokens_ = std::min(cap, milli_tokens_ + add);
  last_ms_ = now_ms;
}

bool QueryBudget::Take(uint64_t now_ms) {
  if (!bounded()) return true;
  Refill(now_ms);
  if (milli_tokens_ < 1000) return false;
  milli_tokens_ -= 1000;
  return true;
}

uint64_t QueryBudget::UntilToken(uint64_t now_ms) {
  if (!bounded()) return 0;
  Refill(now_ms);
  if (milli_tokens_ >= 1000) return 0;
  return (1000 - milli_tokens_ + options_.rate - 1) / options_.rate;
}

}  // namespace sa
}  // namespace ssa
