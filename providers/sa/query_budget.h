// query_budget.h: a token bucket on the SA route queries one node sends
// (issue 46, finding 8). The ssa provider turns it on for its fallback: when
// a whole fabric's PRDBs stop answering at once, each node's SA load is
// bounded by `rate` queries a second after a first `burst`, so the
// fabric's by nodes x rate, not by what every job asks at that moment.
//
// Pure: time is the caller's (milliseconds of any monotonic clock), so a
// test drives it with a fake one. The queue of queries waiting for a token
// is the sa provider's (sa_resolve.cc), which owns the queries.
#ifndef IBACM_SSA_PROVIDERS_SA_QUERY_BUDGET_H
#define IBACM_SSA_PROVIDERS_SA_QUERY_BUDGET_H

#include <cstddef>
#include <cstdint>

namespace ssa {
namespace sa {

struct QueryBudgetOptions {
  uint32_t rate = 0;         // tokens a second; 0: no bound (every query is sent)
  uint32_t burst = 1;        // the bucket's size, full at the start
  uint32_t max_wait_ms = 0;  // longest a query may wait for a token
  // What can wait: a query behind more than rate x max_wait others cannot
  // be sent within max_wait, so it is answered at once instead.
  size_t MaxWaiting() const { return static_cast<size_t>(uint64_t{rate} * max_wait_ms / 1000); }
};

class QueryBudget {
 public:
  QueryBudget(const QueryBudgetOptions& options, uint64_t now_ms);

  bool bounded() const { return options_.rate > 0; }
  const QueryBudgetOptions& options() const { return options_; }
  // Takes a token at `now_ms` if there is one (always, unbounded).
  bool Take(uint64_t now_ms);
  // Milliseconds from `now_ms` until a token is there (0: now).
  uint64_t UntilToken(uint64_t now_ms);

 private:
  void Refill(uint64_t now_ms);

  QueryBudgetOptions options_;
  // In thousandths of a token, so that a rate of a few a second refills
  // exactly on whole milliseconds.
  uint64_t milli_tokens_;
  uint64_t last_ms_;
};

}  // namespace sa
}  // namespace ssa

#endif
