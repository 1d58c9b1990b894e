// acmp_membership.h: one acmp endpoint's multicast group membership: which
// groups it joins (PlanGroups, acmp_groups.h), the SA joins and their
// answers, retries with a growing delay after a failure, attaching the
// endpoint's datagram QP to the min group, and leaving.
//
// Rules:
//   - Update() adds the groups the plan asks for (the min group first, then
//     better ones once the port's rate and MTU are known) and joins every
//     group not joined or joining yet;
//   - a join is answered through Answered() with the index and token it was
//     sent with; a stale answer (the group was left, or joined anew since)
//     is ignored, a cancelled one (the port is closing) leaves the group
//     idle;
//   - a failed join (an SA error, a malformed answer, an MGID other than
//     the one asked for, or attaching failing) is tried again after
//     `timeout` ms, doubled per further failure up to a minute;
//   - only the min group (index 0) is attached, as upstream does: requests
//     go there; the other groups only give routes. The endpoint is ready()
//     when the min group is joined and attached.
//
// Ownership: owns its groups and their retry timers; LeaveAll() cancels the
// timers and must run before it is destroyed while the Reactor still
// lives (the provider calls it when the endpoint closes or flushes). Borrows
// the Reactor, the log and the options, which outlive it. Threads: the
// core's loop thread only.
#ifndef IBACM_SSA_PROVIDERS_ACMP_ACMP_MEMBERSHIP_H
#define IBACM_SSA_PROVIDERS_ACMP_ACMP_MEMBERSHIP_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/base/status.h"
#include "providers/acmp/acmp_groups.h"
#include "providers/acmp/acmp_loop.h"
#include "providers/acmp/acmp_options.h"
#include "providers/acmp/datagram_transport.h"

namespace ssa {
namespace acmp {

class GroupMembership {
 public:
  struct Callbacks {
    // Sends the join MAD (256 bytes) of group `index`; its answer comes
    // back through Answered(index, token, ...), at once (status < 0) when
    // the send fails.
    std::function<void(size_t index, uint64_t token, const uint8_t* mad)> send_join;
    // Sends a leave MAD; its answer does not matter.
    std::function<void(const uint8_t* mad)> send_leave;
    // Attaches the endpoint's datagram QP to a joined group, and detaches.
    std::function<Status(const dgram::Group& group)> attach;
    std::function<void(const dgram::Group& group)> detach;
    // The min group is joined and attached: the endpoint is ready().
    std::function<void()> ready;
  };

  // `name` labels log lines ("mlx5_0/1 pkey 0xffff"); `pkey` is the
  // endpoint's.
  GroupMembership(Reactor* reactor, ProviderLog* log, const AcmpOptions* options,
                  Callbacks callbacks, std::string name, uint16_t pkey);
  GroupMembership(const GroupMembership&) = delete;
  GroupMembership& operator=(const GroupMembership&) = delete;

  // Plans the groups for the port (its GID and LID; `port_rate` and
  // `port_mtu` are codes, 0 while not known) and joins those not joined.
  void Update(const dgram::Gid& port_gid, uint16_t port_lid, uint8_t port_rate, uint8_t port_mtu);
  // The SA's answer to the join of group `index` sent with `token`.
  void Answered(size_t index, uint64_t token, int status, const uint8_t* mad, size_t len);
  // Cancels retries, detaches, and forgets every group; with `tell_sa`,
  // sends a leave for each joined one.
  void LeaveAll(bool tell_sa);

  bool ready() const {
    return !groups_.empty() && groups_[0].state == GroupState::kJoined && groups_[0].attached;
  }
  // In plan order; [0] is the min group.
  const std::vector<McGroup>& groups() const { return groups_; }

 private:
  void Join(size_t index);
  void Failed(size_t index, const Status& why);

  Reactor* reactor_;
  ProviderLog* log_;
  const AcmpOptions* options_;
  Callbacks cb_;
  std::string name_;
  uint16_t pkey_;
  dgram::Gid port_gid_;
  uint16_t port_lid_ = 0;
  std::vector<McGroup> groups_;
  uint64_t next_token_ = 1;
};

}  // namespace acmp
}  // namespace ssa

#endif
