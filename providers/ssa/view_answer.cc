// view_answer.cc: see view_answer.h.
#include "providers/ssa/view_answer.h"

#include "common/answer/answer_rule.h"
#include "common/smdb/off_subnet.h"
#include "common/smdb/path_engine.h"

namespace ssa {
namespace ssa_provider {

using provider_shared::RouteKey;

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

}  // namespace ssa_provider
}  // namespace ssa
