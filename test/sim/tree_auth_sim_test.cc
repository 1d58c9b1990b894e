// tree_auth_sim_test.cc: issue 46, finding 7 on the simulated fabric. A
// local user on a member's host binds the member's data port while it is
// down (the test process is that rogue: ssa::test::RogueParent) and serves
// a forged database with the current epoch to whoever connects, checking
// nothing. What users see is asserted:
//   - an access node assigned to the dead distribution node meets the
//     rogue's forged SMDB: it refuses it before any data (the rogue did
//     send it whole), counts it (ibssa_unproven_parents_total), reports the
//     parent lost, and takes the core's SMDB instead, whose content the
//     core confirms (ibssa_smdb_content_checks_total);
//   - a consumer whose access node died meets the rogue's forged PRDB: it
//     refuses it, counts it (unproven_parents in its stats), never holds a
//     byte of it, joins again, and ends with the SA's paths from the access
//     node the core assigns next.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/smdb/smdb.h"
#include "common/smdb/smdb_prdb.h"
#include "test/sim/osm_plugin_util.h"
#include "test/sim/tree_fixture.h"
#include "test/sim/tree_harness.h"
#include "test/support/check_ok.h"
#include "test/support/poll.h"
#include "test/support/rogue_parent.h"

#include "CppUTest/TestHarness.h"

using namespace std::chrono_literals;
using ssa::test::NumberOf;
using ssa::test::RogueOptions;
using ssa::test::RogueParent;
using ssa::test::TreeHarness;

TEST_GROUP_BASE(TreeAuthSim, ssa::test::TreeFixture){
    std::string MetricsOf(const std::string& node){return dir.path() + "/" + node + ".prom";
}
std::string MetricsCfg(const std::string& node) {
  return "metrics_file = " + MetricsOf(node) + "\nmetrics_interval = 1\n";
}
// Kills `node`'s ibssa and waits until it is gone (its port is free).
void Kill(const std::string& node) {
  CHECK_OK(tree->process(node)->Kill(SIGKILL));
  int status = 0;
  CHECK_OK(tree->process(node)->Wait(10s, &status));
}
}
;

TEST(TreeAuthSim, ARogueOnAMembersPortServesNothingAndItsChildrenJoinElsewhere) {
  TreeHarness::Options o;
  CHECK_OK(TreeHarness::FatTree(12, 0, &o));
  CHECK_OK(tree->Start(o));
  const uint64_t epoch = tree->smdb().global_epoch;

  // The distribution node dies; the rogue takes its port. The core still
  // lists it (nobody reported it lost), so the next access node is
  // assigned to it.
  CHECK_OK(tree->StartIbssa("Hca2", "distribution"));
  int port = 0;
  CHECK_OK(tree->IbssaDataPort("Hca2", &port));
  Kill("Hca2");
  ssa::smdb::Smdb forged_smdb = tree->smdb();
  // Misdirected routes: every port's LID moved by one.
  for (auto& g : forged_smdb.guid_lids.records) g.base_lid = static_cast<uint16_t>(g.base_lid + 1);
  RogueOptions ro;
  ro.port = port;
  ro.guid = tree->PortGuid("Hca2");
  ro.epoch = epoch;
  ro.kind = ssa::tree::DbKind::kSmdb;
  CHECK_OK(forged_smdb.Serialize(&ro.bytes));
  std::unique_ptr<RogueParent> rogue;
  CHECK_OK(RogueParent::Start(ro, &rogue));

  CHECK_OK(tree->StartIbssa("Hca3", "access", MetricsCfg("Hca3")));
  WaitSample(MetricsOf("Hca3"), "ibssa_unproven_parents_total{role=\"access\",db=\"smdb\"}",
             AtLeast(1));
  CHECK_TEXT(rogue->served() >= 1, "the rogue never sent its forged SMDB");
  // The core confirmed the SMDB the access node holds, byte for byte.
  WaitSample(MetricsOf("Hca3"),
             "ibssa_smdb_content_checks_total{role=\"access\",result=\"confirmed\"}", AtLeast(1));
  CHECK_EQUAL(0, WaitSample(MetricsOf("Hca3"),
                            "ibssa_smdb_content_checks_total{role=\"access\",result=\"mismatch\"}",
                            AtLeast(0)));
  rogue.reset();

  // A consumer under it holds the SA's paths.
  CHECK_OK(tree->StartConsumer("Hca6"));
  CHECK_OK(tree->WaitConsumersAt({"Hca6"}, epoch, 30s));
  size_t pairs = 0;
  CHECK_OK(tree->ComparePrdbWithSa("Hca6", "Hca10", &pairs));
  const std::string held = ssa::test::ReadFileText(tree->ConsumerDump("Hca6"));

  // The access node dies; the rogue takes its port with a forged PRDB of
  // the current epoch (every path on another SL).
  CHECK_OK(tree->IbssaDataPort("Hca3", &port));
  Kill("Hca3");
  ssa::smdb::Prdb forged_prdb;
  CHECK_OK(ssa::smdb::Prdb::Parse(reinterpret_cast<const uint8_t*>(held.data()), held.size(),
                                  &forged_prdb));
  for (auto& p : forged_prdb.paths.records) p.sl = static_cast<uint8_t>((p.sl + 1) & 0xf);
  ro.port = port;
  ro.guid = tree->PortGuid("Hca3");
  ro.epoch = forged_prdb.global_epoch;
  ro.kind = ssa::tree::DbKind::kPrdb;
  ro.bytes.clear();
  CHECK_OK(forged_prdb.Serialize(&ro.bytes));
  CHECK_OK(RogueParent::Start(ro, &rogue));
  CHECK_TEXT(ssa::test::PollUntil(30s,
                                  [&] {
                                    return NumberOf(tree->ReadStats("Hca6"), "unproven_parents") >=
                                               1 &&
                                           rogue->served() >= 1;
                                  }),
             "the consumer never met the rogue");
  // Not a byte of the forgery was taken.
  CHECK(ssa::test::ReadFileText(tree->ConsumerDump("Hca6")) == held);

  // Another access node: the consumer joins it and holds the SA's paths.
  CHECK_OK(tree->StartIbssa("Hca4", "access"));
  CHECK_TEXT(
      ssa::test::PollUntil(
          30s,
          [&] { return NumberOf(tree->ReadStats("Hca6"), "parent_lid") == tree->Lid("Hca4"); }),
      "the consumer did not move to the new access node");
  rogue.reset();
  CHECK_OK(tree->WaitConsumersAt({"Hca6"}, epoch, 30s));
  CHECK_OK(tree->ComparePrdbWithSa("Hca6", "Hca10", &pairs));
  CHECK(pairs > 0);
}
