// acmp_groups.cc: group planning, join records and best-group choice
// (acmp_groups.h).
#include "providers/acmp/acmp_groups.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "common/base/big_endian.h"
#include "providers/acmp/acmp_port_info.h"
#include "providers/acmp/acmp_wire.h"

namespace ssa {
namespace acmp {

namespace {

bool SameSpec(const GroupRate& a, const GroupRate& b) { return a.rate == b.rate && a.mtu == b.mtu; }

// Ordering by what a route through the group is worth: rate, then MTU.
bool Worse(const GroupRate& a, const GroupRate& b) {
  uint32_t ra = RateMbps(a.rate), rb = RateMbps(b.rate);
  return ra != rb ? ra < rb : a.mtu < b.mtu;
}

}  // namespace

std::vector<GroupRate> PlanGroups(const AcmpOptions& options, uint8_t port_rate, uint8_t port_mtu) {
  GroupRate min{options.min_rate, options.min_mtu};
  std::vector<GroupRate> plan = {min};
  if (options.route_prot != AcmpOptions::RouteProt::kAcm || !port_rate || !port_mtu) return plan;
  GroupRate port{port_rate, port_mtu};
  std::vector<GroupRate> better;
  auto supported = [&](const GroupRate& g) {
    return RateMbps(g.rate) <= RateMbps(port_rate) && g.mtu <= port_mtu;
  };
  for (const GroupRate& g : options.extra_groups)
    if (supported(g) && !SameSpec(g, min) && !SameSpec(g, port) &&
        std::none_of(better.begin(), better.end(),
                     [&](const GroupRate& b) { return SameSpec(b, g); }))
      better.push_back(g);
  std::stable_sort(better.begin(), better.end(), Worse);
  plan.insert(plan.end(), better.begin(), better.end());
  // Upstream: the port's own group when it is faster or has a larger MTU.
  if (!SameSpec(port, min) && (Worse(min, port) || port.mtu > min.mtu)) plan.push_back(port);
  return plan;
}

mad::McMemberRecord JoinRecord(const GroupRate& spec, const dgram::Gid& port_gid, uint16_t pkey) {
  mad::McMemberRecord r;
  dgram::Gid mgid = AcmMgid(pkey, 0, spec.rate, spec.mtu);
  memcpy(r.mgid, mgid.raw, 16);
  memcpy(r.port_gid, port_gid.raw, 16);
  r.qkey = kAcmQkey;
  r.mtu_selector = 2;  // exactly
  r.mtu = spec.mtu;
  r.tclass = 0;
  r.pkey = pkey;
  r.rate_selector = 2;  // exactly
  r.rate = spec.rate;
  r.sl = 0;
  r.flow_label = 0;
  r.scope = 5;  // site-local
  r.join_state = mad::kJoinStateFullMember;
  return r;
}

mad::McMemberRecord LeaveRecord(const McGroup& group, const dgram::Gid& port_gid) {
  mad::McMemberRecord r;
  memcpy(r.mgid, group.mgid.raw, 16);
  memcpy(r.port_gid, port_gid.raw, 16);
  r.join_state = mad::kJoinStateFullMember;
  return r;
}

void RecordJoin(const mad::McMemberRecord& answer, uint16_t slid, McGroup* group) {
  group->record = answer;
  dgram::Group& a = group->address;
  memcpy(a.mgid.raw, answer.mgid, 16);
  a.mlid = answer.mlid;
  a.av = dgram::AddressVector();
  a.av.dlid = answer.mlid;
  a.av.sl = answer.sl;
  a.av.static_rate = answer.rate;
  a.av.global = true;
  a.av.dgid = a.mgid;
  a.av.flow_label = answer.flow_label;
  a.av.hop_limit = answer.hop_limit;
  a.av.traffic_class = answer.tclass;
  // The route template: what a path through this group looks like.
  ibv_path_record& p = group->route;
  p = ibv_path_record();
  memcpy(p.sgid.raw, answer.port_gid, 16);
  p.slid = ToBe16(slid);
  p.flowlabel_hoplimit = ToBe32(answer.flow_label << 8 | answer.hop_limit);
  p.tclass = answer.tclass;
  p.reversible_numpath = IBV_PATH_RECORD_REVERSIBLE | 1;
  p.pkey = ToBe16(answer.pkey);
  p.qosclass_sl = ToBe16(answer.sl & 0xf);
  p.mtu = static_cast<uint8_t>(answer.mtu_selector << 6 | answer.mtu);
  p.rate = static_cast<uint8_t>(answer.rate_selector << 6 | answer.rate);
  p.packetlifetime =
      static_cast<uint8_t>(answer.packet_life_time_selector << 6 | answer.packet_life_time);
}

int BestSharedGroup(const std::vector<McGroup>& groups, const dgram::Gid* their, size_t count) {
  for (size_t i = count; i-- > 0;) {
    for (size_t j = 0; j < groups.size(); ++j)
      if (groups[j].state == GroupState::kJoined && groups[j].mgid == their[i])
        return static_cast<int>(j);
  }
  return -1;
}

std::vector<dgram::Gid> AdvertisedGroups(const std::vector<McGroup>& groups, size_t max) {
  std::vector<dgram::Gid> joined;
  for (const McGroup& g : groups)
    if (g.state == GroupState::kJoined) joined.push_back(g.mgid);
  if (joined.size() > max && max > 0) joined.erase(joined.begin() + 1, joined.end() - (max - 1));
  return joined;
}

const McGroup* FindJoined(const std::vector<McGroup>& groups, const dgram::Gid& mgid) {
  for (const McGroup& g : groups)
    if (g.state == GroupState::kJoined && g.mgid == mgid) return &g;
  return nullptr;
}

}  // namespace acmp
}  // namespace ssa
