// acmp_membership_test.cc: GroupMembership (providers/acmp/acmp_membership.h)
// on its own, with a fake scheduler and recorded callbacks: the min group
// joined first and attached, failed joins retried with a doubling delay,
// stale and cancelled answers, leaving.
#include "providers/acmp/acmp_membership.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/mad/mad_wire.h"
#include "test/unit/manual_reactor.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using namespace ssa::acmp;
namespace mad = ssa::mad;

namespace {

struct CapturedLog : ProviderLog {
  std::vector<std::string> lines;
  void Log(int, const char* fmt, ...) override {
    char buf[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(buf, sizeof(buf), fmt, args);
    va_end(args);
    lines.push_back(buf);
  }
};

ssa::dgram::Gid PortGid() {
  ssa::dgram::Gid g;
  inet_pton(AF_INET6, "fe80::10:3", g.raw);
  return g;
}

struct SentJoin {
  size_t index;
  uint64_t token;
  std::vector<uint8_t> mad;
};

}  // namespace

TEST_GROUP(AcmpMembership) {
  ManualReactor sched;
  // Runs the one pending timer.
  void FireOnly() {
    LONGS_EQUAL(1, sched.timers.size());
    sched.FireOne();
  }
  CapturedLog log;
  AcmpOptions options;
  std::vector<SentJoin> joins;
  int leaves = 0, attached = 0, detached = 0, ready = 0;
  ssa::Status attach_result;
  std::unique_ptr<GroupMembership> m;

  void setup() override {
    GroupMembership::Callbacks cb;
    cb.send_join = [this](size_t index, uint64_t token, const uint8_t* mad) {
      joins.push_back({index, token, std::vector<uint8_t>(mad, mad + mad::kMadSize)});
    };
    cb.send_leave = [this](const uint8_t*) { ++leaves; };
    cb.attach = [this](const ssa::dgram::Group&) {
      ++attached;
      return attach_result;
    };
    cb.detach = [this](const ssa::dgram::Group&) { ++detached; };
    cb.ready = [this] { ++ready; };
    m = std::make_unique<GroupMembership>(&sched, &log, &options, std::move(cb),
                                          "mlx4_0/1 pkey 0xffff", 0xffff);
  }

  // The SA's answer to `join` (a GetResp with the record it was sent, MLID
  // 0xc001), with `status` as the core reports it.
  void Answer(const SentJoin& join, int status = 0) {
    std::vector<uint8_t> resp = join.mad;
    resp[3] = mad::kMethodGetResp;
    resp[56 + 36] = 0xc0;
    resp[56 + 37] = 0x01;
    m->Answered(join.index, join.token, status, resp.data(), resp.size());
  }
};

TEST(AcmpMembership, TheMinGroupIsJoinedFirstAndAttachedThenTheEndpointIsReady) {
  m->Update(PortGid(), 3, 0, 0);  // the port's rate and MTU not known yet
  LONGS_EQUAL(1, joins.size());
  LONGS_EQUAL(0, joins[0].index);
  CHECK(m->groups()[0].state == GroupState::kJoining);
  CHECK_FALSE(m->ready());
  Answer(joins[0]);
  CHECK_TRUE(m->ready());
  LONGS_EQUAL(1, attached);
  LONGS_EQUAL(1, ready);
  LONGS_EQUAL(0xc001, m->groups()[0].address.mlid);
  // Updating again joins nothing twice.
  m->Update(PortGid(), 3, 0, 0);
  LONGS_EQUAL(1, joins.size());
}

TEST(AcmpMembership, AFailedJoinIsTriedAgainWithADoublingDelay) {
  m->Update(PortGid(), 3, 0, 0);
  Answer(joins[0], -ETIMEDOUT);
  CHECK(m->groups()[0].state == GroupState::kFailed);
  LONGS_EQUAL(options.timeout_ms, sched.timers.begin()->second.delay_ms);
  FireOnly();
  LONGS_EQUAL(2, joins.size());
  Answer(joins[1], -ETIMEDOUT);
  LONGS_EQUAL(2 * options.timeout_ms, sched.timers.begin()->second.delay_ms);
  FireOnly();
  // An attach that fails is a failed join too.
  attach_result = ssa::Status::Error(-EIO, "no attach");
  Answer(joins[2]);
  CHECK_FALSE(m->ready());
  LONGS_EQUAL(4 * options.timeout_ms, sched.timers.begin()->second.delay_ms);
  FireOnly();
  attach_result = ssa::Status::Ok();
  Answer(joins[3]);
  CHECK_TRUE(m->ready());
  CHECK(sched.timers.empty());
  LONGS_EQUAL(0, m->groups()[0].failures);
}

TEST(AcmpMembership, AnAnswerForAnotherMgidIsAFailedJoin) {
  m->Update(PortGid(), 3, 0, 0);
  joins[0].mad[56 + 15] ^= 1;  // the MGID's last byte
  Answer(joins[0]);
  CHECK(m->groups()[0].state == GroupState::kFailed);
  LONGS_EQUAL(0, attached);
  LONGS_EQUAL(1, sched.timers.size());
}

TEST(AcmpMembership, CancelledAndStaleAnswersChangeNothing) {
  m->Update(PortGid(), 3, 0, 0);
  Answer(joins[0], -ECANCELED);  // the port is closing
  CHECK(m->groups()[0].state == GroupState::kIdle);
  CHECK(sched.timers.empty());
  Answer(joins[0]);  // its token is spent
  CHECK_FALSE(m->ready());
  m->Update(PortGid(), 3, 0, 0);  // an idle group is joined again
  LONGS_EQUAL(2, joins.size());
  m->LeaveAll(false);
  Answer(joins[1]);  // for a group no longer there
  CHECK_FALSE(m->ready());
  LONGS_EQUAL(0, attached);
}

TEST(AcmpMembership, LeavingCancelsRetriesDetachesAndTellsTheSaAboutJoinedGroups) {
  m->Update(PortGid(), 3, 0, 0);
  Answer(joins[0]);
  m->LeaveAll(true);
  LONGS_EQUAL(1, leaves);
  LONGS_EQUAL(1, detached);
  CHECK_TRUE(m->groups().empty());
  CHECK_FALSE(m->ready());
  // A failed group is not left at the SA; its retry timer goes.
  m->Update(PortGid(), 3, 0, 0);
  Answer(joins[1], -ETIMEDOUT);
  LONGS_EQUAL(1, sched.timers.size());
  m->LeaveAll(true);
  LONGS_EQUAL(1, leaves);
  CHECK(sched.timers.empty());
}
