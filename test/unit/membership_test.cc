// membership_test.cc: the core's book of members (membership.h), pure
// logic in one process: joins and renewals, leaves, expiry, re-parenting
// after a lost parent, allow-lists, fan-out limits, a lost core, the
// refusal reasons counted from the start, and the indexes always saying
// what the members say (IndexesAgree after every step).
#include <chrono>
#include <map>
#include <string>

#include "common/base/text_util.h"
#include "common/tree/membership.h"
#include "test/support/check_ok.h"

#include "CppUTest/TestHarness.h"

namespace tree = ssa::tree;
using Clock = tree::Membership::Clock;

namespace {

constexpr uint64_t kCore = 0x1001;  // LID 1

// Every LID's owner is 0x1000 + LID; hops grow with the LIDs' distance, so
// the nearest parent is the one with the closest LID.
class LineTopology : public tree::Topology {
 public:
  uint64_t OwnerGuid(uint16_t lid) const override { return 0x1000 + lid; }
  int Hops(uint16_t from, uint16_t to) const override { return from > to ? from - to : to - from; }
};

struct Book {
  LineTopology topology;
  tree::Membership m;
  Clock::time_point now = Clock::now();
  explicit Book(tree::MembershipOptions o = {}) : m(o, kCore, 1, Address(7470)) {
    m.SetTopology(&topology);
  }
  static tree::DataAddress Address(int port) {
    tree::DataAddress a;
    CHECK_OK(tree::DataAddress::Parse("127.0.0.1:" + std::to_string(port), &a));
    return a;
  }
  // A join (or renewal with `token`) from LID `lid`; the MAD status.
  uint16_t Join(uint16_t lid, uint8_t roles, tree::JoinAnswer* a, const tree::Token& token = {},
                uint64_t lost_parent = 0) {
    tree::JoinRequest r;
    r.roles = roles;
    r.port_guid = 0x1000 + lid;
    r.token = token;
    r.lost_parent = lost_parent;
    if (roles != tree::kRoleConsumer) r.data_address = Address(7000 + lid);
    std::string why;
    uint16_t st = m.Join(r, lid, now, a, &why);
    CHECK_TEXT(m.IndexesAgree(), ("indexes disagree after a join: " + why).c_str());
    return st;
  }
  tree::JoinAnswer Joined(uint16_t lid, uint8_t roles, const tree::Token& token = {},
                          uint64_t lost_parent = 0) {
    tree::JoinAnswer a;
    CHECK_EQUAL(0, Join(lid, roles, &a, token, lost_parent));
    return a;
  }
  size_t ChildrenInJson(uint64_t parent) {
    std::string json = m.ToJson(now);
    std::string needle = "\"parent_guid\": \"" + ssa::GuidText(parent) + "\"";
    size_t n = 0;
    for (size_t at = json.find(needle); at != std::string::npos; at = json.find(needle, at + 1))
      ++n;
    return n;
  }
};

}  // namespace

TEST_GROUP(Membership){};

TEST(Membership, EachRoleJoinsItsTierAndRenewalsKeepTheParentAndToken) {
  Book b;
  tree::JoinAnswer d = b.Joined(2, tree::kRoleDistribution);
  CHECK_EQUAL(kCore, d.parent.guid);  // distribution: under the core
  tree::JoinAnswer a = b.Joined(3, tree::kRoleAccess);
  CHECK_EQUAL(0x1002u, a.parent.guid);  // access: under distribution
  tree::JoinAnswer c = b.Joined(10, tree::kRoleConsumer);
  CHECK_EQUAL(0x1003u, c.parent.guid);  // consumer: under access
  CHECK_EQUAL(3u, b.m.size());
  // A renewal keeps parent and token; a join without the token is a new
  // life (a restarted daemon): new token.
  tree::JoinAnswer again = b.Joined(10, tree::kRoleConsumer, c.token);
  CHECK(again.token == c.token);
  CHECK_EQUAL(0x1003u, again.parent.guid);
  tree::JoinAnswer fresh = b.Joined(10, tree::kRoleConsumer);
  CHECK(fresh.token != c.token);
  CHECK_EQUAL(3u, b.m.size());
  // A consumer with no access node yet is told to retry, and not kept.
  Book lonely;
  tree::JoinAnswer none;
  CHECK_EQUAL(tree::kStatusRetry, lonely.Join(10, tree::kRoleConsumer, &none));
  CHECK_EQUAL(0u, lonely.m.size());
}

TEST(Membership, ALeaveNeedsTheTokenAndItsChildrenMoveWhenTheyNextJoin) {
  Book b;
  b.Joined(2, tree::kRoleDistribution);
  tree::JoinAnswer a3 = b.Joined(3, tree::kRoleAccess);
  tree::JoinAnswer a4 = b.Joined(4, tree::kRoleAccess);
  tree::JoinAnswer c = b.Joined(10, tree::kRoleConsumer);
  uint64_t parent = c.parent.guid;
  const tree::JoinAnswer& leaving = parent == 0x1003 ? a3 : a4;
  tree::LeaveRequest bad;
  bad.port_guid = parent;
  CHECK_EQUAL(tree::kStatusUnknownMember, b.m.Leave(bad));
  tree::LeaveRequest leave;
  leave.port_guid = parent;
  leave.token = leaving.token;
  CHECK_EQUAL(0, b.m.Leave(leave));
  CHECK(b.m.IndexesAgree());
  CHECK(b.m.Find(parent) == nullptr);
  // The consumer still names it until it renews; then it moves.
  tree::JoinAnswer moved = b.Joined(10, tree::kRoleConsumer, c.token);
  CHECK(moved.parent.guid != parent);
  CHECK(moved.parent.guid == 0x1003 || moved.parent.guid == 0x1004);
}

TEST(Membership, ExpiredMembersLeaveTheBookAndANewLifeOfAParentCountsItsChildren) {
  tree::MembershipOptions o;
  o.lease_s = 30;
  Book b(o);
  b.Joined(2, tree::kRoleDistribution);
  tree::JoinAnswer a = b.Joined(3, tree::kRoleAccess);
  tree::JoinAnswer c = b.Joined(10, tree::kRoleConsumer);
  // The access node stops renewing; the consumer goes on.
  b.now += std::chrono::seconds(20);
  b.Joined(10, tree::kRoleConsumer, c.token);
  b.Joined(2, tree::kRoleDistribution, b.m.Find(0x1002)->token);
  b.now += std::chrono::seconds(15);
  CHECK_EQUAL(1u, b.m.Expire(b.now));
  CHECK(b.m.IndexesAgree());
  CHECK(b.m.Find(0x1003) == nullptr);
  // A new life of the access node: the consumer that still names it counts
  // as its child (the expiry kept that link, as the consumer's own record
  // does).
  tree::JoinAnswer a2 = b.Joined(3, tree::kRoleAccess);
  CHECK(a2.token != a.token);
  CHECK_EQUAL(1u, b.ChildrenInJson(0x1003));
  // The consumer renews and keeps it.
  CHECK_EQUAL(0x1003u, b.Joined(10, tree::kRoleConsumer, c.token).parent.guid);
  CHECK(b.m.IndexesAgree());
}

TEST(Membership, AParentReportedLostIsNotAssignedUntilItSpeaksAgain) {
  Book b;
  b.Joined(2, tree::kRoleDistribution);
  tree::JoinAnswer a3 = b.Joined(3, tree::kRoleAccess);
  b.Joined(5, tree::kRoleAccess);
  tree::JoinAnswer c = b.Joined(4, tree::kRoleConsumer);  // nearest: LID 3 or 5
  uint64_t first = c.parent.guid;
  uint64_t other = first == 0x1003 ? 0x1005 : 0x1003;
  CHECK_EQUAL(other, c.backup.guid);
  // The consumer lost it: moved to the other, and a second consumer is not
  // given the lost one either.
  tree::JoinAnswer moved = b.Joined(4, tree::kRoleConsumer, c.token, first);
  CHECK_EQUAL(other, moved.parent.guid);
  tree::JoinAnswer next = b.Joined(6, tree::kRoleConsumer);
  CHECK_EQUAL(other, next.parent.guid);
  // It speaks again (renews): assignable again.
  const tree::Member* lost = b.m.Find(first);
  b.Joined(static_cast<uint16_t>(first - 0x1000), tree::kRoleAccess, lost->token);
  tree::JoinAnswer later =
      b.Joined(static_cast<uint16_t>(first - 0x1000 + 10), tree::kRoleConsumer);
  CHECK(later.parent.guid == first || later.backup.guid == first);
  // A report naming no member marks nothing.
  b.Joined(4, tree::kRoleConsumer, moved.token, 0xdead);
  CHECK(b.m.IndexesAgree());
  (void)a3;
}

TEST(Membership, AllowListsDecideWhoMayTakeAParentsRole) {
  tree::MembershipOptions o;
  o.allow_distribution = {0x1002};
  o.allow_access = {0x1003};
  Book b(o);
  tree::JoinAnswer a;
  CHECK_EQUAL(0, b.Join(2, tree::kRoleDistribution, &a));
  CHECK_EQUAL(tree::kStatusNotAllowed, b.Join(4, tree::kRoleDistribution, &a));
  CHECK_EQUAL(0, b.Join(3, tree::kRoleAccess, &a));
  CHECK_EQUAL(tree::kStatusNotAllowed, b.Join(5, tree::kRoleAccess, &a));
  CHECK_EQUAL(0, b.Join(6, tree::kRoleConsumer, &a));  // consumers: any
  CHECK_EQUAL(2u, b.m.refusals().at("not allowed"));
  // A port claiming another's GUID from its LID is refused too.
  tree::JoinRequest r;
  r.roles = tree::kRoleConsumer;
  r.port_guid = 0x1007;
  std::string why;
  CHECK_EQUAL(tree::kStatusIdentity, b.m.Join(r, 8, b.now, &a, &why));
  STRCMP_CONTAINS("belongs to", why.c_str());
}

TEST(Membership, FullParentsAreLastChoicesAndAccessNodesFallBackToTheCore) {
  tree::MembershipOptions o;
  o.fanout_distribution = 1;
  o.fanout_access = 2;
  Book b(o);
  b.Joined(2, tree::kRoleDistribution);
  CHECK_EQUAL(0x1002u, b.Joined(3, tree::kRoleAccess).parent.guid);
  // The one distribution node is full: the next access node goes to the core.
  CHECK_EQUAL(kCore, b.Joined(4, tree::kRoleAccess).parent.guid);
  // Access nodes take two consumers each before a full one is chosen.
  std::map<uint64_t, int> load;
  for (uint16_t lid = 10; lid < 14; ++lid) ++load[b.Joined(lid, tree::kRoleConsumer).parent.guid];
  CHECK_EQUAL(2, load[0x1003]);
  CHECK_EQUAL(2, load[0x1004]);
  // All full: a fifth still lands (on a full one), never refused.
  tree::JoinAnswer extra = b.Joined(14, tree::kRoleConsumer);
  CHECK(extra.parent.guid == 0x1003 || extra.parent.guid == 0x1004);
}

TEST(Membership, ALostCoreKeepsDistributionNodesUnderIt) {
  Book b;
  tree::JoinAnswer d = b.Joined(2, tree::kRoleDistribution);
  // Only the core may parent a distribution node: reporting it lost moves
  // nothing, and the book stays consistent.
  tree::JoinAnswer again = b.Joined(2, tree::kRoleDistribution, d.token, kCore);
  CHECK_EQUAL(kCore, again.parent.guid);
  CHECK(again.token == d.token);
  // An access node under the core (no distribution node with room) that
  // loses it is assigned again, to a distribution node when there is one.
  tree::MembershipOptions o;
  o.fanout_distribution = 0;
  Book c(o);
  c.Joined(2, tree::kRoleDistribution);
  tree::JoinAnswer a = c.Joined(3, tree::kRoleAccess);
  CHECK_EQUAL(kCore, a.parent.guid);
  tree::JoinAnswer after = c.Joined(3, tree::kRoleAccess, a.token, kCore);
  CHECK(after.parent.guid == kCore || after.parent.guid == 0x1002);
  CHECK(c.m.IndexesAgree());
}

// The core's metrics write every refusal reason from the start, at 0
// (ibssa_core_join_refusals_total{reason}): each is in the book before any
// join, and a refusal of each kind counts under one of them, adding none.
TEST(Membership, EveryRefusalReasonIsInTheBookFromTheStart) {
  tree::MembershipOptions o;
  o.allow_distribution = {0x1002};
  Book b(o);
  const std::map<std::string, uint64_t> start = b.m.refusals();
  LONGS_EQUAL(6, start.size());
  for (const auto& r : start) LONGS_EQUAL_TEXT(0, r.second, r.first.c_str());
  tree::JoinAnswer a;
  std::string why;
  tree::JoinRequest r;
  r.roles = tree::kRoleConsumer;
  r.port_guid = 0x1003;
  r.protocol = tree::kProtocolVersion + 1;
  CHECK_EQUAL(tree::kStatusBadVersion, b.m.Join(r, 3, b.now, &a, &why));
  r.protocol = tree::kProtocolVersion;
  CHECK_EQUAL(tree::kStatusIdentity, b.m.Join(r, 4, b.now, &a, &why));
  CHECK_EQUAL(tree::kStatusNotAllowed, b.Join(5, tree::kRoleDistribution, &a));
  r.roles = tree::kRoleAccess;  // no data address
  CHECK_EQUAL(tree::kStatusInvalidField, b.m.Join(r, 3, b.now, &a, &why));
  tree::Membership no_smdb(o, kCore, 1, Book::Address(7470));
  CHECK_EQUAL(tree::kStatusRetry, no_smdb.Join(r, 3, b.now, &a, &why));
  LONGS_EQUAL(6, b.m.refusals().size());
  LONGS_EQUAL(6, no_smdb.refusals().size());
  for (const char* reason : {"protocol version", "identity", "not allowed", "no data address"})
    LONGS_EQUAL_TEXT(1, b.m.refusals().at(reason), reason);
  LONGS_EQUAL(1, no_smdb.refusals().at("no subnet database yet"));
}
