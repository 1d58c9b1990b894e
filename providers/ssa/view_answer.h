// view_answer.h: the ssa provider's answering. AnswerFromView: what a
// PRDB view answers a request with, the provider's side of the answer
// rule (common/answer/answer_rule.h, which libibssa_path applies to the
// published tables): the record for the destination, served only to an
// endpoint of its partition and only when exact, with the endpoint's
// P_Key and, where the SA draws the SL among several, an SL drawn the
// same way.
//
// AnswerFromView is pure: no port state, no counters. ViewAnswers, the
// sa provider's route source, decides first whether the port's view may
// answer at all (current for the port's LID, confirmed by the core),
// counts the answers and misses on the port and logs each reason once.
#ifndef IBACM_SSA_PROVIDERS_SSA_VIEW_ANSWER_H
#define IBACM_SSA_PROVIDERS_SSA_VIEW_ANSWER_H

#include <infiniband/sa.h>

#include <cstdint>

#include "providers/shared/core_log.h"
#include "providers/shared/route_key.h"
#include "providers/ssa/prdb_view.h"

namespace ssa {
namespace ssa_provider {

// Why a request was not answered from a view (logged once each, counted
// per port: PortState::counts).
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

struct PortState;
struct SsaOptions;

class ViewAnswers {
 public:
  ViewAnswers(const SsaOptions& options, provider_shared::CoreLogger log, uint64_t seed)
      : options_(options), log_(log), sl_draws_(seed) {}

  // The ACM status of the answer from `port`'s view to an endpoint with
  // `ep_pkey` (*path filled on ACM_STATUS_SUCCESS), or -1: the sa
  // provider asks its cache and the SA (fallback = sa).
  int Route(PortState* port, uint16_t ep_pkey, const provider_shared::RouteKey& key,
            ibv_path_record* path);

 private:
  void NoteMiss(PortState* port, Miss why);

  const SsaOptions& options_;
  provider_shared::CoreLogger log_;
  uint64_t sl_draws_;  // the SL draws' state (common/answer/answer_rule.h)
  bool miss_noted_[kMissKinds] = {};
};

}  // namespace ssa_provider
}  // namespace ssa

#endif
