// view_answer.h: what a PRDB view answers a request with, the provider's
// side of the answer rule (common/answer/answer_rule.h, which
// libibssa_path applies to the published tables): the record for the
// destination, served only to an endpoint of its partition and only when
// exact, with the endpoint's P_Key and, where the SA draws the SL among
// several, an SL drawn the same way.
//
// Pure: no port state, no counters; the caller (the provider's
// RouteFromView) decides first whether the view may answer at all
// (current for the port's LID, confirmed by the core) and counts the
// misses.
#ifndef IBACM_SSA_PROVIDERS_SSA_VIEW_ANSWER_H
#define IBACM_SSA_PROVIDERS_SSA_VIEW_ANSWER_H

#include <infiniband/sa.h>

#include <cstdint>

#include "providers/shared/route_key.h"
#include "providers/ssa/prdb_view.h"

namespace ssa {
namespace ssa_provider {

// Why a request was not answered from a view (logged once each, counted
// per port and in all).
enum Miss {
  kNoView,
  kStaleView,
  kNotInView,
  kInexactQos,
  kInexactRoutingSl,
  kOtherPkey,
  kUnconfirmed,  // the core has not confirmed the PRDB for stale_after_s
  kMissKinds
};

// A set of Miss reasons, a bit each: a record not exact for two reasons
// misses for both.
using MissSet = unsigned;
constexpr MissSet MissBit(Miss why) { return 1u << why; }

// The answer `view` gives `key` for an endpoint with `ep_pkey`: 0 with the
// record in *path, or why not. `draws`: the SL draws' state
// (ibssa_answer_draw).
MissSet AnswerFromView(const PrdbView& view, const provider_shared::RouteKey& key, uint16_t ep_pkey,
                       uint64_t* draws, ibv_path_record* path);

}  // namespace ssa_provider
}  // namespace ssa

#endif
