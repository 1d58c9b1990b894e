// confirmation.cc: see confirmation.h.
#include "providers/ssa/confirmation.h"

#include <algorithm>

namespace ssa {
namespace ssa_provider {

double Confirmation::SinceConfirmed(const PortState* port, Clock::time_point now) const {
  if (!port->view) return -1;
  // Without a consumer nothing can confirm it (the port's LID changed: the
  // view is refused as stale anyway).
  if (!port->consumer) return 1e9;
  const bool ever = port->consumer->confirmed();
  // No view of this consumer's yet: the view is an earlier consumer's, for
  // an old LID, which the answering refuses as stale anyway.
  if (!ever && port->confirm.first_view_at == Clock::time_point{}) return -1;
  auto since = ever ? port->consumer->confirmed_at() : port->confirm.first_view_at;
  return std::chrono::duration<double>(now - since).count();
}

double Confirmation::Bound(const PortState* port) const {
  if (!options_.stale_after_s) return 0;
  // A bound shorter than the core's renewal period would stop a healthy
  // port between two renewals: it is never taken below two periods.
  uint32_t renew_s = port->consumer ? port->consumer->stats().renew_s : 0;
  return std::max<double>(options_.stale_after_s, 2.0 * renew_s);
}

bool Confirmation::PastBound(const PortState* port, Clock::time_point now) const {
  double bound = Bound(port), age = SinceConfirmed(port, now);
  return bound > 0 && age >= 0 && age > bound;
}

bool Confirmation::SmSilent(const PortState* port) const {
  return port->consumer && port->consumer->sm_silent_since_confirmed();
}

bool Confirmation::Unconfirmed(PortState* port, Clock::time_point now) {
  // With no SM at all (the confirming one silent, none other master)
  // nothing reprograms the fabric and no SA answers: the PRDB is still
  // what the fabric does, and it answers however long that lasts.
  // Otherwise it stops at the moment the port drew within the last
  // fallback_jitter_s before the bound (fallback_jitter.h).
  return jitter_.FallsBack(&port->confirm.jitter, SinceConfirmed(port, now), Bound(port)) &&
         !SmSilent(port);
}

Confirmation::Change Confirmation::Check(PortState* port, Clock::time_point now) {
  ConfirmState& c = port->confirm;
  const std::string name_text = port->port->Name();
  const char* name = name_text.c_str();
  bool silent = PastBound(port, now) && SmSilent(port);
  if (silent != c.sm_silent) {
    c.sm_silent = silent;
    if (silent)
      log_(SSA_LOG_WARN,
           "port %s: no SM has answered for %.0f s and none other has taken over: nothing can "
           "have changed the fabric's routes, answering from PRDB epoch %llu",
           name, SinceConfirmed(port, now),
           static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
    else
      log_(SSA_LOG_INFO, "port %s: an SM answers again", name);
  }
  bool unconfirmed = Unconfirmed(port, now);
  if (unconfirmed == c.unconfirmed) return kSame;
  c.unconfirmed = unconfirmed;
  if (!unconfirmed) {
    log_(SSA_LOG_INFO, "port %s: the core confirmed PRDB epoch %llu again; answering from it", name,
         static_cast<unsigned long long>(port->view ? port->view->epoch() : 0));
    return kConfirmedAgain;
  }
  ++c.unconfirmed_periods;
  tree::ConsumerStats s = port->consumer ? port->consumer->stats() : tree::ConsumerStats{};
  bool ever = port->consumer && port->consumer->confirmed();
  log_(SSA_LOG_WARN,
       "port %s: the core has not confirmed PRDB epoch %llu as current for %.0f s%s (core "
       "epoch heard %llu, access node LID %u): not answering from it (%s) until it does",
       name, static_cast<unsigned long long>(port->view->epoch()), SinceConfirmed(port, now),
       ever ? "" : " (never since it arrived)", static_cast<unsigned long long>(s.core_epoch),
       s.parent_lid, options_.fallback_sa ? "the SA answers" : "ENOTCONN, fallback = none");
  return kNowUnconfirmed;
}

}  // namespace ssa_provider
}  // namespace ssa
