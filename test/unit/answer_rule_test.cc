// answer_rule_test.cc: the answer rule (common/answer/answer_rule.h) and
// the two ways it reaches a client: the ssa provider answering from its
// view (providers/ssa/view_answer.h) and libibssa_path answering from the
// tables the provider publishes (shm_export.h). The same records, the same
// endpoint and the same draws' state give the same answer, byte for byte,
// or no answer from both.
#include <ibacm_ssa/path.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/answer/answer_rule.h"
#include "common/base/big_endian.h"
#include "common/smdb/smdb_prdb.h"
#include "libibssa_path/path_private.h"
#include "providers/ssa/shm_export.h"
#include "providers/ssa/view_answer.h"
#include "test/support/check_ok.h"
#include "test/support/temp_dir.h"
#include "test/unit/shm_path_fixture.h"

// Last: CppUTest redefines new for leak checking.
#include <CppUTest/TestHarness.h>

using ssa::provider_shared::RouteKey;
using ssa::smdb::PrdbPath;
using ssa::ssa_provider::AnswerFromView;
using ssa::ssa_provider::ExportPort;
using ssa::ssa_provider::MissSet;
using ssa::ssa_provider::PrdbView;
using ssa::ssa_provider::ShmExport;

namespace {

constexpr uint16_t kBaseLid = 4;

uint16_t Sl(const ibv_path_record& p) { return ssa::FromBe16(p.qosclass_sl) & 0xf; }

ibv_path_record Record(uint16_t pkey, uint8_t sl) {
  ibv_path_record p{};
  p.pkey = ssa::ToBe16(pkey);
  p.qosclass_sl = ssa::ToBe16(static_cast<uint16_t>(0x120 | sl));  // QoS class 0x12
  return p;
}

// The PRDB of port LID 4: per DLID 10.., a record of each kind the rule
// tells apart (partition, membership, SL span, one reaching past SL 15,
// not exact).
std::shared_ptr<const PrdbView> View() {
  struct Row {
    uint16_t pkey;
    uint8_t sl, span, flags;
  };
  const Row rows[] = {
      {0xffff, 0, 1, 0},
      {0x7fff, 3, 1, 0},  // limited member of the default partition
      {0x8002, 1, 1, 0},
      {0xffff, 2, 4, 0},
      {0x8002, 5, 3, 0},
      {0xffff, 14, 4, 0},  // the span reaches past SL 15
      {0xffff, 1, 1, ssa::smdb::kPathInexactQos},
      {0xffff, 1, 2, ssa::smdb::kPathInexactRoutingSl},
  };
  auto db = std::make_shared<ssa::smdb::Prdb>();
  db->global_epoch = 3;
  db->source.records[0].base_lid = kBaseLid;
  uint16_t dlid = 10;
  for (const Row& r : rows) {
    PrdbPath p;
    p.sgid[15] = kBaseLid;
    p.dgid[0] = 0xfe;
    p.dgid[1] = 0x80;
    p.dgid[15] = static_cast<uint8_t>(dlid);
    p.slid = kBaseLid;
    p.dlid = dlid++;
    p.pkey = r.pkey;
    p.sl = r.sl;
    p.mtu = 4;
    p.rate = 7;
    p.hop_limit = 1;
    p.flags = static_cast<uint8_t>(ssa::smdb::kPathReversible | r.flags |
                                   ssa::smdb::PathSlSpanBits(r.span));
    db->paths.records.push_back(p);
  }
  return std::make_shared<const PrdbView>(db);
}

}  // namespace

TEST_GROUP(AnswerRule){};

TEST(AnswerRule, ThePartitionDecidesTheMembershipBitDoesNot) {
  CHECK(ibssa_answer_same_partition(0xffff, 0x7fff));
  CHECK(ibssa_answer_same_partition(0x8002, 0x0002));
  CHECK_FALSE(ibssa_answer_same_partition(0xffff, 0x8002));
}

TEST(AnswerRule, TheEndpointsPkeyAndAnSlInTheSasRange) {
  uint64_t draws = 42;
  ibv_path_record p = Record(0x7fff, 2);
  LONGS_EQUAL(1, ibssa_answer_path(&p, 0x7fff, 1, 0xffff, &draws));
  LONGS_EQUAL(0xffff, ssa::FromBe16(p.pkey));  // the endpoint's, full member
  LONGS_EQUAL(2, Sl(p));
  LONGS_EQUAL(42, draws);  // one SL: nothing drawn
  // Another partition: no answer, the record as it was.
  p = Record(0x8002, 2);
  LONGS_EQUAL(0, ibssa_answer_path(&p, 0x8002, 4, 0xffff, &draws));
  LONGS_EQUAL(0x8002, ssa::FromBe16(p.pkey));
  LONGS_EQUAL(42, draws);
  // Drawn uniformly in [SL, SL + span - 1]; the QoS class untouched, and
  // a span past SL 15 wraps within the SL's four bits.
  int seen[16] = {};
  for (int i = 0; i < 4000; ++i) {
    p = Record(0xffff, 14);
    LONGS_EQUAL(1, ibssa_answer_path(&p, 0xffff, 4, 0xffff, &draws));
    LONGS_EQUAL(0x12, ssa::FromBe16(p.qosclass_sl) >> 4);
    ++seen[Sl(p)];
  }
  for (int sl = 0; sl < 16; ++sl) {
    if (sl == 14 || sl == 15 || sl == 0 || sl == 1)
      CHECK_TEXT(seen[sl] > 800 && seen[sl] < 1200, std::to_string(sl).c_str());
    else
      LONGS_EQUAL(0, seen[sl]);
  }
}

TEST(AnswerRule, TheProviderAndLibibssaPathAnswerAlike) {
  ssa::test::TempDir dir{"answer-rule-test."};
  std::string socket = dir.path() + "/ibacm-unix.sock";
  int placeholder = shm_test::BindSocket(socket);  // the daemon's, vouching for the tables
  CHECK(placeholder >= 0);
  ShmExport out(socket);
  ExportPort port;
  port.gid[15] = kBaseLid;
  port.lid = kBaseLid;
  port.view = View();
  port.pkeys = {0xffff, 0x8002};
  CHECK_OK(out.Publish({port}, nullptr, out.generation()));
  ibssa_path_options o{};
  o.size = sizeof(o);
  o.flags = IBSSA_PATH_NO_SOCKET;
  ibssa_path* h = nullptr;
  LONGS_EQUAL(0, ibssa_path_open(socket.c_str(), &o, &h));

  int answered = 0, refused = 0;
  for (uint16_t pkey : port.pkeys) {
    for (uint16_t dlid = 10; dlid < 19; ++dlid) {
      for (bool by_gid : {false, true}) {
        uint8_t dgid[16] = {0xfe, 0x80};
        dgid[15] = static_cast<uint8_t>(dlid);
        RouteKey key = by_gid ? RouteKey::Gid(1, dgid) : RouteKey::Lid(1, dlid);
        for (uint64_t seed = 0; seed < 8; ++seed) {
          uint64_t draws = seed * 0x1234567;
          ibv_path_record mine{}, theirs{};
          MissSet why = AnswerFromView(*port.view, key, pkey, &draws, &mine);
          path_seed_draws(h, seed * 0x1234567);
          int rc = by_gid ? ibssa_path_by_gid(h, port.gid.data(), dgid, pkey, &theirs, nullptr)
                          : ibssa_path_by_lid(h, kBaseLid, dlid, pkey, &theirs, nullptr);
          std::string what = "P_Key " + std::to_string(pkey) + " DLID " + std::to_string(dlid) +
                             (by_gid ? " by GID" : " by LID");
          if (why) {
            LONGS_EQUAL_TEXT(-ENODATA, rc, what.c_str());
            ++refused;
            continue;
          }
          LONGS_EQUAL_TEXT(0, rc, what.c_str());
          MEMCMP_EQUAL_TEXT(&mine, &theirs, sizeof(mine), what.c_str());
          ++answered;
        }
      }
    }
  }
  // For P_Key 0xffff four records answer, for 0x8002 two; the rest are of
  // the other partition, not exact, or absent (DLID 18): 2 ways x 8 seeds.
  LONGS_EQUAL((4 + 2) * 16, answered);
  LONGS_EQUAL((2 * 9 - 6) * 16, refused);
  ibssa_path_close(h);
  close(placeholder);
}
