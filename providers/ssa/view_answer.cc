// view_answer.cc: see view_answer.h.
#include "providers/ssa/view_answer.h"

#include <infiniband/acm.h>

#include "common/answer/answer_rule.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"
#include "providers/ssa/port_state.h"
#include "providers/ssa/ssa_options.h"

namespace ssa {
namespace ssa_provider {

using provider_shared::RouteKey;

namespace {

const char* MissText(Miss why) {
  switch (why) {
    case kNoView: return "no PRDB from the tree yet";
    case kStaleView: return "the PRDB is for an earlier LID of the port";
    case kInexactQos:
      return "a record is marked not exact in the PRDB (QoS levels or SL2VL tables may change "
             "it)";
    case kInexactRoutingSl:
      return "a record is marked not exact in the PRDB (the routing engine chooses its SL)";
    case kOtherPkey: return "a record is for another partition than the endpoint's P_Key";
    case kUnconfirmed:
      return "the core has not confirmed the PRDB as current for longer than stale_after_s";
    default: return "a destination is not in the PRDB";
  }
}

}  // namespace

MissSet AnswerFromView(const PrdbView& view, const RouteKey& key, uint16_t ep_pkey, uint64_t* draws,
                       ibv_path_record* path) {
  const smdb::PrdbPath* found =
      key.kind == RouteKey::kLid ? view.ByLid(key.lid()) : view.ByGid(key.dest);
  if (!found) return MissBit(kNotInView);
  if (!ibssa_answer_same_partition(found->pkey, ep_pkey)) return MissBit(kOtherPkey);
  if (found->flags & smdb::kPathInexact) {
    // Never served as the SA's answer: each reason counted, the SA or an
    // error answers instead.
    MissSet why = 0;
    if (found->flags & smdb::kPathInexactQos) why |= MissBit(kInexactQos);
    if (found->flags & smdb::kPathInexactRoutingSl) why |= MissBit(kInexactRoutingSl);
    return why;
  }
  smdb::FromPrdbPath(*found, path);
  // A DGID of another subnet: the record to its router port, with the
  // DGID and HopLimit the SA writes (smdb/off_subnet.h).
  if (key.kind != RouteKey::kLid && view.IsRemote(key.dest))
    smdb::RouteThroughRouter(key.dest, path);
  ibssa_answer_path(path, found->pkey, smdb::PathSlSpan(found->flags), ep_pkey, draws);
  return 0;
}

int ViewAnswers::Route(PortState* port, uint16_t ep_pkey, const RouteKey& key,
                       ibv_path_record* path) {
  const int miss_status = options_.fallback_sa ? -1 : ACM_STATUS_ENODATA;
  if (!port->view) {
    NoteMiss(port, kNoView);
    return miss_status;
  }
  if (!port->ViewCurrent()) {
    NoteMiss(port, kStaleView);
    return miss_status;
  }
  if (port->confirm.unconfirmed) {  // Confirmation's decision, once a second
    // Maybe no longer what the SA answers: never served as its answer,
    // and with no fallback not "no path" (ENODATA) either.
    NoteMiss(port, kUnconfirmed);
    return options_.fallback_sa ? -1 : ACM_STATUS_ENOTCONN;
  }
  MissSet why = AnswerFromView(*port->view, key, ep_pkey, &sl_draws_, path);
  if (!why) {
    ++port->counts.prdb_hits;
    return ACM_STATUS_SUCCESS;
  }
  for (int m = 0; m < kMissKinds; ++m)
    if (why & MissBit(static_cast<Miss>(m))) NoteMiss(port, static_cast<Miss>(m));
  return miss_status;
}

void ViewAnswers::NoteMiss(PortState* port, Miss why) {
  ++port->counts.missed[why];
  if (miss_noted_[why]) return;
  miss_noted_[why] = true;  // once per reason: the counters say the rest
  log_(SSA_LOG_INFO, "port %s: %s; %s (logged once)", port->port->Name().c_str(), MissText(why),
       options_.fallback_sa  ? "asking the SA instead"
       : why == kUnconfirmed ? "answering ENOTCONN (fallback = none)"
                             : "answering ENODATA (fallback = none)");
}

}  // namespace ssa_provider
}  // namespace ssa
