// acmp_groups_test.cc: multicast groups: the MCMemberRecord wire format and
// join/leave MADs, the join record acmp sends (upstream's fields and
// component mask), which groups an endpoint joins, the best shared group,
// the route template from the SA's answer; and the PortInfoRecord query
// and IBA rate/MTU codes the group plan depends on.
#include "providers/acmp/acmp_groups.h"

#include <arpa/inet.h>

#include <cstring>

#include "common/base/big_endian.h"
#include "common/mad/mad_wire.h"
#include "providers/acmp/acmp_port_info.h"
#include "providers/acmp/acmp_wire.h"
#include "providers/acmp/mcmember_wire.h"
#include "test/support/check_ok.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acmp;
namespace mad = ssa::mad;
using ssa::dgram::Gid;

namespace {

Gid PortGid() {
  Gid g;
  inet_pton(AF_INET6, "fe80::10:3", g.raw);
  return g;
}

McGroup Joined(uint8_t rate, uint8_t mtu) {
  McGroup g;
  g.spec = {rate, mtu};
  g.mgid = AcmMgid(0xffff, 0, rate, mtu);
  g.state = GroupState::kJoined;
  return g;
}

}  // namespace

TEST_GROUP(AcmpGroups){};

TEST(AcmpGroups, McMemberRecordRoundTripAndOffsets) {
  mad::McMemberRecord r = JoinRecord({3, 4}, PortGid(), 0xffff);
  r.mlid = 0xc001;
  r.sl = 5;
  r.flow_label = 0xabcde;
  r.hop_limit = 0x3f;
  r.packet_life_time_selector = 2;
  r.packet_life_time = 18;
  uint8_t buf[mad::kMcMemberRecordSize];
  mad::EncodeMcMemberRecord(r, buf);
  LONGS_EQUAL(0xff, buf[0]);
  LONGS_EQUAL(0x15, buf[1]);
  LONGS_EQUAL(0x80, buf[32]);  // Q_Key 0x80010000
  LONGS_EQUAL(0x01, buf[33]);
  LONGS_EQUAL(0xc0, buf[36]);  // MLID
  LONGS_EQUAL(0x84, buf[38]);  // MTU exactly 2048
  LONGS_EQUAL(0xff, buf[40]);  // P_Key
  LONGS_EQUAL(0x83, buf[42]);  // rate exactly 10 Gb/s
  LONGS_EQUAL(0x92, buf[43]);
  LONGS_EQUAL(0x5a, buf[44]);  // SL 5 | flow label high nibble
  LONGS_EQUAL(0x3f, buf[47]);  // hop limit
  LONGS_EQUAL(0x51, buf[48]);  // site-local scope, full member
  mad::McMemberRecord back;
  CHECK_OK(mad::DecodeMcMemberRecord(buf, sizeof(buf), &back));
  LONGS_EQUAL(0xabcde, back.flow_label);
  LONGS_EQUAL(5, back.sl);
  LONGS_EQUAL(4, back.mtu);
  LONGS_EQUAL(2, back.mtu_selector);
  MEMCMP_EQUAL(r.port_gid, back.port_gid, 16);
  CHECK_FALSE(mad::DecodeMcMemberRecord(buf, 51, &back).ok());
}

TEST(AcmpGroups, JoinMadIsUpstreamsAndItsAnswerDecodes) {
  uint8_t m[mad::kMadSize];
  mad::McMemberRecord rec = JoinRecord({3, 4}, PortGid(), 0xffff);
  mad::BuildMcMemberSet(0, rec, kJoinCompMask, m);
  LONGS_EQUAL(0x03, m[1]);  // SA class
  LONGS_EQUAL(0x02, m[3]);  // SubnAdmSet
  LONGS_EQUAL(0x38, m[17]);
  // Upstream acmp's component mask: MGID, PortGID, Q_Key, MTU selector and
  // MTU, TClass, P_Key, rate selector and rate, SL, flow label, scope,
  // join state.
  uint64_t mask = 0;
  for (int i = 0; i < 8; ++i) mask = mask << 8 | m[48 + i];
  CHECK(mask == ((1 << 0) | (1 << 1) | (1 << 2) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) |
                 (1 << 8) | (1 << 9) | (1 << 12) | (1 << 13) | (1 << 15) | (1 << 16)));
  // OpenSM's answer: GetResp with the group's record.
  m[3] = mad::kMethodGetResp;
  m[56 + 36] = 0xc0;
  m[56 + 37] = 0x01;
  mad::McMemberRecord answer;
  CHECK_OK(mad::DecodeMcMemberResponse(m, sizeof(m), false, &answer));
  LONGS_EQUAL(0xc001, answer.mlid);
  // Wrong method, an error status, a unicast LID: rejected.
  CHECK_FALSE(mad::DecodeMcMemberResponse(m, sizeof(m), true, &answer).ok());
  m[4] = 0x02;  // ERR_REQ_INVALID
  ssa::Status st = mad::DecodeMcMemberResponse(m, sizeof(m), false, &answer);
  CHECK_FALSE(st.ok());
  STRCMP_CONTAINS("ERR_REQ_INVALID", st.message().c_str());
  m[4] = 0;
  m[56 + 36] = 0x00;
  CHECK_FALSE(mad::DecodeMcMemberResponse(m, sizeof(m), false, &answer).ok());
  // A leave is SubnAdmDelete, answered by DeleteResp.
  mad::BuildMcMemberDelete(0, rec, kLeaveCompMask, m);
  LONGS_EQUAL(0x15, m[3]);
  m[3] = mad::kMethodDeleteResp;
  CHECK_OK(mad::DecodeMcMemberResponse(m, sizeof(m), true, &answer));
}

TEST(AcmpGroups, PlanJoinsTheMinGroupAndBetterOnesOnlyForAcmRoutes) {
  AcmpOptions o;  // route_prot sa, min 10 Gb/s 2048
  LONGS_EQUAL(1, PlanGroups(o, 7, 5).size());
  o.route_prot = AcmpOptions::RouteProt::kAcm;
  std::vector<GroupRate> p = PlanGroups(o, 0, 0);  // port not known yet
  LONGS_EQUAL(1, p.size());
  p = PlanGroups(o, 3, 4);  // the port is no better than the min group
  LONGS_EQUAL(1, p.size());
  p = PlanGroups(o, 7, 4);  // 40 Gb/s
  LONGS_EQUAL(2, p.size());
  LONGS_EQUAL(3, p[0].rate);
  LONGS_EQUAL(7, p[1].rate);
  // Extra groups: those the port supports, lowest preference first, the
  // port's own group last; no fixed limit.
  o.extra_groups = {{7, 4}, {6, 4}, {17, 5}, {6, 3}};  // 40, 20, 200 (too fast), 20/1024
  p = PlanGroups(o, 16, 5);                            // 100 Gb/s, 4096
  LONGS_EQUAL(5, p.size());
  LONGS_EQUAL(3, p[0].rate);  // min
  LONGS_EQUAL(6, p[1].rate);  // 20 Gb/s 1024
  LONGS_EQUAL(3, p[1].mtu);
  LONGS_EQUAL(6, p[2].rate);   // 20 Gb/s 2048
  LONGS_EQUAL(7, p[3].rate);   // 40
  LONGS_EQUAL(16, p[4].rate);  // the port
}

TEST(AcmpGroups, BestSharedGroupIsTheSendersMostPreferredThatWeJoined) {
  std::vector<McGroup> ours = {Joined(3, 4), Joined(6, 4), Joined(7, 4)};
  ours[1].state = GroupState::kFailed;
  Gid theirs[3] = {AcmMgid(0xffff, 0, 3, 4), AcmMgid(0xffff, 0, 6, 4), AcmMgid(0xffff, 0, 12, 4)};
  LONGS_EQUAL(0, BestSharedGroup(ours, theirs, 3));  // 20G not joined, 56G not ours
  theirs[2] = AcmMgid(0xffff, 0, 7, 4);
  LONGS_EQUAL(2, BestSharedGroup(ours, theirs, 3));
  LONGS_EQUAL(0, BestSharedGroup(ours, theirs, 1));
  LONGS_EQUAL(-1, BestSharedGroup(ours, theirs, 0));
  Gid other[1] = {AcmMgid(0x8001, 0, 3, 4)};  // another partition
  LONGS_EQUAL(-1, BestSharedGroup(ours, other, 1));
}

TEST(AcmpGroups, AtMostSixGroupsAreAdvertisedKeepingTheMinGroup) {
  std::vector<McGroup> g;
  for (uint8_t r : {3, 2, 5, 6, 4, 7, 8, 9}) g.push_back(Joined(r, 4));
  std::vector<Gid> adv = AdvertisedGroups(g, kAcmMaxGids);
  LONGS_EQUAL(6, adv.size());
  CHECK(adv[0] == g[0].mgid);
  CHECK(adv[5] == g[7].mgid);
  CHECK(adv[1] == g[3].mgid);
}

TEST(AcmpGroups, RouteTemplateComesFromTheSasAnswer) {
  McGroup g = Joined(3, 4);
  mad::McMemberRecord a = JoinRecord({3, 4}, PortGid(), 0xffff);
  a.mlid = 0xc001;
  a.sl = 2;
  a.hop_limit = 1;
  a.packet_life_time_selector = 2;
  RecordJoin(a, 4, &g);
  LONGS_EQUAL(0xc001, g.address.av.dlid);
  CHECK_TRUE(g.address.av.global);
  CHECK(g.address.av.dgid == g.mgid);
  LONGS_EQUAL(2, g.address.av.sl);
  LONGS_EQUAL(4, ssa::FromBe16(g.route.slid));
  MEMCMP_EQUAL(PortGid().raw, g.route.sgid.raw, 16);
  LONGS_EQUAL(0x84, g.route.mtu);
  LONGS_EQUAL(0x83, g.route.rate);
  LONGS_EQUAL(0x80, g.route.packetlifetime);
  LONGS_EQUAL(2, ssa::FromBe16(g.route.qosclass_sl));
  LONGS_EQUAL(1, ssa::FromBe32(g.route.flowlabel_hoplimit));
  LONGS_EQUAL(0x81, g.route.reversible_numpath);
  LONGS_EQUAL(0xffff, ssa::FromBe16(g.route.pkey));
}

TEST(AcmpGroups, RatesMtusAndThePortInfoRecord) {
  LONGS_EQUAL(3, RateCodeFromGbps(10));
  LONGS_EQUAL(2, RateCodeFromGbps(2.5));
  LONGS_EQUAL(12, RateCodeFromGbps(56));
  LONGS_EQUAL(0, RateCodeFromGbps(11));
  CHECK(RateMbps(7) > RateMbps(6));           // 40 > 20, though the codes are not ordered
  LONGS_EQUAL(3, RateCodeForLink(2, 1, 0));   // 4x SDR
  LONGS_EQUAL(7, RateCodeForLink(2, 4, 0));   // 4x QDR
  LONGS_EQUAL(12, RateCodeForLink(2, 4, 1));  // 4x FDR
  LONGS_EQUAL(16, RateCodeForLink(2, 1, 2));  // 4x EDR
  LONGS_EQUAL(4, MtuCodeFromBytes(2048));
  LONGS_EQUAL(0, MtuCodeFromBytes(3000));
  LONGS_EQUAL(4096, MtuBytes(5));
  LONGS_EQUAL(1024, SubnetTimeoutMs(18));
  LONGS_EQUAL(0, SubnetTimeoutMs(7));

  uint8_t m[mad::kMadSize];
  BuildPortInfoRecordGet(4, m);
  LONGS_EQUAL(0x01, m[3]);
  LONGS_EQUAL(0x12, m[17]);
  LONGS_EQUAL(1, m[55]);  // component mask: EndportLID
  LONGS_EQUAL(4, m[57]);
  // An answer as OpenSM gives it for an ibsim HCA port: 4x SDR, MTU 2048,
  // SubnetTimeOut 31.
  m[3] = mad::kMethodGetResp;
  uint8_t* pi = m + 56 + 4;
  pi[31] = 2;
  pi[35] = 0x11;
  pi[36] = 0x40;
  pi[51] = 31;
  PortAttributes a;
  CHECK_OK(DecodePortInfoRecordResponse(m, sizeof(m), &a));
  LONGS_EQUAL(4, a.mtu);
  LONGS_EQUAL(3, a.rate);
  LONGS_EQUAL(31, a.subnet_timeout);
  pi[36] = 0x70;  // not an MTU
  CHECK_FALSE(DecodePortInfoRecordResponse(m, sizeof(m), &a).ok());
  m[3] = mad::kMethodGet;
  CHECK_FALSE(DecodePortInfoRecordResponse(m, sizeof(m), &a).ok());
}
