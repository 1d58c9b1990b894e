// acmp_membership.cc: multicast joins, retries and leaves of one acmp
// endpoint (see acmp_membership.h).
#include "providers/acmp/acmp_membership.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include <ibacm_ssa/provider.h>
#include "common/mad/mad_wire.h"
#include "providers/acmp/acmp_port_info.h"
#include "providers/acmp/acmp_wire.h"

namespace ssa {
namespace acmp {

namespace {

// The longest wait between two join attempts.
constexpr uint32_t kMaxJoinRetryMs = 60000;

}  // namespace

GroupMembership::GroupMembership(Reactor* reactor, ProviderLog* log, const AcmpOptions* options,
                                 Callbacks callbacks, std::string name, uint16_t pkey)
    : reactor_(reactor),
      log_(log),
      options_(options),
      cb_(std::move(callbacks)),
      name_(std::move(name)),
      pkey_(pkey) {}

void GroupMembership::Update(const dgram::Gid& port_gid, uint16_t port_lid, uint8_t port_rate,
                             uint8_t port_mtu) {
  port_gid_ = port_gid;
  port_lid_ = port_lid;
  std::vector<GroupRate> plan = PlanGroups(*options_, port_rate, port_mtu);
  for (const GroupRate& spec : plan) {
    dgram::Gid mgid = AcmMgid(pkey_, 0, spec.rate, spec.mtu);
    bool have = false;
    for (const McGroup& g : groups_) have = have || g.mgid == mgid;
    if (have) continue;
    McGroup g;
    g.spec = spec;
    g.mgid = mgid;
    groups_.push_back(g);
  }
  for (size_t i = 0; i < groups_.size(); ++i)
    if (groups_[i].state == GroupState::kIdle) Join(i);
}

void GroupMembership::Join(size_t index) {
  McGroup& g = groups_[index];
  uint64_t token = next_token_++;
  g.join_token = token;
  g.state = GroupState::kJoining;
  uint8_t mad[mad::kMadSize];
  mad::BuildMcMemberSet(0, JoinRecord(g.spec, port_gid_, pkey_), kJoinCompMask, mad);
  log_->Log(SSA_LOG_DEBUG, "endpoint %s: joining %s", name_.c_str(),
            dgram::GidText(g.mgid).c_str());
  cb_.send_join(index, token, mad);
}

void GroupMembership::Answered(size_t index, uint64_t token, int status, const uint8_t* mad,
                               size_t len) {
  if (index >= groups_.size() || groups_[index].join_token != token) return;
  McGroup* g = &groups_[index];
  g->join_token = 0;
  if (status == -ECANCELED) {  // the port is closing
    g->state = GroupState::kIdle;
    return;
  }
  mad::McMemberRecord answer;
  Status st = status < 0 ? Status::Error(status, "no answer from the SA")
                         : mad::DecodeMcMemberResponse(mad, len, false, &answer);
  if (st.ok() && memcmp(answer.mgid, g->mgid.raw, 16) != 0)
    st = Status::Error(EBADMSG,
                       "the SA answered for MGID " +
                           dgram::GidText(*reinterpret_cast<const dgram::Gid*>(answer.mgid)));
  if (st.ok()) {
    RecordJoin(answer, port_lid_, g);
    if (index == 0) st = cb_.attach(g->address);
  }
  if (!st.ok()) {
    Failed(index, st);
    return;
  }
  g->state = GroupState::kJoined;
  g->attached = index == 0;
  g->failures = 0;
  log_->Log(SSA_LOG_INFO, "endpoint %s: joined %s (MLID 0x%04x, %d bytes, %.1f Gb/s, SL %u)%s",
            name_.c_str(), dgram::GidText(g->mgid).c_str(), answer.mlid, MtuBytes(answer.mtu),
            RateMbps(answer.rate) / 1000.0, answer.sl, index == 0 ? ", attached" : "");
  if (index == 0) cb_.ready();
}

void GroupMembership::Failed(size_t index, const Status& why) {
  McGroup* g = &groups_[index];
  g->state = GroupState::kFailed;
  ++g->failures;
  uint32_t delay = static_cast<uint32_t>(options_->timeout_ms);
  for (int i = 1; i < g->failures && delay < kMaxJoinRetryMs; ++i) delay *= 2;
  if (delay > kMaxJoinRetryMs) delay = kMaxJoinRetryMs;
  log_->Log(g->failures <= 3 ? SSA_LOG_WARN : SSA_LOG_DEBUG,
            "endpoint %s: join of %s failed (%s); trying again in %u ms", name_.c_str(),
            dgram::GidText(g->mgid).c_str(), why.ToString().c_str(), delay);
  // By MGID, not index: the timer is cancelled when the groups are left,
  // and the group it was for is the one to join again.
  dgram::Gid mgid = g->mgid;
  g->retry_timer = reactor_->AddTimer(std::chrono::milliseconds(delay), [this, mgid] {
    for (size_t i = 0; i < groups_.size(); ++i)
      if (groups_[i].mgid == mgid && groups_[i].state == GroupState::kFailed) {
        groups_[i].retry_timer = 0;
        Join(i);
      }
  });
}

void GroupMembership::LeaveAll(bool tell_sa) {
  for (McGroup& g : groups_) {
    if (g.retry_timer) reactor_->CancelTimer(g.retry_timer);
    if (g.attached) cb_.detach(g.address);
    if (tell_sa && g.state == GroupState::kJoined) {
      uint8_t mad[mad::kMadSize];
      mad::BuildMcMemberDelete(0, LeaveRecord(g, port_gid_), kLeaveCompMask, mad);
      cb_.send_leave(mad);
    }
  }
  groups_.clear();
}

}  // namespace acmp
}  // namespace ssa
