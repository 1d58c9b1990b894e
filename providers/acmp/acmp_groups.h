// acmp_groups.h: the multicast groups of one acmp endpoint and their join
// state.
//
// Which groups (upstream acmp's rule, without its limit of two):
//   index 0: the min group (min_rate, min_mtu): every endpoint joins it and
//            is attached to it; resolve requests are multicast there;
//   then, with route_prot acm only, groups whose routes are better, lowest
//   preference first: each extra_groups (rate, mtu) the port supports, and
//   last the port's own rate and MTU when they beat the min group's.
// A request lists the sender's joined groups in that order; the owner picks
// the last one it has joined too (BestShared) and the route comes from that
// group's MCMemberRecord. At most 6 GIDs fit in a request: the min group
// and the 5 most preferred are sent.
//
// Each group is joined with SubnAdmSet(MCMemberRecord): MGID from
// AcmMgid(pkey, tos 0, rate, mtu), the port GID, Q_Key 0x80010000, MTU and
// rate "exactly", TClass 0, the endpoint's P_Key, SL 0, flow label 0,
// scope site-local (5), full member. The SA's answer gives the MLID and
// the group's SL, flow label, hop limit, TClass, rate and packet lifetime,
// from which the group's address vector (for sending) and its route
// template (a path record with the group's values, SGID/SLID ours) are made.
//
// Plain value, one thread.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_GROUPS_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_GROUPS_H

#include <infiniband/sa.h>

#include <cstdint>
#include <vector>

#include "providers/acmp/acmp_options.h"
#include "providers/acmp/datagram_transport.h"
#include "providers/acmp/mcmember_wire.h"

namespace ssa {
namespace acmp {

// The component mask of a join: upstream acmp's.
constexpr uint64_t kJoinCompMask = mad::kMcCompMgid | mad::kMcCompPortGid | mad::kMcCompQkey |
                                   mad::kMcCompMtuSelector | mad::kMcCompMtu | mad::kMcCompTclass |
                                   mad::kMcCompPkey | mad::kMcCompRateSelector | mad::kMcCompRate |
                                   mad::kMcCompSl | mad::kMcCompFlowLabel | mad::kMcCompScope |
                                   mad::kMcCompJoinState;
constexpr uint64_t kLeaveCompMask = mad::kMcCompMgid | mad::kMcCompPortGid | mad::kMcCompJoinState;

enum class GroupState { kIdle, kJoining, kJoined, kFailed };

struct McGroup {
  GroupRate spec;
  dgram::Gid mgid;
  GroupState state = GroupState::kIdle;
  bool attached = false;       // the transport delivers it to us
  mad::McMemberRecord record;  // the SA's answer
  dgram::Group address;        // for sending to the group
  ibv_path_record route{};     // route template (network order)
  uint64_t join_token = 0;     // the SA join that may complete it
  int failures = 0;
  uint64_t retry_timer = 0;
};

// The plan: the min group first, then better ones (see above). `port_rate`
// and `port_mtu` are codes; 0 = not known yet (only the min group then).
std::vector<GroupRate> PlanGroups(const AcmpOptions& options, uint8_t port_rate, uint8_t port_mtu);

// The join request for `spec` on an endpoint with `port_gid` and `pkey`.
mad::McMemberRecord JoinRecord(const GroupRate& spec, const dgram::Gid& port_gid, uint16_t pkey);
mad::McMemberRecord LeaveRecord(const McGroup& group, const dgram::Gid& port_gid);

// Fills address and route from the SA's answer to the join. `slid` is the
// port's LID; `port_num` its number.
void RecordJoin(const mad::McMemberRecord& answer, uint16_t slid, McGroup* group);

// Index into `groups` of the best group that is joined and appears among
// `their` (the last such one in `their`, the sender's order), or -1.
int BestSharedGroup(const std::vector<McGroup>& groups, const dgram::Gid* their, size_t count);
// The MGIDs to advertise in a request: joined groups in order, at most
// `max` (index 0 and the max-1 most preferred).
std::vector<dgram::Gid> AdvertisedGroups(const std::vector<McGroup>& groups, size_t max);
// The joined group with `mgid`, or null.
const McGroup* FindJoined(const std::vector<McGroup>& groups, const dgram::Gid& mgid);

}  // namespace acmp
}  // namespace ssa

#endif
