// port_state.h: what the ssa provider keeps for one port of the sa
// provider's (the core's handle is the sa port itself, whose PortView is
// the core's view of the port): the port's tree consumer, the view it
// answers from, what it answered and missed, and its confirmation state.
// The provider owns one per open port, keyed by the sa port's id.
#ifndef IBACM_SSA_PROVIDERS_SSA_PORT_STATE_H
#define IBACM_SSA_PROVIDERS_SSA_PORT_STATE_H

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>

#include "common/tree/consumer.h"
#include "providers/sa/sa_provider.h"
#include "providers/ssa/fallback_jitter.h"
#include "providers/ssa/prdb_view.h"
#include "providers/ssa/view_answer.h"

namespace ssa {
namespace ssa_provider {

// What the views answered and missed, and the views put in place: a
// port's (for the metrics), and the closed ports' together (for the exit
// line), so that each is counted in one place.
struct AnswerCounts {
  uint64_t prdb_hits = 0;
  uint64_t missed[kMissKinds] = {};
  uint64_t updates = 0;
  void Add(const AnswerCounts& o) {
    prdb_hits += o.prdb_hits;
    for (int i = 0; i < kMissKinds; ++i) missed[i] += o.missed[i];
    updates += o.updates;
  }
};

// Whether the core still confirms the port's view (confirmation.h).
// Decided once a second, so that a resolve reads a flag (not the
// consumer's state) and the answers, the tables, the log and the metrics
// agree.
struct ConfirmState {
  // Past stale_after_s without the core's confirmation while an SM runs:
  // not answered from, not exported; how often that began.
  bool unconfirmed = false;
  uint64_t unconfirmed_periods = 0;
  bool sm_silent = false;  // past the bound with no SM answering: answers on
  // It stops answering at the moment drawn here, within the last
  // fallback_jitter_s before the bound (fallback_jitter.h).
  FallbackJitter::PortState jitter;
  // When the current consumer's first view was put in place: a PRDB the
  // core never confirmed (the tree delivered it before the core's answer
  // caught up) is timed from there.
  std::chrono::steady_clock::time_point first_view_at{};
};

struct PortState {
  explicit PortState(sa::SaPort* p) : port(p) {}
  sa::SaPort* const port;  // the sa provider's, the core's handle
  std::unique_ptr<tree::Consumer> consumer;
  std::shared_ptr<const PrdbView> view;              // the newest verified PRDB
  std::chrono::steady_clock::time_point view_since;  // when it was put in place
  // What its earlier consumers counted (one is replaced when the port's
  // LID changes), so that the metrics never go back.
  tree::ConsumerStats earlier;
  AnswerCounts counts;
  ConfirmState confirm;

  uint64_t id() const { return port->id; }
  // A view current for the port's LID and LMC (an older one waits for the
  // new LID's PRDB).
  bool ViewCurrent() const {
    return view && view->base_lid() == port->lid && view->lmc() == port->lmc;
  }
};

// The provider's open ports by the sa port's id: its one index of them,
// in the order the core opened them (ids ascend).
using PortIndex = std::map<uint64_t, std::unique_ptr<PortState>>;

}  // namespace ssa_provider
}  // namespace ssa

#endif
